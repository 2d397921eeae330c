package dashboard_test

import (
	"context"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/bankrail/bankrail/internal/apptest"
	"github.com/bankrail/bankrail/internal/browsertest"
)

// signInIn signs l in on the tab through the form.
func signInIn(t *testing.T, ctx context.Context, env *apptest.Env, l apptest.Login) {
	t.Helper()
	signInTo(t, ctx, env, l, browsertest.Page("payments")+" #q")
}

// signInTo signs l in on the tab through the form and waits for the page
// it lands on (marker).
func signInTo(t *testing.T, ctx context.Context, env *apptest.Env, l apptest.Login, marker string) {
	t.Helper()
	browsertest.Open(t, ctx, "the sign-in page", env.URL+"/dashboard/sign-in", browsertest.Page("signin")+" #username")
	browsertest.Steps(t, ctx, "type the credentials", chromedp.SendKeys("#username", l.Username), chromedp.SendKeys("#password", l.Password))
	browsertest.Follow(t, ctx, "sign in", marker, chromedp.Submit("#password"))
}

// The pages added last, in a real browser without JavaScript, on a phone
// and on a desktop, on both engines: an application's notification URL
// and secret rotation; a mandate authorised and an amendment approved
// with the sandbox's buttons; a channel's deposits; the webhook chaos of
// the sandbox console; the whole sandbox's reset, confirmed, as ADMIN.
// Every page fits the window.
func TestBrowserNewPages(t *testing.T) {
	t.Parallel()
	inWindows(t, nil, func(t *testing.T, w window) {
		env, ctx, shot := w.env, w.ctx, w.shot
		token := env.Token(t, apptest.Merchant)
		mandateID := createMandate(t, env, token, "Ann Payer")
		channelID := createChannel(t, env, token, "user-42")
		signInIn(t, ctx, env, apptest.Merchant)

		// The application: its notification URL, then a new secret.
		follow(t, ctx, "open the applications", `nav.sections a[href="/dashboard/applications"]`, browsertest.Page("applications")+" table.applications")
		fits(t, ctx, "applications page")
		follow(t, ctx, "open the application", `table.applications a`, browsertest.Page("application")+" #url")
		fits(t, ctx, "application page")
		browsertest.Steps(t, ctx, "type the URL", chromedp.Clear("#url"), chromedp.SendKeys("#url", "https://hooks.example.com/in"))
		browsertest.Follow(t, ctx, "save the URL", browsertest.Page("application")+" .notice", chromedp.Submit("#url"))
		if got := text(t, ctx, ".current-url"); got != "https://hooks.example.com/in" {
			t.Fatalf("URL %q", got)
		}
		browsertest.Follow(t, ctx, "rotate the secret", browsertest.Page("application")+" .new-secret", chromedp.Submit("#overlap"))
		if got := text(t, ctx, ".new-secret"); len(got) != 48 {
			t.Fatalf("new secret %q", got)
		}
		shot("dashboard-application.png")

		// The mandate: authorise it as the payer, then approve an amendment.
		follow(t, ctx, "open the mandates", `nav.sections a[href="/dashboard/mandates"]`, browsertest.Page("mandates")+" table")
		follow(t, ctx, "open the mandate", `a[href="/dashboard/mandates/`+mandateID+`"]`, browsertest.Page("mandate")+" .mandate-answer")
		fits(t, ctx, "mandate page")
		follow(t, ctx, "authorise", `.mandate-answer button[value="AUTHORISED"]`, browsertest.Page("mandate")+" .notice")
		if got := text(t, ctx, ".amount"); !strings.Contains(got, "ACTIVE") {
			t.Fatalf("mandate %q", got)
		}
		amendment := amendMandate(t, env, token, mandateID, 7000)
		browsertest.Open(t, ctx, "the mandate again", env.URL+"/dashboard/mandates/"+mandateID, browsertest.Page("mandate")+" article.amendment")
		shot("dashboard-mandate.png")
		follow(t, ctx, "approve the amendment", `form[action="/dashboard/amendments/`+amendment+`/approve"] button`, browsertest.Page("mandate")+" .notice")
		if got := text(t, ctx, "article.amendment"); !strings.Contains(got, "APPROVED") || !strings.Contains(got, "70.00 AUD") {
			t.Fatalf("amendment %q", got)
		}

		// The channel and its deposit.
		follow(t, ctx, "open the channels", `nav.sections a[href="/dashboard/channels"]`, browsertest.Page("channels")+" table")
		follow(t, ctx, "open the channel", `a[href="/dashboard/channels/`+channelID+`"]`, browsertest.Page("channel")+" table.deposits")
		fits(t, ctx, "channel page")
		if got := text(t, ctx, "table.deposits tbody"); !strings.Contains(got, "125.500000 USDC") {
			t.Fatalf("deposits %q", got)
		}
		shot("dashboard-channel.png")

		// The sandbox console: webhook chaos.
		follow(t, ctx, "open the sandbox", `nav.sections a[href="/dashboard/clock"]`, browsertest.Page("clock")+" section.chaos")
		fits(t, ctx, "sandbox page")
		browsertest.Steps(t, ctx, "type a share", chromedp.Clear(`section.chaos input[name="duplicatePercent"]`),
			chromedp.SendKeys(`section.chaos input[name="duplicatePercent"]`, "25"))
		browsertest.Follow(t, ctx, "save the chaos", browsertest.Page("clock")+" .notice", chromedp.Submit(`section.chaos input[name="duplicatePercent"]`))
		if got := inPage[string](t, ctx, `document.querySelector('section.chaos input[name="duplicatePercent"]').value`); got != "25" {
			t.Fatalf("duplicatePercent %q", got)
		}
		shot("dashboard-sandbox.png")
		follow(t, ctx, "sign out", `form[action="/dashboard/sign-out"] button`, browsertest.Page("signin")+" .notice")

		// The reset, as ADMIN, behind its confirmation.
		signInIn(t, ctx, env, apptest.PSPAdmin)
		browsertest.Open(t, ctx, "the sandbox as ADMIN", env.URL+"/dashboard/clock", browsertest.Page("clock")+` a[href="/dashboard/sandbox/reset"]`)
		follow(t, ctx, "ask to reset", `a[href="/dashboard/sandbox/reset"]`, browsertest.Page("reset")+` button[value="reset"]`)
		fits(t, ctx, "reset page")
		shot("dashboard-reset.png")
		follow(t, ctx, "go back", `a[href="/dashboard/clock"].button`, browsertest.Page("clock")+" h1")
		follow(t, ctx, "ask again", `a[href="/dashboard/sandbox/reset"]`, browsertest.Page("reset")+` button[value="reset"]`)
		follow(t, ctx, "confirm", `button[value="reset"]`, browsertest.Page("clock")+" .notice")
		if got := text(t, ctx, ".notice"); !strings.Contains(got, "seed state") {
			t.Fatalf("after the reset %q", got)
		}
	})
}

// window is one run of a browser test: a fresh env, a tab of a browser
// without JavaScript sized to the window, and shot, which saves a
// screenshot of the tab on the desktop's SQLite run (see screenshot).
type window struct {
	env           *apptest.Env
	browser       context.Context // for tabs of the test's own
	ctx           context.Context
	name          string
	width, height int64
	shot          func(name string)
}

// inWindows runs fn on a phone-sized and a desktop window (sizes), each
// on both engines with a fresh env made with opts.
func inWindows(t *testing.T, opts []apptest.Option, fn func(t *testing.T, w window)) {
	t.Helper()
	b := browsertest.Start(t, false)
	for _, size := range sizes {
		t.Run(size.name, func(t *testing.T) {
			apptest.Each(t, func(t *testing.T, env *apptest.Env) {
				w := window{env: env, browser: b, ctx: browsertest.Tab(t, b), name: size.name, width: size.width, height: size.height}
				w.shot = func(name string) {
					if size.name == "desktop" && strings.HasSuffix(t.Name(), "/sqlite") {
						screenshot(t, w.ctx, name)
					}
				}
				browsertest.Steps(t, w.ctx, "size the window", chromedp.EmulateViewport(size.width, size.height))
				fn(t, w)
			}, opts...)
		})
	}
}
