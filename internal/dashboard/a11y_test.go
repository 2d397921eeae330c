package dashboard_test

import (
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	cdppage "github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"

	"github.com/bankrail/bankrail/internal/apptest"
	"github.com/bankrail/bankrail/internal/browsertest"
)

// axeSource is axe-core 4.10.3 from the npm registry, vendored with its
// licence (testdata/axe-core/README.md says how it was fetched and checked).
//
//go:embed testdata/axe-core/axe.min.js
var axeSource string

// axeRun runs axe on the page and returns its violations as JSON.
const axeRun = `axe.run(document, {resultTypes: ['violations']}).then(r => JSON.stringify(r.violations.map(v => ({
	id: v.id, impact: v.impact, help: v.help,
	nodes: v.nodes.slice(0, 5).map(n => n.target.join(' ') + ': ' + (n.failureSummary || '').replace(/\s+/g, ' '))
}))))`

// violation is one rule axe found broken.
type violation struct {
	ID, Impact, Help string
	Nodes            []string
}

// axeCheck runs axe-core on the tab's page and fails the test on a
// serious or critical violation; lesser ones are logged.
func axeCheck(t *testing.T, ctx context.Context, what string) {
	t.Helper()
	for _, v := range axeViolations(t, ctx, what) {
		msg := fmt.Sprintf("axe on %s: %s (%s): %s\n\t%s", what, v.ID, v.Impact, v.Help, strings.Join(v.Nodes, "\n\t"))
		if v.Impact == "serious" || v.Impact == "critical" {
			t.Error(msg)
		} else {
			t.Log(msg)
		}
	}
}

// axeViolations runs axe-core on the tab's page.
func axeViolations(t *testing.T, ctx context.Context, what string) []violation {
	t.Helper()
	c, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	out, err := chromedp.Run(c, chromedp.Action[string](func(ctx context.Context, tg *chromedp.Target) (string, error) {
		if _, err := chromedp.Evaluate[bool](axeSource+"\n;true")(ctx, tg); err != nil {
			return "", fmt.Errorf("load axe: %w", err)
		}
		return chromedp.Evaluate[string](axeRun, func(p *runtime.EvaluateParams) { await := true; p.AwaitPromise = &await })(ctx, tg)
	}))
	if err != nil {
		t.Fatalf("axe on %s: %v", what, err)
	}
	var found []violation
	if err := json.Unmarshal([]byte(out), &found); err != nil {
		t.Fatalf("axe on %s: %v in %s", what, err, out)
	}
	return found
}

// TestAccessibility runs axe-core (WCAG 2.x A and AA rules and best
// practices) on every page of the dashboard, filled, on a phone and on a
// desktop: no serious or critical violation. This browser runs scripts:
// axe is one (the pages themselves have none). The dashboard's
// Content-Security-Policy forbids scripts, so the test lets the browser
// bypass it for axe alone (Page.setBypassCSP).
func TestAccessibility(t *testing.T) {
	t.Parallel()
	b := browsertest.Start(t, true)
	env := apptest.New(t)
	f := seed(t, env)
	env.SetNotificationURL(t, apptest.Merchant, env.URL+"/sandbox/inbox/"+apptest.Merchant.ClientID)
	connect := createPayment(t, env, f.token, "Order 2001", map[string]string{"X-Service-Testing-Scenario": "COMPLETED"},
		func(b map[string]any) { delete(b, "beneficiary") })
	mandateID := createMandate(t, env, f.token, "Ann Payer")
	env.Do(t, apptest.Request{Method: "POST", Path: "/sandbox/mandates/" + mandateID + "/authorise", Token: f.token,
		Body: map[string]string{"outcome": "AUTHORISED"}})
	amendMandate(t, env, f.token, mandateID, 7000) // open: the payer's buttons show
	channelID := createChannel(t, env, f.token, "user-42")
	appID := applicationID(t, env, apptest.Merchant)
	c := signIn(t, env, apptest.Merchant)
	c.act("/dashboard/reports", url.Values{"type": {"PAYMENTS"}, "start": {"2026-06-01"}, "end": {"2026-06-01"}})
	waitFor(t, "the report", func() bool { return csvLink.MatchString(c.open("/dashboard/reports").Body) })
	waitFor(t, "the inbox", func() bool { return strings.Contains(c.open("/dashboard/inbox").Body, "Signature valid") })
	waitFor(t, "the refund form", func() bool {
		return strings.Contains(c.open("/dashboard/payments/"+connect).Body, "Request a refund")
	})
	notification := regexp.MustCompile(`/dashboard/notifications/([0-9a-f-]{36})`).FindStringSubmatch(c.open("/dashboard/payments/" + f.payment).Body)[1]
	account := regexp.MustCompile(`/dashboard/accounts/([0-9a-f-]{36})`).FindStringSubmatch(c.open("/dashboard/accounts").Body)[1]

	pages := []struct{ what, path, marker string }{
		{"payments", "/dashboard/payments", "payments"},
		{"a search", "/dashboard/payments?q=Order+1001&status=COMPLETED", "payments"},
		{"a payment", "/dashboard/payments/" + f.payment, "payment"},
		{"a Connect payment", "/dashboard/payments/" + connect, "payment"},
		{"a pending payment", "/dashboard/payments?status=NEW_PAYMENT", "payments"},
		{"notifications", "/dashboard/notifications", "notifications"},
		{"a notification", "/dashboard/notifications/" + notification, "notification"},
		{"the inbox", "/dashboard/inbox", "inbox"},
		{"payouts", "/dashboard/payouts", "payouts"},
		{"reports", "/dashboard/reports", "reports"},
		{"accounts", "/dashboard/accounts", "accounts"},
		{"an account", "/dashboard/accounts/" + account, "account"},
		{"mandates", "/dashboard/mandates", "mandates"},
		{"channels", "/dashboard/channels", "channels"},
		{"the sandbox", "/dashboard/clock", "clock"},
		{"a mandate", "/dashboard/mandates/" + mandateID, "mandate"},
		{"a channel", "/dashboard/channels/" + channelID, "channel"},
		{"applications", "/dashboard/applications", "applications"},
		{"an application", "/dashboard/applications/" + appID, "application"},
	}
	// Pages answered with an error status (401, 404, 422) are checked in a
	// tab the harness does not watch: the browser logs their status as a
	// failed load, which is what they are meant to be.
	errorPages := func(t *testing.T, ctx context.Context) {
		t.Helper()
		run := func(what string, actions ...chromedp.Action[chromedp.Void]) {
			t.Helper()
			c, cancel := context.WithTimeout(ctx, 20*time.Second)
			defer cancel()
			if err := chromedp.Do(c, actions...); err != nil {
				t.Fatalf("%s: %v", what, err)
			}
		}
		// The harness finds what it should: a page without a language and
		// a field without a label.
		run("a bad page", chromedp.Navigate(`data:text/html,<title>bad</title><input type="text">`))
		var ids []string
		for _, v := range axeViolations(t, ctx, "a bad page") {
			ids = append(ids, v.ID+" "+v.Impact)
		}
		if got := strings.Join(ids, ", "); !strings.Contains(got, "html-has-lang serious") || !strings.Contains(got, "label critical") {
			t.Fatalf("axe on a bad page found %s", got)
		}
		run("a missing page", chromedp.Navigate(env.URL+"/dashboard/nothing-here"), chromedp.WaitVisible(browsertest.Page("error")+" h1"))
		axeCheck(t, ctx, "a missing page")
		run("a wrong amount", chromedp.Navigate(env.URL+"/dashboard/payments/"+connect), chromedp.WaitVisible("#refund-amount"),
			chromedp.SendKeys("#refund-amount", "abc"), chromedp.Submit("#refund-amount"), chromedp.WaitVisible(browsertest.Page("payment")+" .problem"))
		axeCheck(t, ctx, "a refused refund")
		run("rotate the secret", chromedp.Navigate(env.URL+"/dashboard/applications/"+appID), chromedp.WaitVisible("#overlap"),
			chromedp.Submit("#overlap"), chromedp.WaitVisible(browsertest.Page("application")+" .new-secret"))
		axeCheck(t, ctx, "a new secret")
		run("a wrong chaos share", chromedp.Navigate(env.URL+"/dashboard/clock"), chromedp.WaitVisible(`section.chaos input[name="delayPercent"]`),
			chromedp.Clear(`section.chaos input[name="delayPercent"]`), chromedp.SendKeys(`section.chaos input[name="delayPercent"]`, "5"),
			chromedp.Submit(`section.chaos input[name="delayPercent"]`), chromedp.WaitVisible(browsertest.Page("clock")+" .problem"))
		axeCheck(t, ctx, "refused chaos settings")
		run("sign out", chromedp.Navigate(env.URL+"/dashboard/payments"), chromedp.Click(`form[action="/dashboard/sign-out"] button`, chromedp.NodeVisible),
			chromedp.WaitVisible(browsertest.Page("signin")+" .notice"))
		run("a wrong password", chromedp.SendKeys("#username", apptest.Merchant.Username), chromedp.SendKeys("#password", "wrong-password"),
			chromedp.Submit("#password"), chromedp.WaitVisible(browsertest.Page("signin")+" .problem"))
		axeCheck(t, ctx, "a refused sign-in")
		run("sign in as ADMIN", chromedp.Navigate(env.URL+"/dashboard/sign-in"), chromedp.WaitVisible("#username"),
			chromedp.SendKeys("#username", apptest.PSPAdmin.Username), chromedp.SendKeys("#password", apptest.PSPAdmin.Password),
			chromedp.Submit("#password"), chromedp.WaitVisible(browsertest.Page("payments")+" #q"),
			chromedp.Navigate(env.URL+"/dashboard/sandbox/reset"), chromedp.WaitVisible(browsertest.Page("reset")+` button[value="reset"]`))
		axeCheck(t, ctx, "the reset's confirmation")
		run("sign out", chromedp.Click(`form[action="/dashboard/sign-out"] button`, chromedp.NodeVisible),
			chromedp.WaitVisible(browsertest.Page("signin")+" .notice")) // the next window's tab shares the cookies
	}
	for _, size := range sizes {
		t.Run(size.name, func(t *testing.T) {
			ctx := browsertest.Tab(t, b)
			browsertest.Steps(t, ctx, "size the window and allow axe", chromedp.EmulateViewport(size.width, size.height),
				chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
					_, err := cdp.Call(ctx, tg, cdppage.SetBypassCSP, cdppage.SetBypassCSPParams{Enabled: true})
					return err
				}))
			browsertest.Open(t, ctx, "the sign-in page", env.URL+"/dashboard/sign-in", browsertest.Page("signin")+" #username")
			axeCheck(t, ctx, "the sign-in page")
			browsertest.Steps(t, ctx, "type the credentials", chromedp.SendKeys("#username", apptest.Merchant.Username),
				chromedp.SendKeys("#password", apptest.Merchant.Password))
			browsertest.Follow(t, ctx, "sign in", browsertest.Page("payments")+" #q", chromedp.Submit("#password"))
			for _, p := range pages {
				browsertest.Open(t, ctx, p.what, env.URL+p.path, browsertest.Page(p.marker)+" h1")
				axeCheck(t, ctx, p.what)
			}

			raw, cancel := chromedp.NewContext(b)
			defer cancel()
			if err := chromedp.Do(raw); err != nil { // opens the tab with raw, not with a step's shorter context
				t.Fatal(err)
			}
			browsertest.Steps(t, raw, "size the unwatched tab and allow axe", chromedp.EmulateViewport(size.width, size.height),
				chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
					_, err := cdp.Call(ctx, tg, cdppage.SetBypassCSP, cdppage.SetBypassCSPParams{Enabled: true})
					return err
				}))
			errorPages(t, raw)
		})
	}
}
