package checkout_test

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/bankrail/bankrail/internal/apptest"
	"github.com/bankrail/bankrail/internal/browsertest"
	"github.com/bankrail/bankrail/notification"
)

// verifyGateway checks a received notification with the public helper and
// returns its gateway body (nil for other types).
func verifyGateway(t *testing.T, r apptest.Received) *notification.Gateway {
	t.Helper()
	req := httptest.NewRequest(http.MethodPost, "/hook", bytes.NewReader(r.Body))
	req.Header = r.Header
	n, err := notification.Verifier{Secret: apptest.NotificationSecrets[apptest.Merchant.ClientID]}.Read(req)
	if err != nil {
		t.Fatalf("notification does not verify: %v", err)
	}
	return n.Gateway
}

// landedAt checks that the browser is at the shop's path with the signed
// outcome.
func landedAt(t *testing.T, ctx context.Context, env *apptest.Env, s *shop, path, status, detailed string) {
	t.Helper()
	steps(t, ctx, "land at the shop", chromedp.WaitVisible("#shop"))
	loc, err := chromedp.Run(ctx, chromedp.Location())
	if err != nil {
		t.Fatal(err)
	}
	u, _ := url.Parse(loc)
	if !strings.HasPrefix(loc, s.URL+path+"?") || u.Query().Get("order") != "42" {
		t.Fatalf("landed at %s, want %s%s?order=42&...", loc, s.URL, path)
	}
	r, err := notification.VerifyReturn(apptest.NotificationSecrets["shop-client"], u.Query(), time.Minute, env.App.Clock().Now())
	if err != nil || r.Status != status || r.DetailedStatus != detailed {
		t.Fatalf("signed outcome %+v: %v", r, err)
	}
}

// The whole hosted checkout in a real browser without JavaScript: the API
// creates the payment, the payer opens redirect.url, searches and picks a
// bank, confirms, approves at the mock bank, lands on the success URL, and
// the merchant receives the signed COMPLETED notification.
func TestBrowserHostedCheckoutApproved(t *testing.T) {
	t.Parallel()
	b := browser(t)
	apptest.Each(t, func(t *testing.T, env *apptest.Env) {
		rc, s := apptest.NewReceiver(t), newShop(t)
		token := env.Token(t, apptest.Merchant)
		p := env.CreatePayment(t, token, "hosted", s.returnURLs(apptest.EUPayment(), rc.URL+"/hook"), nil)
		ctx := tab(t, b)

		browsertest.Open(t, ctx, "open the payment link", p.RedirectURL(), browsertest.Page("picker")+" #q")
		screenshot(t, ctx, "1-bank-picker.png")
		steps(t, ctx, "type the search", chromedp.SendKeys("#q", "volks"))
		browsertest.Follow(t, ctx, "search", browsertest.Page("picker")+" ul.banks", chromedp.Submit("#q"))
		if got := text(t, ctx, "ul.banks"); !strings.Contains(got, "Rheinische Volksbank") || strings.Contains(got, "Donau") {
			t.Fatalf("search results: %q", got)
		}
		screenshot(t, ctx, "2-bank-search.png")
		browsertest.Follow(t, ctx, "pick the bank", browsertest.Page("confirm")+" button.primary", chromedp.Click("a.bank", chromedp.NodeVisible))
		if got := text(t, ctx, "main"); !strings.Contains(got, "€10.50") || !strings.Contains(got, "Test Shop GmbH") || !strings.Contains(got, "2 books") {
			t.Fatalf("confirmation page: %q", got)
		}
		screenshot(t, ctx, "3-confirm.png")
		browsertest.Follow(t, ctx, "go to the bank", browsertest.Page("bank")+" #holder", chromedp.Click("button.primary", chromedp.NodeVisible))
		if got := text(t, ctx, "header"); !strings.Contains(got, "Rheinische Volksbank") {
			t.Fatalf("bank page header: %q", got)
		}
		notified(t, rc, p.ID, "PENDING", "BANK_REDIRECT")
		screenshot(t, ctx, "4-mock-bank.png")
		browsertest.Follow(t, ctx, "approve", "#shop", chromedp.Click(`button[value="COMPLETED"]`, chromedp.NodeVisible))
		landedAt(t, ctx, env, s, "/success", "COMPLETED", "COMPLETED")
		notified(t, rc, p.ID, "COMPLETED", "COMPLETED")
	}, apptest.ServedAtPublicURL)
}

// The bank refuses (hosted, the merchant's bank preselected) or the payer
// cancels (api channel: the link goes straight to the bank): the payer lands
// on the failure or cancel URL and FAILED is notified.
func TestBrowserRefusedOrCancelled(t *testing.T) {
	t.Parallel()
	b := browser(t)
	for _, tc := range []struct {
		channel, bank, button, path, detailed string
	}{
		{"hosted", apptest.BankAT, "REFUSED_BY_BANK", "/failure", "REFUSED_BY_BANK"},
		{"api", apptest.BankDE, "CANCELLED_BY_USER", "/cancel", "CANCELLED_BY_USER"},
	} {
		t.Run(tc.channel, func(t *testing.T) {
			apptest.Each(t, func(t *testing.T, env *apptest.Env) {
				rc, s := apptest.NewReceiver(t), newShop(t)
				body := s.returnURLs(apptest.EUPayment(), rc.URL+"/hook")
				body["openBankingEU"] = map[string]any{"institutionId": tc.bank}
				p := env.CreatePayment(t, env.Token(t, apptest.Merchant), tc.channel, body, nil)
				ctx := tab(t, b)
				if tc.channel == "hosted" {
					browsertest.Open(t, ctx, "open the payment link", p.RedirectURL(), browsertest.Page("confirm")+" button.primary")
					if got := text(t, ctx, "button.primary"); got != "Continue to Donau Bank" {
						t.Fatalf("the merchant's bank is not preselected: %q", got)
					}
					browsertest.Follow(t, ctx, "go to the bank", browsertest.Page("bank")+" #holder", chromedp.Click("button.primary", chromedp.NodeVisible))
				} else {
					browsertest.Open(t, ctx, "open the payment link", p.RedirectURL(), browsertest.Page("bank")+" #holder")
				}
				browsertest.Follow(t, ctx, "answer at the bank", "#shop", chromedp.Click(`button[value="`+tc.button+`"]`, chromedp.NodeVisible))
				landedAt(t, ctx, env, s, tc.path, "FAILED", tc.detailed)
				notified(t, rc, p.ID, "FAILED", tc.detailed)
			}, apptest.ServedAtPublicURL)
		})
	}
}

// Without return URLs the payer ends on bankrail's final page.
func TestBrowserFinalPage(t *testing.T) {
	t.Parallel()
	b := browser(t)
	env := apptest.New(t, apptest.ServedAtPublicURL)
	token := env.Token(t, apptest.Merchant)
	body := with(apptest.EUPayment(), "openBankingEU", map[string]any{"institutionId": apptest.BankDE})
	p := env.CreatePayment(t, token, "api", body, nil)
	ctx := tab(t, b)
	browsertest.Open(t, ctx, "open the payment link", p.RedirectURL(), browsertest.Page("bank")+" #holder")
	browsertest.Follow(t, ctx, "answer at the bank", browsertest.Page("done")+" .outcome",
		chromedp.Click(`button[value="DELAYED_AT_BANK>COMPLETED"]`, chromedp.NodeVisible))
	if got := text(t, ctx, "h1"); got != "Payment pending" {
		t.Fatalf("final page: %q", got)
	}
	screenshot(t, ctx, "5-final-page.png")
}

// In production no connector reaches the merchant's bank: after the
// confirmation the payer sees why on a page of the checkout and goes back
// to the merchant's failure URL with the signed ERROR_AT_BANK outcome.
func TestBrowserProductionBankUnreachable(t *testing.T) {
	t.Parallel()
	b := browser(t)
	env := apptest.New(t, apptest.Production, apptest.ServedAtPublicURL)
	s := newShop(t)
	body := s.returnURLs(apptest.EUPayment(), publicNotifyURL)
	body["openBankingEU"] = map[string]any{"type": "GOODS", "institutionId": apptest.BankDE}
	p := env.CreatePayment(t, env.Token(t, apptest.Merchant), "hosted", body, nil)
	ctx := tab(t, b)
	browsertest.Open(t, ctx, "open the payment link", p.RedirectURL(), browsertest.Page("confirm")+" button.primary")
	browsertest.Follow(t, ctx, "go to the bank", browsertest.Page("done")+" .outcome", chromedp.Click("button.primary", chromedp.NodeVisible))
	if got := text(t, ctx, "h1"); got != "Your bank is not available" {
		t.Fatalf("final page: %q", got)
	}
	if got := text(t, ctx, ".outcome p"); !strings.Contains(got, "Rheinische Volksbank cannot be reached") {
		t.Fatalf("final page text: %q", got)
	}
	screenshot(t, ctx, "6-bank-unavailable.png")
	browsertest.Follow(t, ctx, "back to the merchant", "#shop", chromedp.Click("a.button.primary", chromedp.NodeVisible))
	landedAt(t, ctx, env, s, "/failure", "FAILED", "ERROR_AT_BANK")
}
