package dashboard_test

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/bankrail/bankrail/internal/apptest"
	"github.com/bankrail/bankrail/internal/dashboard"
)

// auditActions are the actions of customer's audit log, oldest first.
func auditActions(t testing.TB, env *apptest.Env, customer string) []string {
	t.Helper()
	_, read := env.App.Store().Pools()
	rows, err := read.QueryContext(context.Background(), `SELECT action FROM audit_log WHERE customer_id = $1 ORDER BY occurred_at, id`, customer)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var a string
		if err := rows.Scan(&a); err != nil {
			t.Fatal(err)
		}
		out = append(out, a)
	}
	return out
}

// sessionCookie is the Set-Cookie of the console's session in h.
func sessionCookie(h http.Header, name string) *http.Cookie {
	for _, c := range (&http.Response{Header: h}).Cookies() {
		if c.Name == name {
			return c
		}
	}
	return nil
}

// TestSignInAndOut: without a session every page leads to the sign-in
// form (and back afterwards, never to another site); a wrong password or
// an unknown user is refused alike and audited; the session cookie is
// HttpOnly and SameSite=Lax; signing out ends the session on the server,
// so the old cookie is worth nothing.
func TestSignInAndOut(t *testing.T) {
	t.Parallel()
	apptest.Each(t, func(t *testing.T, env *apptest.Env) {
		c := newConsole(t, env)
		home := c.get("/")
		contains(t, "the start page", home.Body, `href="/dashboard/"`, "Sign in to the dashboard")
		p := c.get("/dashboard/payments?status=COMPLETED")
		if p.Status != http.StatusSeeOther || p.Location != "/dashboard/sign-in?next=%2Fdashboard%2Fpayments%3Fstatus%3DCOMPLETED" {
			t.Fatalf("without a session: %d to %q", p.Status, p.Location)
		}
		if p := c.get("/dashboard/"); p.Status != http.StatusSeeOther || p.Location != "/dashboard/sign-in" {
			t.Fatalf("GET /dashboard/: %d to %q", p.Status, p.Location)
		}
		form := c.open(p.Location)
		contains(t, "sign-in page", form.Body, `name="next" value="/dashboard/payments?status=COMPLETED"`, `autocomplete="current-password"`)

		for _, tc := range []struct{ username, password string }{{apptest.Merchant.Username, "wrong-password"}, {"nobody@shop.test", "whatever-1"}} {
			p := c.post("/dashboard/sign-in", url.Values{"username": {tc.username}, "password": {tc.password}})
			if p.Status != http.StatusUnauthorized || sessionCookie(p.Header, "bankrail_dashboard") != nil {
				t.Fatalf("%s with a wrong password: %d %v", tc.username, p.Status, p.Header)
			}
			contains(t, "refused sign-in", p.Body, "Wrong username or password.", `value="`+tc.username+`"`)
		}
		p = c.post("/dashboard/sign-in", url.Values{"username": {apptest.Merchant.Username}, "password": {apptest.Merchant.Password},
			"next": {"/dashboard/payments?status=COMPLETED"}})
		if p.Status != http.StatusSeeOther || p.Location != "/dashboard/payments?status=COMPLETED" {
			t.Fatalf("sign in: %d to %q\n%s", p.Status, p.Location, p.Body)
		}
		ck := sessionCookie(p.Header, "bankrail_dashboard")
		if ck == nil || !ck.HttpOnly || ck.SameSite != http.SameSiteLaxMode || ck.Secure || ck.Path != "/" || len(ck.Value) < 40 ||
			ck.MaxAge != int(dashboard.MaxLifetime/time.Second) {
			t.Fatalf("session cookie %+v", ck)
		}
		page := c.open(p.Location)
		contains(t, "payments page", page.Body, "merchant@shop.test", "MERCHANT · Test Shop", `data-page="payments"`)
		if c.get("/dashboard/sign-in").Location != "/dashboard/payments" {
			t.Fatal("the sign-in page of a signed-in person does not lead to the dashboard")
		}

		out := c.post("/dashboard/sign-out", nil)
		if out.Status != http.StatusSeeOther || out.Location != "/dashboard/sign-in?notice=signed-out" {
			t.Fatalf("sign out: %d to %q", out.Status, out.Location)
		}
		if gone := sessionCookie(out.Header, "bankrail_dashboard"); gone == nil || gone.MaxAge >= 0 {
			t.Fatalf("sign out did not clear the cookie: %+v", gone)
		}
		contains(t, "signed-out page", c.open(out.Location).Body, "You are signed out.")
		replay := newConsole(t, env)
		u, _ := url.Parse(env.URL)
		replay.http.Jar.SetCookies(u, []*http.Cookie{{Name: "bankrail_dashboard", Value: ck.Value, Path: "/"}})
		if p := replay.get("/dashboard/payments"); p.Status != http.StatusSeeOther || !strings.HasPrefix(p.Location, "/dashboard/sign-in") {
			t.Fatalf("the signed-out session's cookie still works: %d %q", p.Status, p.Location)
		}

		// next never leads elsewhere.
		for _, next := range []string{"https://evil.test/", "//evil.test/x", "/dashboard/../oauth", `/dashboard\@evil.test`} {
			c := newConsole(t, env)
			c.open("/dashboard/sign-in?next=" + url.QueryEscape(next))
			p := c.post("/dashboard/sign-in", url.Values{"username": {apptest.Merchant.Username}, "password": {apptest.Merchant.Password}, "next": {next}})
			if p.Status != http.StatusSeeOther || (p.Location != "/dashboard/payments" && p.Location != next) || !strings.HasPrefix(p.Location, "/dashboard/") ||
				strings.Contains(p.Location, "evil") {
				t.Fatalf("next %q: to %q", next, p.Location)
			}
		}

		got := strings.Join(auditActions(t, env, apptest.ShopID), "|")
		if !strings.HasPrefix(got, "dashboard.sign_in_failed|dashboard.sign_in|dashboard.sign_out|dashboard.sign_in") {
			t.Fatalf("audit log %s", got)
		}
	})
}

// TestSignInThrottle: the console counts failed sign-ins from one source
// as the password grant counts one application's: after 5 for one username
// from one address and an unknown device, the console refuses that source
// (429 with Retry-After), even with the right password, until the window
// passes (TestConsoleLockoutSparesTheUser: the user's known device is not
// that source).
func TestSignInThrottle(t *testing.T) {
	t.Parallel()
	apptest.Each(t, func(t *testing.T, env *apptest.Env) {
		c := newConsole(t, env)
		c.open("/dashboard/sign-in")
		try := func(password string) page {
			c.get("/dashboard/sign-in") // a fresh form token
			return c.post("/dashboard/sign-in", url.Values{"username": {apptest.Merchant.Username}, "password": {password}})
		}
		for i := range 5 {
			if p := try(fmt.Sprintf("wrong-%d", i)); p.Status != http.StatusUnauthorized {
				t.Fatalf("failure %d: %d", i, p.Status)
			}
		}
		p := try(apptest.Merchant.Password)
		if p.Status != http.StatusTooManyRequests || p.Header.Get("Retry-After") == "" {
			t.Fatalf("after 5 failures: %d %v", p.Status, p.Header)
		}
		contains(t, "locked sign-in", p.Body, "Too many failed sign-in attempts")
		env.Clock.Advance(16 * time.Minute)
		if p := try(apptest.Merchant.Password); p.Status != http.StatusSeeOther {
			t.Fatalf("after the window: %d\n%s", p.Status, p.Body)
		}
	})
}

// TestSessionExpiry: a session ends after 30 minutes without a request and
// 12 hours after sign-in, on the service clock; a sandbox tenant's clock
// moved 30 days ahead does not end it; a change of the user (disabled)
// ends it at its next request.
func TestSessionExpiry(t *testing.T) {
	t.Parallel()
	apptest.Each(t, func(t *testing.T, env *apptest.Env) {
		signedOut := func(c *console) bool {
			p := c.get("/dashboard/payments")
			return p.Status == http.StatusSeeOther && strings.HasPrefix(p.Location, "/dashboard/sign-in")
		}
		c := signIn(t, env, apptest.Merchant)
		c.open("/dashboard/clock")
		c.act("/dashboard/clock/advance", url.Values{"seconds": {fmt.Sprint(30 * 24 * 3600)}})
		contains(t, "clock page", c.open("/dashboard/clock?done=advanced").Body, "30 days ahead of the wall clock")
		for range 3 { // active: 29 minutes apart, 87 minutes in all
			env.Clock.Advance(dashboard.IdleTimeout - time.Minute)
			if signedOut(c) {
				t.Fatal("an active session ended")
			}
		}
		env.Clock.Advance(dashboard.IdleTimeout)
		if !signedOut(c) {
			t.Fatal("a session idle for 30 minutes is still open")
		}

		c = signIn(t, env, apptest.Merchant)
		for elapsed := time.Duration(0); elapsed+25*time.Minute < dashboard.MaxLifetime; elapsed += 25 * time.Minute {
			env.Clock.Advance(25 * time.Minute)
			if signedOut(c) {
				t.Fatalf("ended after %s", elapsed)
			}
		}
		env.Clock.Advance(25 * time.Minute)
		if !signedOut(c) {
			t.Fatal("a session is still open 12 hours after sign-in")
		}

		c = signIn(t, env, apptest.Viewer)
		if _, _, err := env.App.Identity().DisableUser(context.Background(), apptest.Viewer.Username); err != nil {
			t.Fatal(err)
		}
		env.Clock.Advance(2 * time.Second) // past the generation cache
		if !signedOut(c) {
			t.Fatal("a disabled user's session is still open")
		}
	})
}

// rowsOf counts the payment rows of a list page.
var paymentLink = regexp.MustCompile(`<td><a href="/dashboard/payments/([0-9a-f-]{36})">`)
