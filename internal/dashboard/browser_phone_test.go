package dashboard_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/bankrail/bankrail/internal/apptest"
	"github.com/bankrail/bankrail/internal/browsertest"
)

// longType is a notification type no line can break at a hyphen or space:
// the inbox shows types as they were received.
const longType = "payment_status_changed_for_an_integration_with_a_very_long_custom_notification_type"

// TestBrowserInboxAndRefundFitA390pxPhone: at 390 px (browsertest.Width,
// a common phone), the inbox with a long notification type and client id,
// a body without spaces, and a payment's page with a refused refund fit the
// window: nothing is wider than the screen (issue 30, item 7).
func TestBrowserInboxAndRefundFitA390pxPhone(t *testing.T) {
	t.Parallel()
	if browsertest.Width > 390 {
		t.Fatalf("the phone of the browser tests is %d px wide; 390 px phones are common", browsertest.Width)
	}
	b := browsertest.Start(t, false)
	apptest.Each(t, func(t *testing.T, env *apptest.Env) {
		openAccount(t, env, apptest.ShopID, "EUR", "main")
		token := env.Token(t, apptest.Merchant)
		paid := createPayment(t, env, token, "phone-1", map[string]string{"X-Service-Testing-Scenario": "COMPLETED"},
			func(b map[string]any) { delete(b, "beneficiary") })
		got := env.Do(t, apptest.Request{Method: "POST", Path: "/sandbox/inbox/" + apptest.Merchant.ClientID,
			Body: `{"payment":"` + strings.Repeat("x", 300) + `"}`,
			Header: map[string]string{"X-Service-Signature": "t=1,v1=00", "X-Service-Notification-Id": "long-1",
				"X-Service-Type": longType}, SkipSpec: true})
		if got.Status != http.StatusBadRequest {
			t.Fatalf("the inbox's answer to a forged notification: %d", got.Status)
		}
		ctx := browsertest.Tab(t, b)
		signInIn(t, ctx, env, apptest.Merchant)
		browsertest.Open(t, ctx, "the inbox", env.URL+"/dashboard/inbox", browsertest.Page("inbox")+" article.inbox-entry")
		if h := text(t, ctx, "article.inbox-entry h2"); !strings.Contains(h, longType) {
			t.Fatalf("inbox entry %q", h)
		}
		fits(t, ctx, "inbox with a long type")
		browsertest.Steps(t, ctx, "open the body", chromedp.Click("article.inbox-entry summary", chromedp.NodeVisible))
		fits(t, ctx, "inbox with a body open")

		browsertest.Open(t, ctx, "the payment", env.URL+"/dashboard/payments/"+paid, browsertest.Page("payment")+" #refund-amount")
		fits(t, ctx, "payment page")
		// A refused refund answers 422, which the watched tab would take for
		// a failure: a tab of its own, at the same size, in the same session.
		refused, cancel := chromedp.NewContext(b)
		t.Cleanup(cancel)
		if err := chromedp.Do(refused, chromedp.EmulateViewport(browsertest.Width, browsertest.Height),
			chromedp.Navigate(env.URL+"/dashboard/payments/"+paid), chromedp.WaitVisible("#refund-amount"),
			chromedp.SendKeys("#refund-amount", "20.00"), chromedp.Submit("#refund-amount"),
			chromedp.WaitVisible(browsertest.Page("payment")+" .problem")); err != nil {
			t.Fatalf("a refused refund: %v", err)
		}
		if p := text(t, refused, ".problem"); !strings.Contains(p, "at most 10.50 EUR") {
			t.Fatalf("problem %q", p)
		}
		fits(t, refused, "payment page with a refused refund")
	})
}
