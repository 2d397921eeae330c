package dashboard_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/browser"
	"github.com/chromedp/cdproto/cdp"
	cdppage "github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"

	"github.com/bankrail/bankrail/internal/apptest"
	"github.com/bankrail/bankrail/internal/browsertest"
)

// sizes are the windows of the browser tests: a phone and a desktop.
var sizes = []struct {
	name          string
	width, height int64
}{{"phone", browsertest.Width, browsertest.Height}, {"desktop", 1280, 900}}

// text reads the visible text of sel.
func text(t *testing.T, ctx context.Context, sel string) string {
	t.Helper()
	c, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	s, err := chromedp.Run(c, chromedp.Text(sel, chromedp.NodeVisible))
	if err != nil {
		t.Fatalf("text of %s: %v", sel, err)
	}
	return s
}

// inPage evaluates expression in an isolated world of the tab's page: it
// works with JavaScript off.
func inPage[T any](t *testing.T, ctx context.Context, expression string) T {
	t.Helper()
	c, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	v, err := chromedp.Run(c, chromedp.Action[T](func(ctx context.Context, tg *chromedp.Target) (T, error) {
		var zero T
		tree, err := cdp.Call(ctx, tg, cdppage.GetFrameTree, cdp.Empty{})
		if err != nil {
			return zero, err
		}
		world, err := cdp.Call(ctx, tg, cdppage.CreateIsolatedWorld, cdppage.CreateIsolatedWorldParams{FrameID: tree.FrameTree.Frame.ID, WorldName: "test"})
		if err != nil {
			return zero, err
		}
		return chromedp.Evaluate[T](expression, func(p *runtime.EvaluateParams) { p.ContextID = world.ExecutionContextID })(ctx, tg)
	}))
	if err != nil {
		t.Fatalf("evaluate %s: %v", expression, err)
	}
	return v
}

// fits fails the test when the page scrolls sideways in the window.
func fits(t *testing.T, ctx context.Context, what string) {
	t.Helper()
	if n := inPage[int64](t, ctx, `document.documentElement.scrollWidth - window.innerWidth`); n > 0 {
		t.Fatalf("%s: the page is %d px wider than the window", what, n)
	}
}

// screenshot saves the page as docs/screenshots/name when
// BANKRAIL_SCREENSHOTS=1 (to refresh the documentation's pictures).
func screenshot(t *testing.T, ctx context.Context, name string) {
	t.Helper()
	if os.Getenv("BANKRAIL_SCREENSHOTS") != "1" {
		return
	}
	png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
	if err != nil {
		t.Fatalf("screenshot %s: %v", name, err)
	}
	if err := os.WriteFile(filepath.Join("..", "..", "docs", "screenshots", name), png, 0o644); err != nil {
		t.Fatal(err)
	}
}

// follow clicks sel and waits for the page marker of the next page.
func follow(t *testing.T, ctx context.Context, what, sel, marker string) {
	t.Helper()
	browsertest.Follow(t, ctx, what, marker, chromedp.Click(sel, chromedp.NodeVisible))
}

// browserFixture is what the browser tests find in the dashboard: a
// completed payment with its notifications, a payout held for a decision.
type browserFixture struct {
	rc      *apptest.Receiver
	token   string
	payment string
	payout  string
}

// seed makes the fixture.
func seed(t *testing.T, env *apptest.Env) browserFixture {
	t.Helper()
	f := browserFixture{rc: apptest.NewReceiver(t)}
	env.SetNotificationURL(t, apptest.Merchant, f.rc.URL)
	acct := openAccount(t, env, apptest.ShopID, "EUR", "Main EUR")
	credit(t, env, acct, 250_000, env.Clock.Now().Add(-48*time.Hour))
	f.token = env.Token(t, apptest.Merchant)
	for i, ref := range []string{"Order 1001", "Order 1002", "Order 1003"} {
		headers := map[string]string{"X-Service-Testing-Scenario": []string{"COMPLETED", "REFUSED_BY_BANK", "CANCELLED_BY_USER"}[i]}
		id := createPayment(t, env, f.token, ref, headers, nil)
		if i == 0 {
			f.payment = id
		}
		env.Clock.Advance(time.Minute)
	}
	createPayment(t, env, f.token, "Order 1004", nil, nil)
	f.payout = heldPayout(t, env, f.token, acct, 12_000, "Jane Doe")
	f.rc.WaitFor(t, 4)
	return f
}

// The dashboard in a real browser without JavaScript, on a phone and on a
// desktop, on both engines: sign in, find a payment by its reference, read
// its timeline, redeliver a notification, approve a held payout, request
// and download a report, advance the sandbox clock, sign out. Every page
// fits the window.
func TestBrowserDashboard(t *testing.T) {
	t.Parallel()
	b := browsertest.Start(t, false)
	for _, size := range sizes {
		t.Run(size.name, func(t *testing.T) {
			apptest.Each(t, func(t *testing.T, env *apptest.Env) {
				f := seed(t, env)
				ctx := browsertest.Tab(t, b)
				shots := size.name == "desktop" && strings.HasSuffix(t.Name(), "/sqlite")
				shot := func(name string) {
					if shots {
						screenshot(t, ctx, name)
					}
				}
				browsertest.Steps(t, ctx, "size the window", chromedp.EmulateViewport(size.width, size.height))

				// Sign in.
				browsertest.Open(t, ctx, "open the dashboard", env.URL+"/dashboard/", browsertest.Page("signin")+" #username")
				fits(t, ctx, "sign-in page")
				shot("dashboard-sign-in.png")
				browsertest.Steps(t, ctx, "type the credentials", chromedp.SendKeys("#username", apptest.Merchant.Username),
					chromedp.SendKeys("#password", apptest.Merchant.Password))
				browsertest.Follow(t, ctx, "sign in", browsertest.Page("payments")+" #q", chromedp.Submit("#password"))
				if got := text(t, ctx, "header"); !strings.Contains(got, "merchant@shop.test") || !strings.Contains(got, "Test Shop") {
					t.Fatalf("header %q", got)
				}
				fits(t, ctx, "payments page")
				shot("dashboard-payments.png")
				// The keyboard's first stop is the link past the header and navigation.
				browsertest.Steps(t, ctx, "press Tab", chromedp.KeyEvent("\t"))
				if got := inPage[string](t, ctx, `document.activeElement.textContent`); got != "Skip to content" {
					t.Fatalf("the first Tab reaches %q", got)
				}

				// Find the payment by its reference.
				browsertest.Steps(t, ctx, "type the reference", chromedp.SendKeys("#q", "Order 1001"))
				browsertest.Follow(t, ctx, "search", browsertest.Page("payments")+` a[href="/dashboard/payments/`+f.payment+`"]`, chromedp.Submit("#q"))
				if n := inPage[int64](t, ctx, `document.querySelectorAll('table.payments tbody tr').length`); n != 1 {
					t.Fatalf("%d results", n)
				}
				follow(t, ctx, "open the payment", `a[href="/dashboard/payments/`+f.payment+`"]`, browsertest.Page("payment")+" ol.timeline")
				fits(t, ctx, "payment page")
				timeline := text(t, ctx, "ol.timeline")
				for _, want := range []string{"NEW_PAYMENT", "BANK_REDIRECT", "AUTHORISED_BY_USER", "COMPLETED", "2026-06-01 09:00:00 UTC"} {
					if !strings.Contains(timeline, want) {
						t.Fatalf("timeline %q lacks %s", timeline, want)
					}
				}
				if i, j := strings.Index(timeline, "NEW_PAYMENT"), strings.Index(timeline, "COMPLETED"); i > j {
					t.Fatalf("timeline out of order: %q", timeline)
				}
				shot("dashboard-payment.png")

				// Redeliver its first notification.
				before := len(f.rc.Got())
				follow(t, ctx, "redeliver", `form[action$="/redeliver"] button`, browsertest.Page("payment")+" .notice")
				if got := text(t, ctx, ".notice"); got != "The notification is queued for delivery again." {
					t.Fatalf("notice %q", got)
				}
				f.rc.WaitFor(t, before+1)

				// Approve the held payout.
				follow(t, ctx, "open the payouts", `nav.sections a[href="/dashboard/payouts"]`, browsertest.Page("payouts")+" article.held")
				fits(t, ctx, "payouts page")
				if got := text(t, ctx, "article.held"); !strings.Contains(got, "120.00 EUR to Jane Doe") || !strings.Contains(got, "CLOSE_MATCH") {
					t.Fatalf("held payout %q", got)
				}
				shot("dashboard-payouts.png")
				follow(t, ctx, "approve", `article.held form[action$="/approve"] button`, browsertest.Page("payouts")+" .notice")
				if got := text(t, ctx, "#held-h + p + p"); got != "Nothing waits for a decision." {
					t.Fatalf("after approving: %q", got)
				}
				if s := payoutStatus(t, env, f.token, f.payout); s != "COMPLETED" {
					t.Fatalf("payout %s", s)
				}

				// Request a report and download it.
				follow(t, ctx, "open the reports", `nav.sections a[href="/dashboard/reports"]`, browsertest.Page("reports")+" #type")
				fits(t, ctx, "reports page")
				follow(t, ctx, "request a report", `form[action="/dashboard/reports"] button`, browsertest.Page("reports")+" .notice")
				for i := 0; inPage[int64](t, ctx, `document.querySelectorAll('a.download').length`) == 0; i++ {
					if i == 100 {
						t.Fatal("the report is not ready after 100 refreshes")
					}
					time.Sleep(50 * time.Millisecond)
					follow(t, ctx, "refresh", "a.refresh", browsertest.Page("reports")+" table.reports")
				}
				shot("dashboard-reports.png")
				csv := download(t, ctx, "a.download")
				if !strings.HasPrefix(csv, "id,createdAt,") || !strings.Contains(csv, f.payment) {
					t.Fatalf("report %q", csv)
				}

				// Advance the sandbox clock by a day.
				follow(t, ctx, "open the clock", `nav.sections a[href="/dashboard/clock"]`, browsertest.Page("clock")+" .clock-now")
				fits(t, ctx, "clock page")
				if got := text(t, ctx, ".clock-now"); got != "2026-06-01 09:03:00 UTC" {
					t.Fatalf("clock %q", got)
				}
				follow(t, ctx, "advance a day", `button[value="86400"]`, browsertest.Page("clock")+" .notice")
				if got := text(t, ctx, ".clock-now"); got != "2026-06-02 09:03:00 UTC" {
					t.Fatalf("clock after a day %q", got)
				}

				// The other pages open and fit.
				for _, p := range []struct{ nav, page string }{{"notifications", "notifications"}, {"inbox", "inbox"},
					{"mandates", "mandates"}, {"channels", "channels"}, {"accounts", "accounts"}} {
					follow(t, ctx, "open "+p.nav, `nav.sections a[href="/dashboard/`+p.nav+`"]`, browsertest.Page(p.page)+" h1")
					fits(t, ctx, p.nav+" page")
				}
				follow(t, ctx, "open the account", `table a[href^="/dashboard/accounts/"]`, browsertest.Page("account")+" figure.chart")
				fits(t, ctx, "account page")
				shot("dashboard-account.png")
				if size.name == "phone" && strings.HasSuffix(t.Name(), "/sqlite") && os.Getenv("BANKRAIL_SCREENSHOTS") == "1" {
					browsertest.Open(t, ctx, "the payment on a phone", env.URL+"/dashboard/payments/"+f.payment, browsertest.Page("payment")+" ol.timeline")
					screenshot(t, ctx, "dashboard-phone-payment.png")
				}

				// Sign out.
				follow(t, ctx, "sign out", `form[action="/dashboard/sign-out"] button`, browsertest.Page("signin")+" .notice")
				browsertest.Open(t, ctx, "the payments after signing out", env.URL+"/dashboard/payments", browsertest.Page("signin")+" #username")
			})
		})
	}
}

// download clicks the link sel, waits for the browser's download to
// complete and returns the file.
func download(t *testing.T, ctx context.Context, sel string) string {
	t.Helper()
	dir := t.TempDir()
	c, cancel := context.WithTimeout(ctx, 20*time.Second)
	defer cancel()
	progress := chromedp.Events(c, browser.DownloadProgress)
	enabled := true
	err := chromedp.Do(c, chromedp.Func(func(ctx context.Context, _ *chromedp.Target) error {
		_, err := chromedp.Call(ctx, browser.SetDownloadBehavior, browser.SetDownloadBehaviorParams{
			Behavior: browser.SetDownloadBehaviorBehaviorAllowAndName, DownloadPath: dir, EventsEnabled: &enabled})
		return err
	}), chromedp.Click(sel, chromedp.NodeVisible))
	if err != nil {
		t.Fatalf("download %s: %v", sel, err)
	}
	for ev, err := range progress {
		if err != nil {
			t.Fatalf("download %s: %v", sel, err)
		}
		switch ev.State {
		case browser.DownloadProgressStateCompleted:
			b, err := os.ReadFile(filepath.Join(dir, ev.GUID))
			if err != nil {
				t.Fatal(err)
			}
			return string(b)
		case browser.DownloadProgressStateCanceled:
			t.Fatalf("download %s was cancelled", sel)
		}
	}
	t.Fatalf("download %s did not complete", sel)
	return ""
}
