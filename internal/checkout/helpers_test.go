package checkout_test

import (
	"context"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/bankrail/bankrail/internal/apptest"
	"github.com/bankrail/bankrail/internal/payment"
)

// page is an answer to the payer's browser.
type page struct {
	Status   int
	Location string
	Body     string
	Header   http.Header
}

// payer is a browser without JavaScript: it does not follow redirects, so
// tests see every step.
type payer struct {
	t   *testing.T
	env *apptest.Env
	c   *http.Client
}

func newPayer(t *testing.T, env *apptest.Env) *payer {
	c := *env.Server.Client()
	c.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	return &payer{t: t, env: env, c: &c}
}

// abs makes a path of the Env absolute.
func (p *payer) abs(u string) string {
	if strings.HasPrefix(u, "/") {
		return p.env.URL + u
	}
	return u
}

func (p *payer) do(req *http.Request) page {
	p.t.Helper()
	resp, err := p.c.Do(req)
	if err != nil {
		p.t.Fatalf("%s %s: %v", req.Method, req.URL, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return page{Status: resp.StatusCode, Location: resp.Header.Get("Location"), Body: string(b), Header: resp.Header}
}

// get fetches u.
func (p *payer) get(u string) page {
	p.t.Helper()
	req, err := http.NewRequest(http.MethodGet, p.abs(u), nil)
	if err != nil {
		p.t.Fatal(err)
	}
	return p.do(req)
}

// post sends a form to u.
func (p *payer) post(u string, form url.Values) page {
	p.t.Helper()
	req, err := http.NewRequest(http.MethodPost, p.abs(u), strings.NewReader(form.Encode()))
	if err != nil {
		p.t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	return p.do(req)
}

// follow fetches u and follows redirects within bankrail, returning the
// last page and the address it came from.
func (p *payer) follow(u string) (page, string) {
	p.t.Helper()
	for range 5 {
		pg := p.get(u)
		if pg.Location == "" || !strings.HasPrefix(p.abs(pg.Location), p.env.URL) {
			return pg, u
		}
		u = pg.Location
	}
	p.t.Fatalf("too many redirects from %s", u)
	return page{}, ""
}

// must fails unless pg has status and contains every text.
func (pg page) must(t *testing.T, status int, texts ...string) {
	t.Helper()
	if pg.Status != status {
		t.Fatalf("status %d, want %d; body:\n%s", pg.Status, status, pg.Body)
	}
	for _, s := range texts {
		if !strings.Contains(pg.Body, s) {
			t.Fatalf("page does not contain %q:\n%s", s, pg.Body)
		}
	}
}

// tokenOf is the checkout token of a payer address.
func tokenOf(t *testing.T, address string) string {
	t.Helper()
	u, err := url.Parse(address)
	if err != nil || u.Query().Get("token") == "" {
		t.Fatalf("no token in %s", address)
	}
	return u.Query().Get("token")
}

// statusOf reads a payment's status from the store.
func statusOf(t *testing.T, env *apptest.Env, id string) payment.Status {
	t.Helper()
	p, err := env.App.Store().Payments().GetByID(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	return p.Status
}

// with returns a copy of body with key set to v.
func with(body map[string]any, key string, v any) map[string]any {
	out := make(map[string]any, len(body))
	for k, x := range body {
		out[k] = x
	}
	out[key] = v
	return out
}
