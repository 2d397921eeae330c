package httpapi_test

import (
	"net/http"
	"os"
	"strings"
	"testing"

	"github.com/bankrail/bankrail/api"
	"github.com/bankrail/bankrail/internal/apptest"
	"github.com/bankrail/bankrail/internal/legacy"
)

// legacySunsetHeaders are the headers every legacy answer carries, before
// and after the sunset (docs/decisions.md, "The legacy API after its
// sunset"): the dates stay the announced ones, the links lead to the guide.
var legacySunsetHeaders = map[string]string{
	"Deprecation": "@1735689600",
	"Sunset":      "Wed, 31 Dec 2025 23:59:59 GMT",
	"Link":        `</legacy/migration-guide>; rel="deprecation"; type="text/markdown", </legacy/migration-guide>; rel="sunset"; type="text/markdown"`,
}

// TestLegacyAfterItsSunset: on a service clock past the sunset, every kind
// of legacy answer (a success, an error, an unknown path, the token) keeps
// the exact deprecation headers; the guide they link to says in the past
// tense that the sunset has passed and what that means; docs/legacy.md
// shows the same headers and says the same.
func TestLegacyAfterItsSunset(t *testing.T) {
	t.Parallel()
	env := apptest.New(t)
	if now := env.App.Clock().Now(); !now.After(legacy.SunsetAt) {
		t.Fatalf("the test clock (%s) must be past the sunset", now)
	}
	for _, req := range []apptest.Request{
		{Method: "GET", Path: legacy.GuidePath},
		{Method: "GET", Path: "/legacy/nowhere"},
		{Method: "POST", Path: "/legacy/payments", Body: legacyBody()}, // no token: 401
		{Method: "POST", Path: "/legacy/oauth", Body: "grant_type=password", Header: map[string]string{"Content-Type": "application/x-www-form-urlencoded"}},
	} {
		resp := env.Do(t, req)
		for name, want := range legacySunsetHeaders {
			if got := resp.Header.Values(name); len(got) != 1 || got[0] != want {
				t.Errorf("%s %s (%d): %s %q, want %q", req.Method, req.Path, resp.Status, name, got, want)
			}
		}
	}
	guide := env.Do(t, apptest.Request{Method: "GET", Path: legacy.GuidePath})
	if guide.Status != http.StatusOK {
		t.Fatalf("guide: %d", guide.Status)
	}
	docs, err := os.ReadFile("../../docs/legacy.md")
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(api.YAML), "support ends") {
		t.Error("api/openapi.yaml still speaks of the sunset in the future tense")
	}
	for what, text := range map[string]string{"the served guide": string(guide.Body), "docs/legacy.md": string(docs)} {
		for _, past := range []string{"has passed", "still serves it", "security fixes only", "may remove it"} {
			if !strings.Contains(text, past) {
				t.Errorf("%s does not say %q", what, past)
			}
		}
		if strings.Contains(text, "support ends") {
			t.Errorf("%s still speaks of the sunset in the future tense", what)
		}
		for name, value := range legacySunsetHeaders {
			if !strings.Contains(text, name+": "+value+"\n") {
				t.Errorf("%s does not show the header %s: %s", what, name, value)
			}
		}
	}
}
