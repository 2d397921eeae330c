package httpapi_test

import (
	"net/http"
	"strconv"
	"testing"
	"time"

	"github.com/bankrail/bankrail/internal/apptest"
	"github.com/bankrail/bankrail/internal/config"
	"github.com/bankrail/bankrail/internal/dbtest"
)

// rateLimited allows each application 3 API requests per minute.
func rateLimited(c *config.Config) { c.APIRateLimit, c.APIRateWindow = 3, time.Minute }

// listPayments is one API request of token's application.
func listPayments(t *testing.T, env *apptest.Env, token string) *apptest.Response {
	t.Helper()
	return env.Do(t, apptest.Request{Method: "GET", Path: "/payments", Token: token, Header: v1})
}

// wantLimited fails unless resp is the contract's 429 TOO_MANY_REQUESTS with
// Retry-After the seconds left in the window.
func wantLimited(t *testing.T, resp *apptest.Response, retryAfter time.Duration) {
	t.Helper()
	resp.Error(t, http.StatusTooManyRequests, "TOO_MANY_REQUESTS")
	if got, want := resp.Header.Get("Retry-After"), strconv.Itoa(int(retryAfter.Seconds())); got != want {
		t.Fatalf("Retry-After %q, want %q", got, want)
	}
}

// TestAPIRateLimit: an application's requests beyond the limit in a window
// get 429 with Retry-After (users of one application share its count,
// another application has its own); the next window allows again; on both
// engines, on the fake clock.
func TestAPIRateLimit(t *testing.T) {
	t.Parallel()
	apptest.Each(t, func(t *testing.T, env *apptest.Env) {
		merchant, viewer, other := env.Token(t, apptest.Merchant), env.Token(t, apptest.Viewer), env.Token(t, apptest.OtherMerch)
		env.Clock.Set(apptest.Epoch.Add(15 * time.Second)) // 45 s left in the window
		for _, token := range []string{merchant, viewer, merchant} {
			if resp := listPayments(t, env, token); resp.Status != http.StatusOK {
				t.Fatalf("within the limit: %d %s", resp.Status, resp.Body)
			}
		}
		wantLimited(t, listPayments(t, env, viewer), 45*time.Second)
		if resp := listPayments(t, env, other); resp.Status != http.StatusOK {
			t.Fatalf("another application: %d %s", resp.Status, resp.Body)
		}
		env.Clock.Advance(44 * time.Second)
		wantLimited(t, listPayments(t, env, merchant), time.Second)
		env.Clock.Advance(time.Second) // the next window
		if resp := listPayments(t, env, merchant); resp.Status != http.StatusOK {
			t.Fatalf("next window: %d %s", resp.Status, resp.Body)
		}
	}, rateLimited)
}

// TestAPIRateLimitAcrossInstances: two instances on one PostgreSQL database
// count an application's requests together.
func TestAPIRateLimitAcrossInstances(t *testing.T) {
	t.Parallel()
	db := dbtest.Migrated(t, dbtest.Postgres)
	a, b := apptest.NewOn(t, db, rateLimited), apptest.NewOn(t, db, rateLimited)
	ta, tb := a.Token(t, apptest.Merchant), b.Token(t, apptest.Merchant)
	for i, env := range []*apptest.Env{a, b, a} {
		token := map[*apptest.Env]string{a: ta, b: tb}[env]
		if resp := listPayments(t, env, token); resp.Status != http.StatusOK {
			t.Fatalf("request %d: %d %s", i+1, resp.Status, resp.Body)
		}
	}
	wantLimited(t, listPayments(t, b, tb), time.Minute)
	if resp := listPayments(t, a, a.Token(t, apptest.OtherMerch)); resp.Status != http.StatusOK {
		t.Fatalf("another application: %d %s", resp.Status, resp.Body)
	}
}
