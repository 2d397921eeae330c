package httpapi_test

import (
	"strings"
	"testing"

	"github.com/bankrail/bankrail/internal/apptest"
)

// TestRequestLimits covers the smaller hardening of issue 11: a body over
// the limit is 413, an empty or malformed filter is 400 INVALID_QUERY_PARAM
// on every list endpoint (not "no match" or "no filter"), and a charset
// other than UTF-8 is 415.
func TestRequestLimits(t *testing.T) {
	big := `{"x":"` + strings.Repeat("x", 2<<20) + `"}`
	const latin1 = "application/json; charset=latin1"
	form := func(charset string) map[string]string {
		return map[string]string{"Content-Type": "application/x-www-form-urlencoded" + charset}
	}
	login := `{"grant_type":"password","client_id":"shop-client","client_secret":"shop-client-secret","username":"merchant@shop.test","password":"shop-password"}`
	cases := []struct {
		name   string
		method string
		path   string
		body   any
		header map[string]string
		status int
		code   string // empty: the legacy shape
	}{
		{"body over the limit: payments", "POST", paymentsPath, big, paymentHeaders(nil), 413, "PAYLOAD_TOO_LARGE"},
		{"body over the limit: oauth", "POST", "/oauth", big, nil, 413, "PAYLOAD_TOO_LARGE"},
		{"body over the limit: oauth form", "POST", "/oauth", "grant_type=" + strings.Repeat("x", 2<<20), form(""), 413, "PAYLOAD_TOO_LARGE"},
		{"body over the limit: legacy", "POST", "/legacy/oauth", big, nil, 413, ""},

		{"empty customerId", "GET", "/payments?customerId=", nil, nil, 400, "INVALID_QUERY_PARAM"},
		{"empty status of payments", "GET", "/payments?status=", nil, nil, 400, "INVALID_QUERY_PARAM"},
		{"empty internalReference", "GET", "/payments?internalReference=", nil, nil, 400, "INVALID_QUERY_PARAM"},
		{"empty page", "GET", "/payments?page=", nil, nil, 400, "INVALID_QUERY_PARAM"},
		{"malformed customerId", "GET", "/payments?customerId=abc", nil, nil, 400, "INVALID_QUERY_PARAM"},
		{"malformed paymentId", "GET", "/notifications?paymentId=abc", nil, nil, 400, "INVALID_QUERY_PARAM"},
		{"empty paymentId", "GET", "/notifications?paymentId=", nil, nil, 400, "INVALID_QUERY_PARAM"},
		{"empty status of notifications", "GET", "/notifications?status=", nil, nil, 400, "INVALID_QUERY_PARAM"},
		{"empty country of banks", "GET", "/banks?country=", nil, nil, 400, "INVALID_QUERY_PARAM"},
		{"empty paymentSystem of banks", "GET", "/banks?paymentSystem=", nil, nil, 400, "INVALID_QUERY_PARAM"},

		{"latin1 JSON: payments", "POST", paymentsPath, euBody(), paymentHeaders(map[string]string{"Content-Type": latin1}), 415, "UNSUPPORTED_MEDIA_TYPE"},
		{"latin1 JSON: oauth", "POST", "/oauth", login, map[string]string{"Content-Type": latin1}, 415, "UNSUPPORTED_MEDIA_TYPE"},
		{"latin1 form: oauth", "POST", "/oauth", "grant_type=password", form("; charset=ISO-8859-1"), 415, "UNSUPPORTED_MEDIA_TYPE"},
		{"latin1 JSON: legacy", "POST", "/legacy/oauth", login, map[string]string{"Content-Type": latin1}, 415, ""},
	}
	apptest.Each(t, func(t *testing.T, env *apptest.Env) {
		token := env.Token(t, apptest.Merchant)
		for _, c := range cases {
			t.Run(c.name, func(t *testing.T) {
				resp := env.Do(t, apptest.Request{Method: c.method, Path: c.path, Body: c.body, Header: c.header, Token: token})
				expectRefused(t, resp, c.status, c.code)
			})
		}
		t.Run("UTF-8 declared in any spelling is accepted", func(t *testing.T) {
			for _, ct := range []string{"application/json; charset=utf-8", "application/json; charset=UTF-8"} {
				if resp := env.Do(t, apptest.Request{Method: "POST", Path: "/oauth", Body: login, Header: map[string]string{"Content-Type": ct}}); resp.Status != 200 {
					t.Fatalf("%s: got %d %s", ct, resp.Status, resp.Body)
				}
			}
		})
	})
}
