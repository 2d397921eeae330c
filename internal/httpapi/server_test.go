package httpapi_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/bankrail/bankrail/internal/apptest"
)

func TestOperationalEndpoints(t *testing.T) {
	t.Parallel()
	apptest.Each(t, func(t *testing.T, env *apptest.Env) {
		for _, path := range []string{"/healthz", "/readyz", "/openapi.json", "/.well-known/jwks.json"} {
			resp := env.Do(t, apptest.Request{Method: "GET", Path: path})
			if resp.Status != http.StatusOK || resp.Header.Get("Content-Type") != "application/json" {
				t.Errorf("GET %s: %d %s", path, resp.Status, resp.Header.Get("Content-Type"))
			}
			if resp.Header.Get("X-Request-Id") == "" {
				t.Errorf("GET %s: no X-Request-Id", path)
			}
		}
	})
}

func TestUnknownRoutesAndMethods(t *testing.T) {
	t.Parallel()
	env := apptest.New(t)
	env.Do(t, apptest.Request{Method: "GET", Path: "/nowhere"}).Error(t, http.StatusNotFound, "RESOURCE_NOT_FOUND")
	resp := env.Do(t, apptest.Request{Method: "DELETE", Path: "/oauth"})
	resp.Error(t, http.StatusMethodNotAllowed, "METHOD_NOT_SUPPORTED")
	if !strings.Contains(resp.Header.Get("Allow"), "POST") {
		t.Fatalf("Allow = %q", resp.Header.Get("Allow"))
	}
	// Under /legacy the legacy shape is used even for unknown routes.
	resp = env.Do(t, apptest.Request{Method: "GET", Path: "/legacy/nowhere"})
	if resp.Status != http.StatusNotFound || !strings.Contains(string(resp.Body), `"exception"`) {
		t.Fatalf("legacy 404: %d %s", resp.Status, resp.Body)
	}
}

func TestRequestIDIsEchoedOrMade(t *testing.T) {
	t.Parallel()
	env := apptest.New(t)
	resp := env.Do(t, apptest.Request{Method: "GET", Path: "/healthz", Header: map[string]string{"X-Request-Id": "abc-123"}})
	if got := resp.Header.Get("X-Request-Id"); got != "abc-123" {
		t.Fatalf("X-Request-Id = %q", got)
	}
	resp = env.Do(t, apptest.Request{Method: "GET", Path: "/healthz", Header: map[string]string{"X-Request-Id": "bad id\twith junk"}})
	if got := resp.Header.Get("X-Request-Id"); got == "" || strings.Contains(got, " ") {
		t.Fatalf("X-Request-Id = %q", got)
	}
}
