package dashboard_test

import (
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/bankrail/bankrail/internal/apptest"
)

// clockOffset reads the offset line of the clock page.
func clockOffset(t *testing.T, c *console) string {
	t.Helper()
	m := regexp.MustCompile(`([^.>]*wall clock)\.`).FindStringSubmatch(c.open("/dashboard/clock").Body)
	if m == nil {
		t.Fatal("no offset on the clock page")
	}
	return m[1]
}

// TestCSRF: every POST needs the session's own token and a same-site
// origin: without it, with a wrong one, with another session's, or from
// another site, nothing is done (403); the sign-in form needs its own.
func TestCSRF(t *testing.T) {
	t.Parallel()
	apptest.Each(t, func(t *testing.T, env *apptest.Env) {
		c := signIn(t, env, apptest.Merchant)
		other := signIn(t, env, apptest.Merchant)
		good := c.csrf
		if good == "" || other.csrf == good {
			t.Fatalf("tokens %q %q", good, other.csrf)
		}
		for name, token := range map[string]string{"missing": "", "wrong": wrongToken(good), "another session's": other.csrf} {
			p := c.post("/dashboard/clock/advance", url.Values{"csrf": {token}, "seconds": {"3600"}})
			if p.Status != http.StatusForbidden {
				t.Fatalf("%s token: %d", name, p.Status)
			}
			contains(t, name+" token", p.Body, "nothing was done")
			c.csrf = good
		}
		// From another site, with the right token.
		req, _ := http.NewRequest(http.MethodPost, env.URL+"/dashboard/clock/advance", strings.NewReader(url.Values{"csrf": {good}, "seconds": {"3600"}}.Encode()))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.Header.Set("Origin", "https://evil.test")
		if p := c.do(req); p.Status != http.StatusForbidden {
			t.Fatalf("from another origin: %d", p.Status)
		}
		req, _ = http.NewRequest(http.MethodPost, env.URL+"/dashboard/clock/advance", strings.NewReader(url.Values{"csrf": {good}, "seconds": {"3600"}}.Encode()))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.Header.Set("Sec-Fetch-Site", "cross-site")
		if p := c.do(req); p.Status != http.StatusForbidden {
			t.Fatalf("cross-site: %d", p.Status)
		}
		if got := clockOffset(t, c); got != "at the wall clock" {
			t.Fatalf("a refused form moved the clock: %s", got)
		}
		c.csrf = good
		c.act("/dashboard/clock/advance", url.Values{"seconds": {"3600"}}) // the right token works
		if got := clockOffset(t, c); got != "1h0m0s ahead of the wall clock" {
			t.Fatalf("clock %s", got)
		}
		// Sign-out needs it too.
		if p := c.post("/dashboard/sign-out", url.Values{"csrf": {""}}); p.Status != http.StatusForbidden {
			t.Fatalf("sign-out without a token: %d", p.Status)
		}
		// The sign-in form: its token is bound to its cookie.
		s := newConsole(t, env)
		s.open("/dashboard/sign-in")
		for name, token := range map[string]string{"missing": "", "wrong": wrongToken(s.csrf)} {
			p := s.post("/dashboard/sign-in", url.Values{"csrf": {token}, "username": {apptest.Merchant.Username}, "password": {apptest.Merchant.Password}})
			if p.Status != http.StatusForbidden || sessionCookie(p.Header, "bankrail_dashboard") != nil {
				t.Fatalf("sign-in with a %s token: %d", name, p.Status)
			}
		}
		fresh := newConsole(t, env) // a token from another browser's form
		fresh.csrf = s.csrf
		if p := fresh.post("/dashboard/sign-in", url.Values{"username": {apptest.Merchant.Username}, "password": {apptest.Merchant.Password}}); p.Status != http.StatusForbidden {
			t.Fatalf("sign-in without the form's cookie: %d", p.Status)
		}
	})
}

// TestTenancy: another merchant's payment, notification, verification,
// report and account are 404, read or acted on; a PSP's user acts on its
// merchant's.
func TestTenancy(t *testing.T) {
	t.Parallel()
	apptest.Each(t, func(t *testing.T, env *apptest.Env) {
		rc := apptest.NewReceiver(t)
		env.SetNotificationURL(t, apptest.Merchant, rc.URL)
		acct := openAccount(t, env, apptest.ShopID, "EUR", "main")
		credit(t, env, acct, 10_000, env.Clock.Now())
		token := env.Token(t, apptest.Merchant)
		id := createPayment(t, env, token, "mine-1", map[string]string{"X-Service-Testing-Scenario": "COMPLETED"}, nil)
		rc.WaitFor(t, 1)
		heldPayout(t, env, token, acct, 1000, "Jane Doe")
		shop := signIn(t, env, apptest.Merchant)
		notification := regexp.MustCompile(`/dashboard/notifications/([0-9a-f-]{36})`).FindStringSubmatch(shop.open("/dashboard/payments/" + id).Body)[1]
		verification := regexp.MustCompile(`/dashboard/verifications/([0-9a-f-]{36})/approve`).FindStringSubmatch(shop.open("/dashboard/payouts").Body)[1]

		other := signIn(t, env, apptest.OtherMerch)
		for _, path := range []string{"/dashboard/payments/" + id, "/dashboard/notifications/" + notification, "/dashboard/accounts/" + acct.ID,
			"/dashboard/reports/" + id + "/download", "/dashboard/payments/not-a-uuid", "/dashboard/notifications/nope"} {
			p := other.get(path)
			if p.Status != http.StatusNotFound {
				t.Fatalf("another merchant's %s: %d", path, p.Status)
			}
			contains(t, path, p.Body, "There is nothing here, or it is not yours to see.")
			lacks(t, path, p.Body, "mine-1")
		}
		other.open("/dashboard/payments")
		seen := settled(rc)
		for _, path := range []string{"/dashboard/payments/" + id + "/refund", "/dashboard/payments/" + id + "/authorise",
			"/dashboard/notifications/" + notification + "/redeliver", "/dashboard/verifications/" + verification + "/approve"} {
			if p := other.post(path, url.Values{"outcome": {"COMPLETED"}}); p.Status != http.StatusNotFound {
				t.Fatalf("another merchant's POST %s: %d\n%s", path, p.Status, mainOf(p.Body))
			}
		}
		lacks(t, "another merchant's payouts", other.open("/dashboard/payouts").Body, "Jane Doe")
		rc.Quiet(t, seen) // no redelivery went out
		// The PSP above acts on its merchant's.
		psp := signIn(t, env, apptest.PSPAdmin)
		contains(t, "PSP's view", psp.open("/dashboard/payments/"+id).Body, "Payment mine-1", "Test Shop")
		psp.act("/dashboard/verifications/"+verification+"/approve", nil)
	})
}

// TestReadOnlyForgedActions: a READ_ONLY user who forges the forms (with
// the right token) is refused every action, 403, and nothing changes.
func TestReadOnlyForgedActions(t *testing.T) {
	t.Parallel()
	apptest.Each(t, func(t *testing.T, env *apptest.Env) {
		rc := apptest.NewReceiver(t)
		env.SetNotificationURL(t, apptest.Merchant, rc.URL)
		acct := openAccount(t, env, apptest.ShopID, "EUR", "main")
		credit(t, env, acct, 10_000, env.Clock.Now())
		token := env.Token(t, apptest.Merchant)
		payoutID := heldPayout(t, env, token, acct, 1000, "Jane Doe")
		id := createPayment(t, env, token, "ro-2", map[string]string{"X-Service-Testing-Scenario": "COMPLETED"},
			func(b map[string]any) { delete(b, "beneficiary") })
		rc.WaitFor(t, 2)
		shop := signIn(t, env, apptest.Merchant)
		var body string
		waitFor(t, "the refund form", func() bool {
			body = shop.open("/dashboard/payments/" + id).Body
			return strings.Contains(body, "Request a refund")
		})
		notification := regexp.MustCompile(`/dashboard/notifications/([0-9a-f-]{36})/redeliver`).FindStringSubmatch(body)[1]
		verification := regexp.MustCompile(`/dashboard/verifications/([0-9a-f-]{36})/approve`).FindStringSubmatch(shop.open("/dashboard/payouts").Body)[1]
		pending := createPayment(t, env, token, "ro-3", nil, nil)

		viewer := signIn(t, env, apptest.Viewer)
		viewer.open("/dashboard/payments/" + id)
		seen := settled(rc)
		for _, f := range []struct {
			path string
			form url.Values
		}{
			{"/dashboard/payments/" + id + "/refund", url.Values{"amount": {"1.00"}}},
			{"/dashboard/payments/" + pending + "/authorise", url.Values{"outcome": {"COMPLETED"}}},
			{"/dashboard/notifications/" + notification + "/redeliver", nil},
			{"/dashboard/verifications/" + verification + "/approve", nil},
			{"/dashboard/verifications/" + verification + "/reject", nil},
			{"/dashboard/reports", url.Values{"type": {"PAYMENTS"}, "start": {"2026-06-01"}, "end": {"2026-06-01"}}},
			{"/dashboard/clock/advance", url.Values{"seconds": {"3600"}}},
			{"/dashboard/clock/reset", nil},
		} {
			p := viewer.post(f.path, f.form)
			if p.Status != http.StatusForbidden {
				t.Fatalf("READ_ONLY POST %s: %d", f.path, p.Status)
			}
			contains(t, f.path, p.Body, "Your role READ_ONLY may not do this; nothing was done.")
		}
		if s := payoutStatus(t, env, token, payoutID); s != "CREATED" {
			t.Fatalf("the held payout is %s", s)
		}
		contains(t, "the refunds", shop.open("/dashboard/payments/"+id).Body, "No refund.")
		contains(t, "the pending payment", shop.open("/dashboard/payments/"+pending).Body, "NEW_PAYMENT")
		contains(t, "the reports", shop.open("/dashboard/reports").Body, "No reports yet.")
		if got := clockOffset(t, shop); got != "at the wall clock" {
			t.Fatalf("clock %s", got)
		}
		rc.Quiet(t, seen)
	})
}

// TestProductionCookies: in production the session cookie is
// __Host-bankrail_dashboard, Secure, HttpOnly, SameSite=Lax, Path=/; the
// sign-in form's cookie is Secure too; the sandbox's pages are absent.
func TestProductionCookies(t *testing.T) {
	t.Parallel()
	apptest.Each(t, func(t *testing.T, env *apptest.Env) {
		get := func(path string, cookies ...*http.Cookie) page {
			req, _ := http.NewRequest(http.MethodGet, env.URL+path, nil)
			for _, c := range cookies {
				req.AddCookie(c)
			}
			return newConsole(t, env).do(req)
		}
		form := get("/dashboard/sign-in")
		signin := sessionCookie(form.Header, "bankrail_dashboard_signin")
		if signin == nil || !signin.Secure || !signin.HttpOnly || signin.SameSite != http.SameSiteStrictMode || signin.Path != "/dashboard/" {
			t.Fatalf("sign-in form cookie %+v", signin)
		}
		token := csrfInput.FindStringSubmatch(form.Body)[1]
		req, _ := http.NewRequest(http.MethodPost, env.URL+"/dashboard/sign-in", strings.NewReader(url.Values{"csrf": {token},
			"username": {apptest.Merchant.Username}, "password": {apptest.Merchant.Password}}.Encode()))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.AddCookie(&http.Cookie{Name: signin.Name, Value: signin.Value})
		p := newConsole(t, env).do(req)
		ck := sessionCookie(p.Header, "__Host-bankrail_dashboard")
		if p.Status != http.StatusSeeOther || ck == nil || !ck.Secure || !ck.HttpOnly || ck.SameSite != http.SameSiteLaxMode ||
			ck.Path != "/" || ck.Domain != "" {
			t.Fatalf("production sign-in: %d %v", p.Status, p.Header.Values("Set-Cookie"))
		}
		if sessionCookie(p.Header, "bankrail_dashboard") != nil {
			t.Fatal("production set the sandbox's cookie")
		}
		page := get("/dashboard/payments", &http.Cookie{Name: ck.Name, Value: ck.Value})
		if page.Status != http.StatusOK {
			t.Fatalf("payments with the session: %d", page.Status)
		}
		lacks(t, "production page", page.Body, "Sandbox", `href="/dashboard/clock"`, `href="/dashboard/inbox"`)
		// The sandbox's cookie name is not a session in production.
		if p := get("/dashboard/payments", &http.Cookie{Name: "bankrail_dashboard", Value: ck.Value}); p.Status != http.StatusSeeOther {
			t.Fatalf("the sandbox cookie name in production: %d", p.Status)
		}
		for _, path := range []string{"/dashboard/clock", "/dashboard/inbox"} {
			if p := get(path, &http.Cookie{Name: ck.Name, Value: ck.Value}); p.Status != http.StatusNotFound {
				t.Fatalf("production %s: %d", path, p.Status)
			}
		}
	}, apptest.Production)
}

// TestNoInputReflectedUnescaped: a payer named <script>, references and
// searches holding markup, are shown as text on every page, never as
// markup; every page forbids scripts (CSP) and framing.
func TestNoInputReflectedUnescaped(t *testing.T) {
	t.Parallel()
	apptest.Each(t, func(t *testing.T, env *apptest.Env) {
		token := env.Token(t, apptest.Merchant)
		const evil = `<script>alert(1)</script>`
		id := createPayment(t, env, token, `O'Brien (2)`, nil, func(b map[string]any) {
			b["payer"] = map[string]any{"firstName": evil, "lastName": `"><img src=x onerror=alert(3)>`, "email": "anna@example.com"}
			b["internalReference"] = `<b>bold</b>`
		})
		c := signIn(t, env, apptest.Merchant)
		pages := map[string]page{}
		for _, path := range []string{"/dashboard/payments/" + id, "/dashboard/payments", "/dashboard/payments?q=" + url.QueryEscape(evil),
			"/dashboard/payments?q=" + url.QueryEscape(`<b>bold</b>`), "/dashboard/payments?status=" + url.QueryEscape(evil),
			"/dashboard/sign-in?next=" + url.QueryEscape(`/dashboard/"><script>alert(4)</script>`),
			"/dashboard/notifications?status=" + url.QueryEscape(evil), "/dashboard/nope" + url.PathEscape(evil)} {
			p := c.get(path)
			pages[path] = p
			body := strings.ToLower(p.Body)
			if strings.Contains(body, "<script") || strings.Contains(body, "<img") || strings.Contains(body, "<b>") {
				t.Fatalf("%s reflects markup:\n%s", path, mainOf(p.Body))
			}
			if csp := p.Header.Get("Content-Security-Policy"); !strings.Contains(csp, "default-src 'none'") || strings.Contains(csp, "script-src") ||
				!strings.Contains(csp, "frame-ancestors 'none'") || p.Header.Get("X-Frame-Options") != "DENY" {
				t.Fatalf("%s headers %v", path, p.Header)
			}
		}
		contains(t, "payment page", pages["/dashboard/payments/"+id].Body, `&lt;script&gt;alert(1)&lt;/script&gt;`, `&lt;b&gt;bold&lt;/b&gt;`,
			`O&#39;Brien (2)`)
		contains(t, "search by internal reference", pages["/dashboard/payments?q=%3Cb%3Ebold%3C%2Fb%3E"].Body, `href="/dashboard/payments/`+id+`"`)
		contains(t, "the search box", pages["/dashboard/payments?q=%3Cscript%3Ealert%281%29%3C%2Fscript%3E"].Body,
			`value="&lt;script&gt;alert(1)&lt;/script&gt;"`)
	})
}

// settled waits until rc has received nothing new for a moment and returns
// how many it got.
func settled(rc *apptest.Receiver) int {
	n := len(rc.Got())
	for {
		time.Sleep(300 * time.Millisecond)
		m := len(rc.Got())
		if m == n {
			return n
		}
		n = m
	}
}
