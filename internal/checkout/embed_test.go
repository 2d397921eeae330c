package checkout_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/bankrail/bankrail/internal/apptest"
	"github.com/bankrail/bankrail/internal/payment"
)

// dropin creates an embedded checkout (POST /dropin) and returns its id and
// token.
func dropin(t *testing.T, env *apptest.Env, body map[string]any) (string, string) {
	t.Helper()
	resp := env.Do(t, apptest.Request{Method: "POST", Path: "/dropin", Token: env.Token(t, apptest.Merchant), Body: body})
	var d struct{ ID, Token string }
	resp.JSON(t, &d)
	if resp.Status != http.StatusCreated {
		t.Fatalf("dropin: %d %s", resp.Status, resp.Body)
	}
	return d.ID, d.Token
}

func dropinBody(origin string) map[string]any {
	return map[string]any{"currencyCode": "EUR", "amount": 1050, "type": "BILL", "origin": origin,
		"shopper":           map[string]any{"reference": "cust-1", "firstName": "Anna", "lastName": "Müller"},
		"checkoutCountries": []string{"DE", "AT"}, "summaryDetails": []map[string]string{{"label": "Order", "value": "42"}},
		"beneficiary": map[string]any{"name": "Test Shop GmbH", "iban": apptest.IBANDE}}
}

// framedBy fails unless pg may be framed by origin only and runs
// bankrail's scripts.
func framedBy(t *testing.T, pg page, origin string) {
	t.Helper()
	csp := pg.Header.Get("Content-Security-Policy")
	if pg.Header.Get("X-Frame-Options") != "" || !strings.HasSuffix(csp, "frame-ancestors "+origin) || !strings.Contains(csp, "script-src 'self'") {
		t.Fatalf("framing headers: XFO %q, CSP %q", pg.Header.Get("X-Frame-Options"), csp)
	}
}

// The embedded checkout without a browser: the entry binds the token to the
// merchant's origin, every page may be framed by that origin only, and the
// final page carries the event for it instead of going to a return URL.
func TestEmbeddedCheckoutPages(t *testing.T) {
	t.Parallel()
	apptest.Each(t, func(t *testing.T, env *apptest.Env) {
		const shop = "https://shop.example"
		id, token := dropin(t, env, dropinBody(""))
		pr := newPayer(t, env)
		entry := "/checkout/" + id + "/embed?" + url.Values{"token": {token}, "origin": {shop}}.Encode()
		start := pr.get(entry)
		if start.Status != http.StatusSeeOther || !strings.HasPrefix(start.Location, "/checkout/"+id+"?token=") {
			t.Fatalf("entry: %d %s", start.Status, start.Location)
		}
		bound := tokenOf(t, start.Location)
		if l, _ := payment.ParseLink(bound); l.Origin != shop || l.Purpose != payment.LinkEmbedded {
			t.Fatalf("bound token %+v", l)
		}
		picker := pr.get(start.Location)
		picker.must(t, http.StatusOK, "Choose your bank", "Rheinische Volksbank")
		framedBy(t, picker, shop)

		confirm := pr.get("/checkout/" + id + "/confirm?" + url.Values{"token": {bound}, "bank": {apptest.BankDE}}.Encode())
		confirm.must(t, http.StatusOK, "Continue to Rheinische Volksbank")
		framedBy(t, confirm, shop)
		toBank := pr.post("/checkout/"+id+"/confirm", url.Values{"token": {bound}, "bank": {apptest.BankDE}})
		bank := pr.get(toBank.Location)
		bank.must(t, http.StatusOK, "Approve the payment")
		framedBy(t, bank, shop)
		done := pr.post(toBank.Location, url.Values{"token": {bound}, "outcome": {"COMPLETED"}})
		if !strings.HasPrefix(done.Location, "/checkout/"+id+"/done?") {
			t.Fatalf("after approval: %s", done.Location)
		}
		final := pr.get(done.Location)
		final.must(t, http.StatusOK, "Payment complete", `data-origin="https://shop.example"`, `data-event="success"`,
			`data-payment="`+id+`"`, `data-status="COMPLETED"`, `<script src="/checkout/static/embed.js">`)
		framedBy(t, final, shop)

		// The hosted checkout is not framed, and has no script.
		hosted := env.CreatePayment(t, env.Token(t, apptest.Merchant), "hosted", apptest.EUPayment(), nil)
		pg := pr.get(hosted.DirectURL())
		if pg.Header.Get("X-Frame-Options") != "DENY" || !strings.Contains(pg.Header.Get("Content-Security-Policy"), "frame-ancestors 'none'") ||
			strings.Contains(pg.Body, "<script") {
			t.Fatalf("hosted checkout headers %v", pg.Header)
		}
	}, apptest.ServedAtPublicURL)
}

func TestEmbeddedCheckoutRefusals(t *testing.T) {
	t.Parallel()
	apptest.Each(t, func(t *testing.T, env *apptest.Env) {
		pr := newPayer(t, env)
		entry := func(id, token, origin string) page {
			return pr.get("/checkout/" + id + "/embed?" + url.Values{"token": {token}, "origin": {origin}}.Encode())
		}
		// Bound to an origin at creation: another origin may not mount it.
		id, token := dropin(t, env, dropinBody("https://shop.example"))
		refused := entry(id, token, "https://evil.example")
		refused.must(t, http.StatusBadRequest, "may only be embedded in pages of https://shop.example")
		framedBy(t, refused, "https://evil.example") // the refusal shows in the frame
		entry(id, token, "https://shop.example").must(t, http.StatusSeeOther)
		entry(id, token, "not an origin").must(t, http.StatusBadRequest)
		entry(id, token+"x", "https://shop.example").must(t, http.StatusNotFound)
		// A legacy checkout link does not open an embedded checkout.
		c := env.Do(t, apptest.Request{Method: "POST", Path: "/legacy/payments", Token: env.Token(t, apptest.Merchant),
			Header: map[string]string{"X-Service-Api-Version": "1"}, Body: dropinBody("")})
		var created struct{ ID, CheckoutURL string }
		c.JSON(t, &created)
		entry(created.ID, tokenOf(t, created.CheckoutURL), "https://shop.example").must(t, http.StatusNotFound)
		// A forged origin in a token is not framed, and not accepted.
		pg := pr.get("/checkout/" + id + "?token=" + url.QueryEscape(strings.Replace(token, ".", "x.", 1)))
		if pg.Status != http.StatusNotFound || pg.Header.Get("X-Frame-Options") != "DENY" {
			t.Fatalf("forged token: %d %v", pg.Status, pg.Header)
		}
	}, apptest.ServedAtPublicURL)
}

func TestCheckoutLibraryServed(t *testing.T) {
	t.Parallel()
	env := apptest.New(t)
	pr := newPayer(t, env)
	lib := env.Do(t, apptest.Request{Method: "GET", Path: "/js/v1/checkout.js"}) // documented in the OpenAPI document
	if lib.Status != http.StatusOK || !strings.Contains(string(lib.Body), "global.BankrailCheckout") {
		t.Fatalf("library: %d", lib.Status)
	}
	for path, want := range map[string]string{"/js/v1/checkout.js": "BankrailCheckout", "/checkout/static/embed.js": "postMessage"} {
		pg := pr.get(path)
		pg.must(t, http.StatusOK, want)
		if ct := pg.Header.Get("Content-Type"); ct != "text/javascript; charset=utf-8" || pg.Header.Get("Cache-Control") != "public, max-age=3600" {
			t.Fatalf("%s: %v", path, pg.Header)
		}
	}
}
