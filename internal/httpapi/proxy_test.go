package httpapi_test

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/bankrail/bankrail/internal/apptest"
	"github.com/bankrail/bankrail/internal/config"
)

// TestSpoofedForwardedForIsNotTheClientAddress: behind one trusted proxy, a
// client that writes its own X-Forwarded-For entries neither escapes the
// per-address sign-in throttle nor chooses the address of its audit entries:
// both take the hop the proxy appended (issue 28, item 4). The test server's
// peer (127.0.0.1) plays the proxy.
func TestSpoofedForwardedForIsNotTheClientAddress(t *testing.T) {
	t.Parallel()
	apptest.Each(t, func(t *testing.T, env *apptest.Env) {
		signIn := func(username, password, xff string) *apptest.Response {
			return env.Do(t, apptest.Request{Method: "POST", Path: "/oauth", Header: map[string]string{"X-Forwarded-For": xff},
				Body: map[string]string{"grant_type": "password", "client_id": apptest.Merchant.ClientID,
					"client_secret": apptest.Merchant.ClientSecret, "username": username, "password": password}})
		}
		// Two failures from 203.0.113.9, each under another spoofed address
		// and another username (so that only the address's limit is hit).
		signIn("nobody-1@shop.test", "wrong-password", "6.6.6.1, 203.0.113.9").Error(t, http.StatusUnauthorized, "UNAUTHORISED")
		signIn("nobody-2@shop.test", "wrong-password", "6.6.6.2, 203.0.113.9").Error(t, http.StatusUnauthorized, "UNAUTHORISED")
		signIn(apptest.Merchant.Username, apptest.Merchant.Password, "6.6.6.3, 203.0.113.9").
			Error(t, http.StatusTooManyRequests, "TOO_MANY_REQUESTS")
		if resp := signIn(apptest.Merchant.Username, apptest.Merchant.Password, "6.6.6.3, 203.0.113.10"); resp.Status != http.StatusOK {
			t.Fatalf("another address signs in: %d %s", resp.Status, resp.Body)
		}

		_, read := env.App.Store().Pools()
		rows, err := read.QueryContext(context.Background(), `SELECT ip FROM audit_log WHERE ip <> '' ORDER BY occurred_at, id`)
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		var ips []string
		for rows.Next() {
			var ip string
			if err := rows.Scan(&ip); err != nil {
				t.Fatal(err)
			}
			ips = append(ips, ip)
		}
		if err := rows.Err(); err != nil {
			t.Fatal(err)
		}
		// The failed, the locked and the successful sign-in are audited
		// under the proxy's hop, never a spoofed entry.
		if want := "203.0.113.9, 203.0.113.9, 203.0.113.9, 203.0.113.10"; strings.Join(ips, ", ") != want {
			t.Fatalf("audit addresses %s, want %s", strings.Join(ips, ", "), want)
		}
	}, func(c *config.Config) { c.TrustProxyHeaders, c.LoginMaxFailuresPerIP = true, 2 })
}
