package dashboard_test

import (
	"fmt"
	"net/http"
	"net/url"
	"testing"

	"github.com/bankrail/bankrail/internal/apptest"
	"github.com/bankrail/bankrail/internal/config"
)

// tryConsole signs in at c with a fresh form token.
func tryConsole(c *console, username, password string) page {
	c.t.Helper()
	c.get("/dashboard/sign-in")
	return c.post("/dashboard/sign-in", url.Values{"username": {username}, "password": {password}})
}

// oauthSignIn is the password grant of l with password, from behind
// X-Forwarded-For xff when not empty.
func oauthSignIn(t *testing.T, env *apptest.Env, l apptest.Login, password, xff string) *apptest.Response {
	t.Helper()
	h := map[string]string{}
	if xff != "" {
		h["X-Forwarded-For"] = xff
	}
	return env.Do(t, apptest.Request{Method: "POST", Path: "/oauth", Header: h, Body: map[string]string{"grant_type": "password",
		"client_id": l.ClientID, "client_secret": l.ClientSecret, "username": l.Username, "password": password}})
}

// signOut signs c out (its known-device cookie stays).
func signOut(t *testing.T, c *console) {
	t.Helper()
	c.open("/dashboard/payments")
	if p := c.post("/dashboard/sign-out", nil); p.Status != http.StatusSeeOther {
		t.Fatalf("sign out: %d", p.Status)
	}
}

// TestConsoleLockoutSparesTheUser: a stranger who knows a username and no
// credential fails at the console as often as it likes. It locks only the
// sources that failed: the user signs in from its known device (a browser
// where it signed in before) with its password, and the API's password
// grant is not locked either (issue 28, item 3).
func TestConsoleLockoutSparesTheUser(t *testing.T) {
	t.Parallel()
	apptest.Each(t, func(t *testing.T, env *apptest.Env) {
		home := signIn(t, env, apptest.Merchant) // the user's own browser becomes a known device
		signOut(t, home)

		stranger := newConsole(t, env)
		for i := range 30 {
			p := tryConsole(stranger, apptest.Merchant.Username, fmt.Sprintf("guess-%d", i))
			if p.Status != http.StatusUnauthorized && p.Status != http.StatusTooManyRequests {
				t.Fatalf("guess %d: %d", i, p.Status)
			}
		}
		if p := tryConsole(stranger, apptest.Merchant.Username, apptest.Merchant.Password); p.Status != http.StatusTooManyRequests {
			t.Fatalf("the stranger's source after 30 failures: %d", p.Status)
		}
		if p := tryConsole(home, apptest.Merchant.Username, apptest.Merchant.Password); p.Status != http.StatusSeeOther || p.Location != "/dashboard/payments" {
			t.Fatalf("the user's known device after a stranger's failures: %d to %q\n%s", p.Status, p.Location, p.Body)
		}
		if resp := oauthSignIn(t, env, apptest.Merchant, apptest.Merchant.Password, ""); resp.Status != http.StatusOK {
			t.Fatalf("the API's sign-in after a stranger's failures at the console: %d %s", resp.Status, resp.Body)
		}
		// The known device's own failures lock it, and only it.
		signOut(t, home)
		for i := range 5 {
			if p := tryConsole(home, apptest.Merchant.Username, fmt.Sprintf("typo-%d", i)); p.Status != http.StatusUnauthorized {
				t.Fatalf("typo %d: %d", i, p.Status)
			}
		}
		if p := tryConsole(home, apptest.Merchant.Username, apptest.Merchant.Password); p.Status != http.StatusTooManyRequests {
			t.Fatalf("the known device after its own 5 failures: %d", p.Status)
		}
	})
}

// TestConsoleAndAPIAddressLimitsAreSeparate: failures at /oauth from one
// address do not lock the console's sign-in from it, nor the other way
// round; and an address that is not trustworthy (a forwarding header, no
// trusted proxy: it may be a proxy everyone shares) is counted against
// nobody (issue 28, item 3).
func TestConsoleAndAPIAddressLimitsAreSeparate(t *testing.T) {
	t.Parallel()
	apptest.Each(t, func(t *testing.T, env *apptest.Env) {
		nobody := apptest.Login{ClientID: apptest.Merchant.ClientID, ClientSecret: apptest.Merchant.ClientSecret}
		for i := range 3 {
			nobody.Username = fmt.Sprintf("nobody-%d@shop.test", i)
			oauthSignIn(t, env, nobody, "wrong", "").Error(t, http.StatusUnauthorized, "UNAUTHORISED")
		}
		oauthSignIn(t, env, apptest.Merchant, apptest.Merchant.Password, "").Error(t, http.StatusTooManyRequests, "TOO_MANY_REQUESTS")
		signIn(t, env, apptest.Viewer) // the console's count of the address is its own

		c := newConsole(t, env)
		for i := range 3 {
			if p := tryConsole(c, fmt.Sprintf("stranger-%d@shop.test", i), "wrong"); p.Status != http.StatusUnauthorized {
				t.Fatalf("console failure %d: %d", i, p.Status)
			}
		}
		if p := tryConsole(c, apptest.OtherMerch.Username, apptest.OtherMerch.Password); p.Status != http.StatusTooManyRequests {
			t.Fatalf("the console after 3 failures of the address: %d", p.Status)
		}
		// Behind a proxy the instance was not told to trust, one person's
		// failures lock nobody else behind it.
		for i := range 5 {
			nobody.Username = fmt.Sprintf("proxied-%d@shop.test", i)
			oauthSignIn(t, env, nobody, "wrong", "198.51.100.7").Error(t, http.StatusUnauthorized, "UNAUTHORISED")
		}
		if resp := oauthSignIn(t, env, apptest.OtherMerch, apptest.OtherMerch.Password, "198.51.100.8"); resp.Status != http.StatusOK {
			t.Fatalf("another person behind the same untrusted proxy: %d %s", resp.Status, resp.Body)
		}
	}, func(c *config.Config) { c.LoginMaxFailuresPerIP = 3 })
}
