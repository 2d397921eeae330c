package xs2a

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/google/uuid"
	"go.yaml.in/yaml/v3"

	"github.com/bankrail/bankrail/internal/bank"
	"github.com/bankrail/bankrail/internal/iso"
)

// Directory is the production bank directory (serve --banks FILE, YAML):
// the NextGenPSD2 banks bankrail reaches, each with its certificates.
type Directory struct {
	Banks []DirectoryBank `yaml:"banks"`
}

// DirectoryBank is one bank of the directory. A bank whose id is in
// bankrail's registry keeps the registry's data (name, logo, ...); another
// is added to the registry with the data given here.
type DirectoryBank struct {
	ID       string   `yaml:"id"` // uuid
	Name     string   `yaml:"name"`
	Country  string   `yaml:"country"` // ISO 3166-1 alpha-2
	BIC      string   `yaml:"bic"`
	Logo     string   `yaml:"logo"`    // an SVG file (optional)
	BaseURL  string   `yaml:"baseUrl"` // up to /v1, e.g. https://api.bank.example/psd2
	Products []string `yaml:"products"`
	Timeout  string   `yaml:"timeout"` // one request, e.g. "10s" (default DefaultTimeout)
	// SCAApproach is the approach bankrail asks the bank for: REDIRECT
	// (the default) or DECOUPLED (the payer confirms in the bank's app).
	SCAApproach string `yaml:"scaApproach"`
	// ClientCert and ClientKey are the QWAC (PEM) bankrail shows the bank
	// (mutual TLS); CACerts the CAs to trust for the bank's server (PEM;
	// default: the system's).
	ClientCert Secret `yaml:"clientCert"`
	ClientKey  Secret `yaml:"clientKey"`
	CACerts    Secret `yaml:"caCerts"`
}

// Secret is read from a file or an environment variable, never written in
// the directory itself, never logged (String hides it).
type Secret struct {
	File string `yaml:"file"`
	Env  string `yaml:"env"`
}

// String names where the secret is, not what it is.
func (s Secret) String() string {
	switch {
	case s.File != "":
		return "file " + s.File
	case s.Env != "":
		return "environment variable " + s.Env
	}
	return "none"
}

// set reports whether the secret is configured.
func (s Secret) set() bool { return s.File != "" || s.Env != "" }

// read returns the secret's bytes.
func (s Secret) read() ([]byte, error) {
	switch {
	case s.File != "" && s.Env != "":
		return nil, fmt.Errorf("give file or env, not both")
	case s.File != "":
		b, err := os.ReadFile(s.File)
		if err != nil {
			return nil, fmt.Errorf("read %s: %w", s, err)
		}
		return b, nil
	case s.Env != "":
		v, ok := os.LookupEnv(s.Env)
		if !ok || v == "" {
			return nil, fmt.Errorf("%s is not set", s)
		}
		return []byte(v), nil
	}
	return nil, nil
}

// LoadDirectory reads and checks a directory file: every problem at once,
// certificates and keys included (read and parsed, never printed).
func LoadDirectory(path string) (Directory, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return Directory{}, fmt.Errorf("bank directory: %w", err)
	}
	var d Directory
	dec := yaml.NewDecoder(bytes.NewReader(raw))
	dec.KnownFields(true)
	if err := dec.Decode(&d); err != nil {
		return Directory{}, fmt.Errorf("bank directory %s: %w", path, err)
	}
	if err := d.Validate(); err != nil {
		return Directory{}, fmt.Errorf("bank directory %s: %w", path, err)
	}
	return d, nil
}

// Validate checks every bank and reports every problem at once.
func (d Directory) Validate() error {
	var problems []string
	seen := map[string]bool{}
	for i, b := range d.Banks {
		at := fmt.Sprintf("banks[%d]", i)
		if _, err := uuid.Parse(b.ID); err != nil {
			problems = append(problems, at+".id must be a UUID")
		} else if seen[strings.ToLower(b.ID)] {
			problems = append(problems, at+".id "+b.ID+" is listed twice")
		}
		seen[strings.ToLower(b.ID)] = true
		if u, err := url.Parse(b.BaseURL); err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
			problems = append(problems, at+".baseUrl must be an https URL")
		}
		for _, p := range b.Products {
			if p != ProductSEPA && p != ProductInstantSEPA {
				problems = append(problems, at+".products: "+p+" is not one of "+ProductSEPA+", "+ProductInstantSEPA)
			}
		}
		if a := strings.ToUpper(b.SCAApproach); a != "" && a != SCARedirect && a != SCADecoupled {
			problems = append(problems, at+".scaApproach must be "+SCARedirect+" or "+SCADecoupled)
		}
		if b.Timeout != "" {
			if t, err := time.ParseDuration(b.Timeout); err != nil || t <= 0 {
				problems = append(problems, at+".timeout must be a duration such as 10s")
			}
		}
		if _, err := b.transport(); err != nil {
			problems = append(problems, at+": "+err.Error())
		}
	}
	if len(problems) > 0 {
		return fmt.Errorf("%s", strings.Join(problems, "; "))
	}
	return nil
}

// transport is the TLS transport of b: its client certificate and the CAs
// it trusts.
func (b DirectoryBank) transport() (*http.Transport, error) {
	cfg := &tls.Config{MinVersion: tls.VersionTLS12}
	if b.ClientCert.set() != b.ClientKey.set() {
		return nil, fmt.Errorf("clientCert and clientKey go together")
	}
	if b.ClientCert.set() {
		certPEM, err := b.ClientCert.read()
		if err != nil {
			return nil, fmt.Errorf("clientCert: %w", err)
		}
		keyPEM, err := b.ClientKey.read()
		if err != nil {
			return nil, fmt.Errorf("clientKey: %w", err)
		}
		pair, err := tls.X509KeyPair(certPEM, keyPEM)
		if err != nil {
			return nil, fmt.Errorf("clientCert and clientKey (%s, %s) are not a certificate and its key", b.ClientCert, b.ClientKey)
		}
		cfg.Certificates = []tls.Certificate{pair}
	}
	if b.CACerts.set() {
		pemCAs, err := b.CACerts.read()
		if err != nil {
			return nil, fmt.Errorf("caCerts: %w", err)
		}
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(pemCAs) {
			return nil, fmt.Errorf("caCerts (%s) holds no PEM certificate", b.CACerts)
		}
		cfg.RootCAs = pool
	}
	t := newTransport()
	t.TLSClientConfig = cfg
	return t, nil
}

// Connections are the connector's banks of the directory: each with its
// own client (certificates, timeout).
func (d Directory) Connections() (map[string]Bank, error) {
	out := map[string]Bank{}
	for _, b := range d.Banks {
		t, err := b.transport()
		if err != nil {
			return nil, fmt.Errorf("bank %s: %w", b.ID, err)
		}
		timeout := DefaultTimeout
		if b.Timeout != "" {
			timeout, _ = time.ParseDuration(b.Timeout) // checked by Validate
		}
		hc := &http.Client{Transport: t, CheckRedirect: noRedirect}
		products := b.Products
		if len(products) == 0 {
			products = []string{ProductSEPA}
		}
		out[strings.ToLower(b.ID)] = Bank{ID: strings.ToLower(b.ID), Client: Client{BaseURL: strings.TrimRight(b.BaseURL, "/"), HTTP: hc, Timeout: timeout},
			Products: products, Decoupled: strings.EqualFold(b.SCAApproach, SCADecoupled)}
	}
	return out, nil
}

// Registry is base with the directory's banks that base does not have
// (the ones it has keep their data), and the directory's banks as the
// registry has them.
func (d Directory) Registry(base *bank.Registry) (*bank.Registry, []bank.Bank, error) {
	all := base.List(bank.Filter{})
	var listed []bank.Bank
	for _, db := range d.Banks {
		id := strings.ToLower(db.ID)
		if b, ok := base.Get(id); ok {
			listed = append(listed, b)
			continue
		}
		if _, ok := iso.CountryName(db.Country); !ok || db.Name == "" || db.BIC == "" {
			return nil, nil, fmt.Errorf("bank %s is not one bankrail knows: give its name, country (ISO 3166-1 alpha-2) and BIC", db.ID)
		}
		b := bank.Bank{ID: id, Name: db.Name, OfficialName: db.Name, Country: db.Country, BIC: db.BIC,
			Systems: []bank.PaymentSystem{bank.OpenBankingEU}, SEPAInstant: slices.Contains(db.Products, ProductInstantSEPA)}
		if db.Logo != "" {
			svg, err := os.ReadFile(db.Logo)
			if err != nil {
				return nil, nil, fmt.Errorf("bank %s: logo: %w", db.ID, err)
			}
			b.Logo, b.Icon = svg, svg
		}
		all = append(all, b)
		listed = append(listed, b)
	}
	return bank.NewRegistry(all), listed, nil
}

// CheckResult is whether one bank of the directory answers.
type CheckResult struct {
	BankID  string
	BaseURL string
	Status  int   // the HTTP status of its answer (any status: it answered)
	Err     error // nil when it answered
}

// Check asks every bank of the directory for the status of a payment that
// does not exist (GET /v1/payments/{product}/{random}/status), over its
// mutual TLS: any HTTP answer means the bank is reached and took bankrail's
// certificate; a failed handshake, a timeout or no connection is an error.
func (d Directory) Check(ctx context.Context) ([]CheckResult, error) {
	conns, err := d.Connections()
	if err != nil {
		return nil, err
	}
	out := make([]CheckResult, 0, len(d.Banks))
	for _, db := range d.Banks {
		b := conns[strings.ToLower(db.ID)]
		r := CheckResult{BankID: b.ID, BaseURL: b.Client.BaseURL}
		_, err := b.Client.Status(ctx, b.product(), uuid.NewString(), uuid.NewString())
		var e *Error
		switch {
		case err == nil:
			r.Status = http.StatusOK
		case errors.As(err, &e) && e.Status != 0:
			r.Status = e.Status
		default:
			r.Err = err
		}
		out = append(out, r)
	}
	return out, nil
}
