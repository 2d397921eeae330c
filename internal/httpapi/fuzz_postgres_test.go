package httpapi_test

import (
	"net/url"
	"testing"

	"github.com/bankrail/bankrail/internal/apptest"
	"github.com/bankrail/bankrail/internal/dbtest"
)

// FuzzInputOnPostgres sends fuzzed query values and JSON bodies through the
// whole stack on PostgreSQL, which refuses strings that SQLite stores (a NUL
// character, invalid UTF-8): no input may reach the database that it cannot
// store, so no answer is a 500. It skips when PostgreSQL is unreachable, as
// the other PostgreSQL tests do. Run it with:
//
//	go test -run='^$' -fuzz='^FuzzInputOnPostgres$' -fuzztime=60s -fuzzminimizetime=100x ./internal/httpapi
func FuzzInputOnPostgres(f *testing.F) {
	for _, s := range []string{"", "x", "\x00", "a\x00b", "\xff", "caf\xc3\xa9", "\xed\xa0\x80", "%00", `\u0000`, "00000000-0000-4000-8000-0000000000a1"} {
		for target := range uint8(5) {
			f.Add(s, []byte(`{"grant_type":"password","client_id":"shop-client","client_secret":"x","username":"u","password":"x"}`), target)
		}
	}
	for _, b := range []string{`{"client_id":"\u0000"}`, `{"username":"a\u0000"}`, `{"username":"\\u0000"}`, "{\"username\":\"\xff\"}",
		`{"currency":"EUR","paymentReference":"\u0000"}`, `{"beneficiary":{"name":"\ud800"}}`, `"\u0000"`, "\x00"} {
		f.Add("", []byte(b), uint8(2))
		f.Add("", []byte(b), uint8(3))
	}
	env := apptest.NewOn(f, dbtest.Migrated(f, dbtest.Postgres))
	token := env.Token(f, apptest.Merchant)
	f.Fuzz(func(t *testing.T, value string, body []byte, target uint8) {
		q := url.QueryEscape(value)
		var req apptest.Request
		switch target % 5 {
		case 0:
			req = apptest.Request{Method: "GET", Path: "/payments?internalReference=" + q + "&paymentReference=" + q, Token: token}
		case 1:
			req = apptest.Request{Method: "GET", Path: "/notifications?paymentId=" + q, Token: token}
		case 2:
			req = apptest.Request{Method: "POST", Path: "/oauth", Body: body}
		case 3:
			req = apptest.Request{Method: "POST", Path: paymentsPath, Token: token, Body: body, Header: paymentHeaders(nil)}
		default:
			id := url.PathEscape(value)
			if id == "." || id == ".." {
				id = "x" + id // a dot segment is cleaned away by the mux (301), and the client follows to another route
			}
			req = apptest.Request{Method: "GET", Path: "/payments/" + id, Token: token}
		}
		if resp := env.Do(t, req); resp.Status >= 500 {
			t.Fatalf("%d for %s %s %q: %s", resp.Status, req.Method, req.Path, body, resp.Body)
		}
	})
}
