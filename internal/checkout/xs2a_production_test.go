package checkout_test

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/bankrail/bankrail/internal/apptest"
	"github.com/bankrail/bankrail/internal/camt/camttest"
	"github.com/bankrail/bankrail/internal/config"
	"github.com/bankrail/bankrail/internal/dbtest"
	"github.com/bankrail/bankrail/internal/ledger"
	"github.com/bankrail/bankrail/internal/payment"
	"github.com/bankrail/bankrail/internal/xs2a"
)

// certs are a test CA and what it signed, as PEM files in a directory.
type certs struct {
	dir     string
	ca      *x509.Certificate
	caKey   *ecdsa.PrivateKey
	caPool  *x509.CertPool
	server  tls.Certificate
	serial  int64
	caPEM   string // file names
	certPEM string
	keyPEM  string
}

// newCerts makes a CA, a server certificate for 127.0.0.1 and a client
// certificate (the QWAC bankrail shows), each written as PEM.
func newCerts(t *testing.T) *certs {
	t.Helper()
	c := &certs{dir: t.TempDir(), serial: 1}
	var err error
	c.caKey, err = ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "test CA"}, IsCA: true,
		BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign, NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour)}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &c.caKey.PublicKey, c.caKey)
	if err != nil {
		t.Fatal(err)
	}
	c.ca, _ = x509.ParseCertificate(der)
	c.caPool = x509.NewCertPool()
	c.caPool.AddCert(c.ca)
	c.caPEM = c.write(t, "ca.pem", "CERTIFICATE", der)
	srvDER, srvKey := c.issue(t, "bank", x509.ExtKeyUsageServerAuth)
	c.server = tls.Certificate{Certificate: [][]byte{srvDER}, PrivateKey: srvKey}
	cliDER, cliKey := c.issue(t, "bankrail QWAC", x509.ExtKeyUsageClientAuth)
	c.certPEM = c.write(t, "qwac.pem", "CERTIFICATE", cliDER)
	keyDER, err := x509.MarshalECPrivateKey(cliKey)
	if err != nil {
		t.Fatal(err)
	}
	c.keyPEM = c.write(t, "qwac.key", "EC PRIVATE KEY", keyDER)
	return c
}

// issue signs a certificate for 127.0.0.1 with usage.
func (c *certs) issue(t *testing.T, name string, usage x509.ExtKeyUsage) ([]byte, *ecdsa.PrivateKey) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	c.serial++
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(c.serial), Subject: pkix.Name{CommonName: name},
		IPAddresses: []net.IP{net.ParseIP("127.0.0.1")}, ExtKeyUsage: []x509.ExtKeyUsage{usage},
		KeyUsage: x509.KeyUsageDigitalSignature, NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour)}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, c.ca, &key.PublicKey, c.caKey)
	if err != nil {
		t.Fatal(err)
	}
	return der, key
}

func (c *certs) write(t *testing.T, name, kind string, der []byte) string {
	t.Helper()
	path := filepath.Join(c.dir, name)
	if err := os.WriteFile(path, pem.EncodeToMemory(&pem.Block{Type: kind, Bytes: der}), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// mutualTLS serves h over TLS, taking only clients with a certificate of
// the CA.
func (c *certs) mutualTLS(t *testing.T, h http.Handler) *httptest.Server {
	t.Helper()
	srv := httptest.NewUnstartedServer(h)
	srv.TLS = &tls.Config{Certificates: []tls.Certificate{c.server}, ClientCAs: c.caPool, ClientAuth: tls.RequireAndVerifyClientCert,
		MinVersion: tls.VersionTLS12}
	srv.StartTLS()
	t.Cleanup(srv.Close)
	return srv
}

// directory writes a bank directory of one bank at baseURL, with the QWAC
// from files and the key from the environment variable env.
func (c *certs) directory(t *testing.T, bankID, baseURL, env, timeout string) string {
	t.Helper()
	key, err := os.ReadFile(c.keyPEM)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Setenv(env, string(key)); err != nil { // a name of this test's own: t.Setenv refuses parallel tests
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.Unsetenv(env) })
	path := filepath.Join(c.dir, "banks.yaml")
	yaml := "banks:\n  - id: " + bankID + "\n    baseUrl: " + baseURL + "\n    products: [sepa-credit-transfers]\n" +
		"    timeout: " + timeout + "\n    clientCert: {file: " + c.certPEM + "}\n    clientKey: {env: " + env + "}\n    caCerts: {file: " + c.caPEM + "}\n"
	if err := os.WriteFile(path, []byte(yaml), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// withBanks points a production Env at a bank directory.
func withBanks(path string) apptest.Option { return func(c *config.Config) { c.BanksFile = path } }

// A production instance whose directory points at the mock ASPSP, run as
// a bank of its own behind mutual TLS with certificates made here, takes a
// payment expected on the merchant's Connect account from creation to
// COMPLETED through the connector, then to RECEIVED through the rails'
// statement import: the operator posts the bank's camt.054 credit, whose
// remittance is what the connector sent the bank (the payment's unique
// reference). Banks check reaches the bank with the QWAC and fails
// without it. Both instances run on each engine.
func TestProductionPaymentAtANextGenPSD2Bank(t *testing.T) {
	t.Parallel()
	c := newCerts(t)
	apptest.Each(t, func(t *testing.T, bankEnv *apptest.Env) {
		api := c.mutualTLS(t, bankEnv.App.Handler()) // the bank's NextGenPSD2 interface; its SCA pages at bankEnv.URL
		banks := c.directory(t, apptest.BankDE, api.URL+"/xs2a/"+apptest.BankDE, "BANKRAIL_TEST_QWAC_KEY_"+strings.ToUpper(string(bankEnv.DB.Engine)), "5s")
		env := apptest.NewOn(t, dbtest.Migrated(t, bankEnv.DB.Engine), apptest.Production, apptest.ServedAtPublicURL, withBanks(banks))
		acct, _, err := env.App.Accounts().EnsureAccount(t.Context(), ledger.AccountSpec{CustomerID: apptest.ShopID, Currency: "EUR", Nickname: "Shop EUR"})
		if err != nil {
			t.Fatal(err)
		}
		body := with(apptest.EUPayment(), "openBankingEU", map[string]any{"institutionId": apptest.BankDE})
		delete(body, "beneficiary") // expected on the Connect account
		p := env.CreatePayment(t, env.Token(t, apptest.Merchant), "api", body, nil)
		pr := newPayer(t, env)
		toBank := pr.get(p.DirectURL())
		sca, err := url.Parse(toBank.Location)
		if toBank.Status != http.StatusSeeOther || err != nil || !strings.Contains(sca.Path, "/xs2a/"+apptest.BankDE+"/sca/") {
			t.Fatalf("to the bank: %d %s", toBank.Status, toBank.Location)
		}
		atBank := newPayer(t, bankEnv)
		atBank.get(sca.Path).must(t, http.StatusOK, "Shop EUR", acct.IBAN)
		back := atBank.post(sca.Path, url.Values{"outcome": {"COMPLETED"}, "holder": {"ANNA MUELLER"}})
		if back.Status != http.StatusSeeOther || !strings.HasPrefix(back.Location, env.URL+"/checkout/"+p.ID+"/return?") {
			t.Fatalf("back from the bank: %d %s", back.Status, back.Location)
		}
		pr.follow(back.Location)
		if st := statusOf(t, env, p.ID); st != payment.StatusCompleted {
			t.Fatalf("at a NextGenPSD2 bank: %s", st)
		}
		receivedThroughStatement(t, env, bankEnv, path.Base(sca.Path), acct.IBAN, p.ID)

		d, err := xs2a.LoadDirectory(banks)
		if err != nil {
			t.Fatal(err)
		}
		results, err := d.Check(t.Context())
		if err != nil || len(results) != 1 || results[0].Err != nil || results[0].Status != http.StatusForbidden {
			t.Fatalf("banks check: %+v %v", results, err)
		}
		d.Banks[0].ClientCert, d.Banks[0].ClientKey = xs2a.Secret{}, xs2a.Secret{}
		if results, err := d.Check(t.Context()); err != nil || results[0].Err == nil {
			t.Fatalf("banks check without the QWAC: %+v %v", results, err)
		}
	}, apptest.ServedAtPublicURL)
}

// receivedThroughStatement books the bank's credit of payment id on the
// Connect account iban as the bank reports it: a camt.054 whose remittance
// is the one the bank holds for its payment aspspID (what the connector
// sent), imported by the operator (POST /statements). The payment is then
// RECEIVED.
func receivedThroughStatement(t *testing.T, env, bankEnv *apptest.Env, aspspID, iban, id string) {
	t.Helper()
	atBank, err := bankEnv.App.Store().MockPayment(t.Context(), apptest.BankDE, aspspID)
	if err != nil {
		t.Fatal(err)
	}
	ref := atBank.Body.RemittanceInformationUnstructured
	stored, err := env.App.Store().Payments().GetByID(t.Context(), id)
	if err != nil || ref == "" || ref != stored.UniqueReference {
		t.Fatalf("the bank holds remittance %q, the payment's unique reference is %q (%v)", ref, stored.UniqueReference, err)
	}
	amount, err := xs2a.ParseAmount(atBank.Body.InstructedAmount)
	if err != nil {
		t.Fatal(err)
	}
	doc := camttest.String(54, 8, "NTFCN-"+id[:8], camttest.Stmt{IBAN: iban, Entries: []camttest.Entry{{AcctSvcrRef: "XS2A-" + id,
		Minor: amount, Credit: true, Txs: []camttest.Tx{{Ustrd: []string{ref}, Name: "ANNA MUELLER", IBAN: "DE89370400440532013000"}}}}})
	resp := env.Do(t, apptest.Request{Method: "POST", Path: "/statements", Token: env.Token(t, apptest.Operator),
		Header: map[string]string{"Content-Type": "application/xml", "X-Service-Api-Version": "1"}, Body: doc})
	if resp.Status != http.StatusCreated || !strings.Contains(string(resp.Body), `"matched":1`) {
		t.Fatalf("POST /statements: %d %s", resp.Status, resp.Body)
	}
	if st := statusOf(t, env, id); st != payment.StatusReceived {
		t.Fatalf("after the bank's credit: %s", st)
	}
}
