package checkout_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"bankrail/internal/apptest"
)

// chromiumPath is Debian's Chromium, the browser of the browser tests.
const chromiumPath = "/usr/bin/chromium"

// browser starts a headless Chromium for the test, with JavaScript off (the
// pages must work without it), or skips the test when Chromium is not
// installed; with BANKRAIL_REQUIRE_CHROMIUM=1 (CI) a missing Chromium fails.
func browser(t *testing.T) context.Context {
	t.Helper()
	path := chromiumPath
	if _, err := os.Stat(path); err != nil {
		if p, err := exec.LookPath("chromium"); err == nil {
			path = p
		} else if os.Getenv("BANKRAIL_REQUIRE_CHROMIUM") == "1" {
			t.Fatalf("Chromium is required (BANKRAIL_REQUIRE_CHROMIUM=1) but %s is missing: apt-get install chromium", chromiumPath)
		} else {
			t.Skipf("browser test skipped: Chromium is not installed (apt-get install chromium); set BANKRAIL_REQUIRE_CHROMIUM=1 to make this a failure")
		}
	}
	alloc, cancelAlloc := chromedp.NewExecAllocator(context.Background(),
		chromedp.ExecPath(path), chromedp.Headless, chromedp.NoSandbox, chromedp.DisableGPU, chromedp.NoFirstRun,
		chromedp.NoDefaultBrowserCheck, chromedp.UserDataDir(t.TempDir()),
		chromedp.Flag("disable-background-networking", true), chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true), chromedp.Flag("blink-settings", "scriptEnabled=false"),
		chromedp.WindowSize(412, 915))
	ctx, cancel := chromedp.NewContext(alloc)
	t.Cleanup(func() { cancel(); cancelAlloc() })
	if err := chromedp.Do(ctx); err != nil { // starts the browser
		t.Fatalf("start Chromium: %v", err)
	}
	return ctx
}

// tab opens a new tab with a phone-sized viewport, closed with the test.
func tab(t *testing.T, browser context.Context) context.Context {
	t.Helper()
	ctx, cancel := chromedp.NewContext(browser)
	t.Cleanup(cancel)
	if err := chromedp.Do(ctx, chromedp.EmulateViewport(412, 915)); err != nil {
		t.Fatal(err)
	}
	return ctx
}

// steps runs actions with a time limit.
func steps(t *testing.T, ctx context.Context, what string, actions ...chromedp.Action[chromedp.Void]) {
	t.Helper()
	c, cancel := context.WithTimeout(ctx, 20*time.Second)
	defer cancel()
	if err := chromedp.Do(c, actions...); err != nil {
		t.Fatalf("%s: %v", what, err)
	}
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
