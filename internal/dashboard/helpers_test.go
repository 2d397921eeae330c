package dashboard_test

import (
	"context"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/bankrail/bankrail/internal/apptest"
	"github.com/bankrail/bankrail/internal/ledger"
	"github.com/bankrail/bankrail/internal/money"
	"github.com/bankrail/bankrail/internal/store"
)

// v1 is the API version header of the versioned routes.
var v1 = map[string]string{"X-Service-Api-Version": "1"}

// page is one answer of the console.
type page struct {
	Status   int
	Header   http.Header
	Body     string
	Location string // of a redirect
}

// console is a person's browser without a browser: a cookie jar, no
// redirect followed unless asked.
type console struct {
	t    testing.TB
	env  *apptest.Env
	http *http.Client
	csrf string // the synchronizer token of the last page read
}

// newConsole is a browser with no session.
func newConsole(t testing.TB, env *apptest.Env) *console {
	jar, _ := cookiejar.New(nil)
	return &console{t: t, env: env, http: &http.Client{Jar: jar, Timeout: 30 * time.Second,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}}
}

// csrfInput finds the token of a page's forms.
var csrfInput = regexp.MustCompile(`name="csrf" value="([^"]+)"`)

// do sends req and reads the answer, remembering the page's token.
func (c *console) do(req *http.Request) page {
	c.t.Helper()
	resp, err := c.http.Do(req)
	if err != nil {
		c.t.Fatalf("%s %s: %v", req.Method, req.URL, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		c.t.Fatal(err)
	}
	p := page{Status: resp.StatusCode, Header: resp.Header, Body: string(b), Location: resp.Header.Get("Location")}
	if m := csrfInput.FindStringSubmatch(p.Body); m != nil {
		c.csrf = m[1]
	}
	return p
}

// get reads path.
func (c *console) get(path string) page {
	c.t.Helper()
	req, err := http.NewRequest(http.MethodGet, c.env.URL+path, nil)
	if err != nil {
		c.t.Fatal(err)
	}
	return c.do(req)
}

// open reads path and fails unless it is a page (200).
func (c *console) open(path string) page {
	c.t.Helper()
	p := c.get(path)
	if p.Status != http.StatusOK {
		c.t.Fatalf("GET %s: %d (to %s)\n%s", path, p.Status, p.Location, p.Body)
	}
	return p
}

// post sends a form to path with the last page's token (unless the form
// has its own csrf, possibly empty: then none is sent).
func (c *console) post(path string, form url.Values) page {
	c.t.Helper()
	if form == nil {
		form = url.Values{}
	}
	if _, ok := form["csrf"]; !ok {
		form.Set("csrf", c.csrf)
	} else if form.Get("csrf") == "" {
		form.Del("csrf")
	}
	req, err := http.NewRequest(http.MethodPost, c.env.URL+path, strings.NewReader(form.Encode()))
	if err != nil {
		c.t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	return c.do(req)
}

// act posts a form that must succeed: a redirect back to a page (303).
func (c *console) act(path string, form url.Values) string {
	c.t.Helper()
	p := c.post(path, form)
	if p.Status != http.StatusSeeOther || strings.Contains(p.Location, "sign-in") {
		c.t.Fatalf("POST %s: %d to %q\n%s", path, p.Status, p.Location, p.Body)
	}
	return p.Location
}

// signIn signs in as username with password through the form.
func signIn(t testing.TB, env *apptest.Env, l apptest.Login) *console {
	t.Helper()
	c := newConsole(t, env)
	c.open("/dashboard/sign-in")
	p := c.post("/dashboard/sign-in", url.Values{"username": {l.Username}, "password": {l.Password}})
	if p.Status != http.StatusSeeOther || p.Location != "/dashboard/payments" {
		t.Fatalf("sign in as %s: %d to %q\n%s", l.Username, p.Status, p.Location, p.Body)
	}
	c.open("/dashboard/payments") // the session's token
	return c
}

// contains fails unless body holds every one of want.
func contains(t testing.TB, what, body string, want ...string) {
	t.Helper()
	for _, w := range want {
		if !strings.Contains(body, w) {
			t.Fatalf("%s lacks %q:\n%s", what, w, body)
		}
	}
}

// lacks fails when body holds any of bad.
func lacks(t testing.TB, what, body string, bad ...string) {
	t.Helper()
	for _, b := range bad {
		if strings.Contains(body, b) {
			t.Fatalf("%s holds %q:\n%s", what, b, body)
		}
	}
}

// main is the <main> of a page.
func mainOf(body string) string {
	i, j := strings.Index(body, "<main"), strings.Index(body, "</main>")
	if i < 0 || j < i {
		return body
	}
	return body[i:j]
}

// createPayment creates an EU payment through the API with a reference
// and optional scenario, and returns its id.
func createPayment(t testing.TB, env *apptest.Env, token, reference string, headers map[string]string, edit func(map[string]any)) string {
	t.Helper()
	body := apptest.EUPayment()
	body["paymentReference"] = reference
	body["internalReference"] = "internal-" + reference
	if edit != nil {
		edit(body)
	}
	return env.CreatePayment(t, token, "hosted", body, headers).ID
}

// openAccount opens a Connect account of customer.
func openAccount(t testing.TB, env *apptest.Env, customer, currency, nickname string) ledger.Account {
	t.Helper()
	a, _, err := env.App.Accounts().EnsureAccount(context.Background(),
		ledger.AccountSpec{CustomerID: customer, Currency: currency, Nickname: nickname})
	if err != nil {
		t.Fatalf("open account: %v", err)
	}
	return a
}

// credit records completed incoming funds on a.
func credit(t testing.TB, env *apptest.Env, a ledger.Account, amount int64, at time.Time) {
	t.Helper()
	tx := ledger.Transaction{ID: uuid.NewString(), AccountID: a.ID, CustomerID: a.CustomerID, Type: ledger.TypeManualCredit,
		Operation: ledger.Incoming, Status: ledger.TxCompleted, Amount: money.Must(money.New(amount, a.Currency)),
		Reference: "Top-up", Counterparty: ledger.Counterparty{Name: "Anna Payer", IBAN: "DE89370400440532013000"}, CreatedAt: at, UpdatedAt: at}
	e, err := ledger.Open(tx, uuid.NewString())
	if err != nil {
		t.Fatal(err)
	}
	if err := env.App.Store().InTx(context.Background(), func(s *store.Tx) error { return s.Ledger().Record(context.Background(), tx, e) }); err != nil {
		t.Fatal(err)
	}
}

// heldPayout creates a payout of amount from acct whose beneficiary's
// name is a close match: held for a decision. It returns the payout's id.
func heldPayout(t testing.TB, env *apptest.Env, token string, acct ledger.Account, amount int64, name string) string {
	t.Helper()
	resp := env.Do(t, apptest.Request{Method: "POST", Path: "/payouts", Token: token,
		Header: map[string]string{"X-Service-Api-Version": "1", "X-Service-Testing-Scenario": "ACCOUNT_HOLDER_VERIFICATION_CLOSE_MATCH"},
		Body: map[string]any{"accountId": acct.ID, "amount": amount, "currency": acct.Currency, "paymentReference": "Invoice 7",
			"beneficiary": map[string]any{"name": name, "accountIdentifiers": map[string]any{"iban": "DE89370400440532013000"}}}})
	if resp.Status != http.StatusCreated {
		t.Fatalf("create payout: %d %s", resp.Status, resp.Body)
	}
	var p struct{ ID, Status string }
	resp.JSON(t, &p)
	return p.ID
}

// payoutStatus reads a payout's status through the API.
func payoutStatus(t testing.TB, env *apptest.Env, token, id string) string {
	t.Helper()
	var p struct{ Status string }
	env.Do(t, apptest.Request{Method: "GET", Path: "/payouts/" + id, Token: token, Header: v1}).JSON(t, &p)
	return p.Status
}

// waitFor retries until cond holds (10 s at most).
func waitFor(t testing.TB, what string, cond func() bool) {
	t.Helper()
	apptest.Eventually(t, what, cond)
}

// wrongToken is token with its first character changed: a forged token
// that is never the right one.
func wrongToken(token string) string {
	if strings.HasPrefix(token, "x") {
		return "y" + token[1:]
	}
	return "x" + token[1:]
}
