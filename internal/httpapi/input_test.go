package httpapi_test

import (
	"encoding/json"
	"net/http"
	"testing"

	"github.com/bankrail/bankrail/internal/apptest"
)

// TestUnstorableInputIsRefused sends a NUL character or invalid UTF-8 in
// every kind of string input: each is refused with a 4xx in the shape of
// its API on both engines (PostgreSQL cannot store a NUL in TEXT and
// answered 500 before).
func TestUnstorableInputIsRefused(t *testing.T) {
	form := map[string]string{"Content-Type": "application/x-www-form-urlencoded"}
	cases := []struct {
		name   string
		method string
		path   string
		token  bool
		body   any
		header map[string]string
		status int
		code   string // Global API code; empty for the legacy shape
	}{
		{"NUL in a payments filter", "GET", "/payments?internalReference=%00", true, nil, nil, 400, "INVALID_QUERY_PARAM"},
		{"invalid UTF-8 in a payments filter", "GET", "/payments?paymentReference=%ff", true, nil, nil, 400, "INVALID_QUERY_PARAM"},
		{"NUL in a query parameter name", "GET", "/payments?a%00=1", true, nil, nil, 400, "INVALID_QUERY_PARAM"},
		{"NUL in a notifications filter", "GET", "/notifications?paymentId=%00", true, nil, nil, 400, "INVALID_QUERY_PARAM"},
		{"NUL in a path parameter", "GET", "/payments/%00", true, nil, nil, 400, "MALFORMED_PATH_PARAM"},
		{"invalid UTF-8 in a path parameter", "GET", "/banks/%ff", true, nil, nil, 400, "MALFORMED_PATH_PARAM"},
		{"NUL in an OAuth username", "POST", "/oauth", false, map[string]string{"grant_type": "password",
			"client_id": "shop-client", "client_secret": "x", "username": "a\u0000b", "password": "x"}, nil, 400, "BAD_REQUEST"},
		{"NUL in an OAuth client_id", "POST", "/oauth", false, map[string]string{"grant_type": "password",
			"client_id": "\u0000", "client_secret": "x", "username": "u", "password": "x"}, nil, 400, "BAD_REQUEST"},
		{"invalid UTF-8 in a JSON body", "POST", "/oauth", false, []byte("{\"grant_type\":\"password\",\"client_id\":\"\xff\",\"client_secret\":\"x\",\"username\":\"u\",\"password\":\"x\"}"),
			nil, 400, "BAD_REQUEST"},
		{"NUL in a form body", "POST", "/oauth", false, "grant_type=password&client_id=shop-client&client_secret=x&username=%00&password=x",
			form, 400, "BAD_REQUEST"},
		{"NUL in a legacy form body", "POST", "/legacy/oauth", false, "grant_type=password&client_id=%00&client_secret=x&username=u&password=x",
			form, 400, ""},
		{"invalid UTF-8 in a header", "GET", "/payments", true, nil, map[string]string{"X-Client-Note": "caf\xe9"}, 400, "INVALID_HTTP_HEADER"},
	}
	apptest.Each(t, func(t *testing.T, env *apptest.Env) {
		token := env.Token(t, apptest.Merchant)
		for _, c := range cases {
			t.Run(c.name, func(t *testing.T) {
				req := apptest.Request{Method: c.method, Path: c.path, Body: c.body, Header: c.header}
				if c.token {
					req.Token = token
				}
				resp := env.Do(t, req)
				expectRefused(t, resp, c.status, c.code)
			})
		}
		t.Run("a clean request still passes", func(t *testing.T) {
			if resp := env.Do(t, apptest.Request{Method: "GET", Path: "/payments?internalReference=caf%C3%A9", Token: token}); resp.Status != http.StatusOK {
				t.Fatalf("got %d %s", resp.Status, resp.Body)
			}
		})
	})
}

// expectRefused checks a refusal: in the Global shape with code, or, when
// code is empty, in the legacy shape (exception.code is the status).
func expectRefused(t *testing.T, resp *apptest.Response, status int, code string) {
	t.Helper()
	if code != "" {
		resp.Error(t, status, code)
		return
	}
	var legacy struct {
		Exception struct {
			Code int `json:"code"`
		} `json:"exception"`
	}
	if err := json.Unmarshal(resp.Body, &legacy); err != nil || resp.Status != status || legacy.Exception.Code != status {
		t.Fatalf("got %d %s, want %d in the legacy shape", resp.Status, resp.Body, status)
	}
}
