package checkout_test

import (
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/bankrail/bankrail/internal/apptest"
	"github.com/bankrail/bankrail/internal/browsertest"
	"github.com/bankrail/bankrail/internal/xs2a/aspsp"
)

// A payment at the sandbox's decoupled bank (Saimaa Pankki) in a real
// browser without JavaScript, on a 390 px phone and on a desktop: the
// payer lands on /checkout/{id}/bank-app, which asks them to confirm in
// the bank's app; they approve on the mock ASPSP's app page
// (/xs2a/{bank}/sca/{id}) in another tab, and the waiting page moves on by
// itself (its refresh) to the shop's success URL with the signed outcome.
// Run it many times: go test ./internal/checkout -run TestBrowserDecoupledWaitingPage -count=20.
func TestBrowserDecoupledWaitingPage(t *testing.T) {
	t.Parallel()
	b := browser(t)
	apptest.Each(t, func(t *testing.T, env *apptest.Env) {
		for _, size := range []struct {
			name          string
			width, height int64
		}{{"phone", browsertest.Width, browsertest.Height}, {"desktop", 1280, 800}} {
			rc, s := apptest.NewReceiver(t), newShop(t)
			body := with(apptest.EUPayment(), "openBankingEU", map[string]any{"institutionId": aspsp.DecoupledBank})
			p := env.CreatePayment(t, env.Token(t, apptest.Merchant), "api", s.returnURLs(body, rc.URL+"/hook"), nil)
			ctx := tab(t, b)
			steps(t, ctx, size.name+" viewport", chromedp.EmulateViewport(size.width, size.height))

			browsertest.Open(t, ctx, size.name+": open the payment link", p.DirectURL(), browsertest.Page("app")+" .outcome")
			if got := text(t, ctx, "h1"); got != "Confirm the payment in your bank's app" {
				t.Fatalf("%s: the waiting page says %q", size.name, got)
			}
			if got := text(t, ctx, "main"); !strings.Contains(got, "Saimaa Pankki") || !strings.Contains(got, "€10.50") {
				t.Fatalf("%s: the waiting page: %q", size.name, got)
			}
			html, err := chromedp.Run(ctx, chromedp.OuterHTML("html"))
			if err != nil {
				t.Fatalf("%s: read the waiting page: %v", size.name, err)
			}
			if !strings.Contains(html, `http-equiv="refresh"`) {
				t.Fatalf("%s: the waiting page does not refresh itself:\n%s", size.name, html)
			}
			app := appPage.FindString(html)
			if app == "" {
				t.Fatalf("%s: the waiting page names no app page:\n%s", size.name, html)
			}
			notified(t, rc, p.ID, "PENDING", "BANK_REDIRECT")

			phone := tab(t, b) // the bank's app
			browsertest.Open(t, phone, size.name+": open the bank's app", app, browsertest.Page("xs2a-sca")+` button[value="COMPLETED"]`)
			browsertest.Follow(t, phone, size.name+": approve in the app", browsertest.Page("xs2a-app-done"),
				chromedp.Click(`button[value="COMPLETED"]`, chromedp.NodeVisible))

			// The waiting page follows the answer by itself: no click.
			landedAt(t, ctx, env, s, "/success", "COMPLETED", "COMPLETED")
			notified(t, rc, p.ID, "COMPLETED", "COMPLETED")
		}
	}, apptest.ServedAtPublicURL)
}
