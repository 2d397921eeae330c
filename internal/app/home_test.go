package app_test

import (
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"

	"github.com/bankrail/bankrail/internal/app"
	"github.com/bankrail/bankrail/internal/config"
	"github.com/bankrail/bankrail/internal/dbtest"
	"github.com/bankrail/bankrail/internal/identity"
	"github.com/bankrail/bankrail/internal/seed"
)

// TestStartPageDemoPaymentOpensItsCheckout is a newcomer opening GET / of
// an empty sandbox: the page's button creates a payment of the demo
// merchant and lands on its hosted checkout. A post from another site is
// refused.
func TestStartPageDemoPaymentOpensItsCheckout(t *testing.T) {
	t.Parallel()
	db := dbtest.Migrated(t, dbtest.SQLite)
	cfg := config.Default()
	cfg.DataDir = db.DataDir
	cheap := identity.HashParams{Time: 1, Memory: 1024, Threads: 1}
	ctx := adminContext()
	a, err := app.New(ctx, cfg, quietLog(), app.Options{HashParams: &cheap})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { a.Close() })
	srv := httptest.NewServer(a.Handler())
	t.Cleanup(srv.Close)
	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}

	resp, err := client.Get(srv.URL + "/")
	if err != nil {
		t.Fatal(err)
	}
	page, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	form := regexp.MustCompile(`<form method="post" action="([^"]+)"`).FindSubmatch(page)
	if resp.StatusCode != http.StatusOK || form == nil {
		t.Fatalf("GET /: %d, no demo payment form:\n%s", resp.StatusCode, page)
	}

	post := func(site string) *http.Response {
		t.Helper()
		req, _ := http.NewRequest("POST", srv.URL+string(form[1]), nil)
		req.Header.Set("Sec-Fetch-Site", site) // what a browser sends with a form post
		resp, err := client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp
	}
	if resp := post("cross-site"); resp.StatusCode != http.StatusForbidden {
		t.Fatalf("a cross-site post: %d", resp.StatusCode)
	}
	resp = post("same-origin")
	loc := resp.Header.Get("Location")
	m := regexp.MustCompile(`/checkout/([0-9a-f-]{36})\?token=`).FindStringSubmatch(loc)
	if resp.StatusCode != http.StatusSeeOther || m == nil {
		t.Fatalf("demo payment: %d Location %q", resp.StatusCode, loc)
	}
	p, err := a.Payments().Get(ctx, seed.DemoCustomerID, m[1])
	if err != nil || p.ClientID != seed.DemoClientID || p.Request.Amount == nil || *p.Request.Amount != 1050 ||
		p.ConnectAccountID != seed.DemoEURAccountID {
		t.Fatalf("the demo payment (expected on the demo EUR account) %+v: %v", p, err)
	}
	checkout, err := http.Get(srv.URL + loc[strings.Index(loc, "/checkout/"):]) // the public URL is the default address, not the test server
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(checkout.Body)
	checkout.Body.Close()
	if checkout.StatusCode != http.StatusOK || !strings.Contains(string(body), "Demo Shop") {
		t.Fatalf("its checkout: %d\n%s", checkout.StatusCode, body)
	}
}
