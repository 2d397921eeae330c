package httpapi_test

import (
	"encoding/json"
	"net/http"
	"testing"

	"github.com/bankrail/bankrail/internal/apptest"
	"github.com/bankrail/bankrail/internal/config"
)

// TestServerRefusesWhatTheDocumentForbids covers what a property tester
// found the server accepting although api/openapi.yaml forbids it (issue 10,
// item 11): an explicit null for a field that is not nullable (refused in
// one place, the JSON decoding, for every body, with the field's path), an
// empty boolean or paging parameter, a page beyond the documented maximum
// and a country code in lower case (the document lists upper-case codes).
func TestServerRefusesWhatTheDocumentForbids(t *testing.T) {
	t.Parallel()
	legacyHeaders := map[string]string{"X-Service-Api-Version": "1"}
	cases := []struct {
		name   string
		method string
		path   string
		body   any
		header map[string]string
		status int
		code   string // empty: the legacy shape
		field  string // the INVALID_TYPE field of a 422, if any
	}{
		{"null bank on /dropin", "POST", "/dropin", withNull(dropinBody(), "bank"), nil, 422, "VALIDATION_FAILURE", "bank"},
		{"null openBankingUK on /payments", "POST", paymentsPath, withNull(euBody(), "openBankingUK"), paymentHeaders(nil), 422, "VALIDATION_FAILURE", "openBankingUK"},
		{"null nested field on /payments", "POST", paymentsPath, with(euBody(), "payer", map[string]any{"email": nil}), paymentHeaders(nil), 422, "VALIDATION_FAILURE", "payer.email"},
		{"null list item on /payments", "POST", paymentsPath, with(euBody(), "displayInfo", []any{nil}), paymentHeaders(nil), 422, "VALIDATION_FAILURE", "displayInfo[0]"},
		{"null on the legacy API", "POST", legacyPaymentsPath, withNull(legacyBody(), "shopper"), legacyHeaders, 422, "", ""},
		{"null seconds on the sandbox clock", "POST", "/sandbox/clock/advance", map[string]any{"seconds": nil}, nil, 422, "VALIDATION_FAILURE", "seconds"},
		{"null outcome on sandbox authorise", "POST", "/sandbox/payments/00000000-0000-4000-8000-000000000001/authorise", map[string]any{"outcome": nil}, nil, 422, "VALIDATION_FAILURE", "outcome"},
		{"null username on /oauth", "POST", "/oauth", map[string]any{"grant_type": "password", "client_id": "shop-client", "client_secret": "shop-client-secret", "username": nil, "password": "x"}, nil, 422, "VALIDATION_FAILURE", "username"},
		{"a currency outside the enum on /dropin", "POST", "/dropin", with(dropinBody(), "currencyCode", "USD"), nil, 422, "VALIDATION_FAILURE", ""},
		{"a currency outside the enum on the legacy API", "POST", legacyPaymentsPath, with(legacyBody(), "currencyCode", "USD"), legacyHeaders, 422, "", ""},
		{"null body", "POST", paymentsPath, "null", paymentHeaders(nil), 400, "BAD_REQUEST", ""},

		{"empty allowInitials", "GET", "/payments/00000000-0000-4000-8000-000000000001/name-match-score?allowInitials=", nil, nil, 400, "INVALID_QUERY_PARAM", ""},
		{"empty allow_initials (legacy)", "GET", "/legacy/payments/00000000-0000-4000-8000-000000000001/name-match-score?allow_initials=", nil, nil, 400, "", ""},
		{"empty page of the sandbox inbox", "GET", "/sandbox/inbox?page=", nil, nil, 400, "INVALID_QUERY_PARAM", ""},
		{"empty limit of the sandbox inbox", "GET", "/sandbox/inbox?limit=", nil, nil, 400, "INVALID_QUERY_PARAM", ""},
		{"page over the maximum: notifications", "GET", "/notifications?page=2147483648", nil, nil, 400, "INVALID_QUERY_PARAM", ""},
		{"page over the maximum: sandbox inbox", "GET", "/sandbox/inbox?page=2147483648", nil, nil, 400, "INVALID_QUERY_PARAM", ""},
		{"page over the maximum: payments", "GET", "/payments?page=2147483648", nil, nil, 400, "INVALID_QUERY_PARAM", ""},
		{"limit over the maximum: sandbox inbox", "GET", "/sandbox/inbox?limit=101", nil, nil, 400, "INVALID_QUERY_PARAM", ""},
		{"country in lower case", "GET", "/banks?country=de", nil, nil, 400, "INVALID_QUERY_PARAM", ""},
	}
	apptest.Each(t, func(t *testing.T, env *apptest.Env) {
		token := env.Token(t, apptest.PSPAdmin)
		for _, c := range cases {
			t.Run(c.name, func(t *testing.T) {
				resp := env.Do(t, apptest.Request{Method: c.method, Path: c.path, Body: c.body, Header: c.header, Token: token})
				expectRefused(t, resp, c.status, c.code)
				if c.field == "" {
					return
				}
				e := resp.Error(t, c.status, c.code)
				if len(e.Errors) != 1 || e.Errors[0].Type != "INVALID_TYPE" || e.Errors[0].PropertyPath != c.field {
					t.Fatalf("want one INVALID_TYPE at %s, got %s", c.field, resp.Body)
				}
			})
		}
		t.Run("the largest documented page is accepted", func(t *testing.T) {
			for _, path := range []string{"/payments?page=2147483647", "/notifications?page=2147483647", "/sandbox/inbox?page=2147483647&limit=100"} {
				if resp := env.Do(t, apptest.Request{Method: "GET", Path: path, Token: token}); resp.Status != http.StatusOK {
					t.Fatalf("GET %s: %d %s", path, resp.Status, resp.Body)
				}
			}
		})
		t.Run("null in an unknown field is ignored like the field", func(t *testing.T) {
			resp := postDropin(t, env, token, withNull(dropinBody(), "notAField"), nil)
			if resp.Status != http.StatusCreated {
				t.Fatalf("got %d %s", resp.Status, resp.Body)
			}
		})
	})
}

// TestCheckoutLibraryOtherMethodIs405 checks that /js/v1/checkout.js, served
// by the payer's pages, answers another method like every API path: the
// JSON 405 with Allow, not the pages' HTML 404.
func TestCheckoutLibraryOtherMethodIs405(t *testing.T) {
	t.Parallel()
	env := apptest.New(t)
	for _, method := range []string{"POST", "PUT", "DELETE"} {
		resp := env.Do(t, apptest.Request{Method: method, Path: "/js/v1/checkout.js"})
		resp.Error(t, http.StatusMethodNotAllowed, "METHOD_NOT_SUPPORTED")
		if allow := resp.Header.Get("Allow"); allow != "GET, HEAD" {
			t.Fatalf("%s: Allow %q, want GET, HEAD", method, allow)
		}
	}
	if resp := env.Do(t, apptest.Request{Method: "GET", Path: "/js/v1/checkout.js"}); resp.Status != http.StatusOK ||
		resp.Header.Get("Content-Type") != "text/javascript; charset=utf-8" || resp.Header.Get("X-Content-Type-Options") != "nosniff" {
		t.Fatalf("GET: %d %v", resp.Status, resp.Header)
	}
}

// TestServedDocumentNamesThePublicURL checks that /openapi.json names the
// instance's public URL (--public-url) as its server, so that a client
// generated from it talks to this instance.
func TestServedDocumentNamesThePublicURL(t *testing.T) {
	t.Parallel()
	for _, public := range []string{"http://bankrail.test", "https://pay.example.com/base"} {
		env := apptest.New(t, func(c *config.Config) { c.PublicURL = public })
		resp := env.Do(t, apptest.Request{Method: "GET", Path: "/openapi.json"})
		var doc struct {
			Servers []struct{ URL string } `json:"servers"`
			Paths   map[string]any         `json:"paths"`
		}
		if err := json.Unmarshal(resp.Body, &doc); err != nil {
			t.Fatal(err)
		}
		if len(doc.Servers) != 1 || doc.Servers[0].URL != public || doc.Paths["/payments"] == nil {
			t.Fatalf("public URL %s: servers %+v", public, doc.Servers)
		}
	}
}

// withNull returns a copy of body with key set to an explicit null.
func withNull(body map[string]any, key string) map[string]any {
	out := with(body, key, "")
	out[key] = nil
	return out
}
