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

	"bankrail/internal/apptest"
	"bankrail/notification"
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

		steps(t, ctx, "open the payment link", chromedp.Navigate(p.RedirectURL()), chromedp.WaitVisible("#q"))
		screenshot(t, ctx, "1-bank-picker.png")
		steps(t, ctx, "search", chromedp.SendKeys("#q", "volks"), chromedp.Submit("#q"), chromedp.WaitVisible("ul.banks"))
		if got := text(t, ctx, "ul.banks"); !strings.Contains(got, "Rheinische Volksbank") || strings.Contains(got, "Donau") {
			t.Fatalf("search results: %q", got)
		}
		screenshot(t, ctx, "2-bank-search.png")
		steps(t, ctx, "pick the bank", chromedp.Click("a.bank", chromedp.NodeVisible), chromedp.WaitVisible("button.primary"))
		if got := text(t, ctx, "main"); !strings.Contains(got, "€10.50") || !strings.Contains(got, "Test Shop GmbH") || !strings.Contains(got, "2 books") {
			t.Fatalf("confirmation page: %q", got)
		}
		screenshot(t, ctx, "3-confirm.png")
		steps(t, ctx, "go to the bank", chromedp.Click("button.primary", chromedp.NodeVisible), chromedp.WaitVisible("#holder"))
		if got := text(t, ctx, "header"); !strings.Contains(got, "Rheinische Volksbank") {
			t.Fatalf("bank page header: %q", got)
		}
		notified(t, rc, p.ID, "PENDING", "BANK_REDIRECT")
		screenshot(t, ctx, "4-mock-bank.png")
		steps(t, ctx, "approve", chromedp.Click(`button[value="COMPLETED"]`, chromedp.NodeVisible))
		landedAt(t, ctx, env, s, "/success", "COMPLETED", "COMPLETED")
		notified(t, rc, p.ID, "COMPLETED", "COMPLETED")
	}, apptest.ServedAtPublicURL)
}

// The bank refuses: the payer lands on the failure URL; FAILED is notified.
func TestBrowserBankRefuses(t *testing.T) {
	t.Parallel()
	b := browser(t)
	apptest.Each(t, func(t *testing.T, env *apptest.Env) {
		rc, s := apptest.NewReceiver(t), newShop(t)
		token := env.Token(t, apptest.Merchant)
		body := s.returnURLs(apptest.EUPayment(), rc.URL+"/hook")
		body["openBankingEU"] = map[string]any{"institutionId": apptest.BankAT}
		p := env.CreatePayment(t, token, "hosted", body, nil)
		ctx := tab(t, b)
		steps(t, ctx, "open the payment link", chromedp.Navigate(p.RedirectURL()), chromedp.WaitVisible("button.primary"))
		if got := text(t, ctx, "button.primary"); got != "Continue to Donau Bank" {
			t.Fatalf("the merchant's bank is not preselected: %q", got)
		}
		steps(t, ctx, "go to the bank", chromedp.Click("button.primary", chromedp.NodeVisible), chromedp.WaitVisible("#holder"))
		steps(t, ctx, "reject", chromedp.Click(`button[value="REFUSED_BY_BANK"]`, chromedp.NodeVisible))
		landedAt(t, ctx, env, s, "/failure", "FAILED", "REFUSED_BY_BANK")
		notified(t, rc, p.ID, "FAILED", "REFUSED_BY_BANK")
	}, apptest.ServedAtPublicURL)
}

// On the api channel the link goes straight to the bank; the payer cancels
// and lands on the cancel URL; FAILED/CANCELLED_BY_USER is notified.
func TestBrowserPayerCancels(t *testing.T) {
	t.Parallel()
	b := browser(t)
	apptest.Each(t, func(t *testing.T, env *apptest.Env) {
		rc, s := apptest.NewReceiver(t), newShop(t)
		token := env.Token(t, apptest.Merchant)
		body := s.returnURLs(apptest.EUPayment(), rc.URL+"/hook")
		body["openBankingEU"] = map[string]any{"institutionId": apptest.BankDE}
		p := env.CreatePayment(t, token, "api", body, nil)
		ctx := tab(t, b)
		steps(t, ctx, "open the payment link", chromedp.Navigate(p.RedirectURL()), chromedp.WaitVisible("#holder"))
		steps(t, ctx, "cancel", chromedp.Click(`button[value="CANCELLED_BY_USER"]`, chromedp.NodeVisible))
		landedAt(t, ctx, env, s, "/cancel", "FAILED", "CANCELLED_BY_USER")
		notified(t, rc, p.ID, "FAILED", "CANCELLED_BY_USER")
	}, apptest.ServedAtPublicURL)
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
	steps(t, ctx, "open the payment link", chromedp.Navigate(p.RedirectURL()), chromedp.WaitVisible("#holder"),
		chromedp.Click(`button[value="DELAYED_AT_BANK>COMPLETED"]`, chromedp.NodeVisible), chromedp.WaitVisible(".outcome"))
	if got := text(t, ctx, "h1"); got != "Payment pending" {
		t.Fatalf("final page: %q", got)
	}
	screenshot(t, ctx, "5-final-page.png")
}
