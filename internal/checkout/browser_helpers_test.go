package checkout_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/bankrail/bankrail/internal/apptest"
	"github.com/bankrail/bankrail/internal/browsertest"
)

// browser starts a headless Chromium for the test, with JavaScript off (the
// pages must work without it), or skips the test when Chromium is not
// installed (see browsertest).
func browser(t *testing.T) context.Context { return browsertest.Start(t, false) }

// tab opens a new tab with a phone-sized viewport, closed with the test.
func tab(t *testing.T, browser context.Context) context.Context { return browsertest.Tab(t, browser) }

// steps runs actions with a time limit.
func steps(t *testing.T, ctx context.Context, what string, actions ...chromedp.Action[chromedp.Void]) {
	t.Helper()
	browsertest.Steps(t, ctx, what, actions...)
}

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

// shop is the merchant's site the payer returns to: it records the
// addresses it was called at.
type shop struct {
	*httptest.Server
	mu   sync.Mutex
	hits []string
}

func newShop(t *testing.T) *shop {
	s := &shop{}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		s.hits = append(s.hits, r.URL.String())
		s.mu.Unlock()
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		_, _ = w.Write([]byte(`<!doctype html><title>Shop</title><h1 id="shop">Back at the shop: ` + strings.TrimPrefix(r.URL.Path, "/") + `</h1>`))
	}))
	t.Cleanup(s.Close)
	return s
}

// returnURLs points every return URL of body at the shop, with a query string.
func (s *shop) returnURLs(body map[string]any, notifyURL string) map[string]any {
	urls := map[string]any{}
	for _, k := range []string{"success", "failure", "pending", "cancel"} {
		urls[k] = map[string]any{"url": s.URL + "/" + k}
	}
	return with(body, "communication", map[string]any{
		"notifications": map[string]any{"url": notifyURL},
		"return":        map[string]any{"urls": urls, "queryString": "order=42"},
	})
}

// notified waits for the gateway notification of payment with status and
// verifies its signature with the public receiver package.
func notified(t *testing.T, rc *apptest.Receiver, payment, status, detailed string) {
	t.Helper()
	apptest.Eventually(t, detailed+" notification", func() bool {
		for _, r := range rc.Got() {
			if g := verifyGateway(t, r); g != nil && g.Payment == payment && g.Status == status && g.DetailedStatus == detailed {
				return true
			}
		}
		return false
	})
}
