// Package browsertest starts the headless Chromium of the browser tests
// (chromedp). Without Chromium a test is skipped, unless
// BANKRAIL_REQUIRE_CHROMIUM=1 (CI), where it fails.
package browsertest

import (
	"context"
	"os"
	"os/exec"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// ChromiumPath is Debian's Chromium, the browser of the browser tests.
const ChromiumPath = "/usr/bin/chromium"

// Width and Height are the phone-sized viewport of every tab.
const (
	Width  = 390
	Height = 844
)

// Start starts a headless Chromium for the test, closed with it; scripts
// run only when javascript is true. It skips the test when Chromium is not
// installed, or fails it when BANKRAIL_REQUIRE_CHROMIUM=1.
func Start(t *testing.T, javascript bool) context.Context {
	t.Helper()
	path := ChromiumPath
	if _, err := os.Stat(path); err != nil {
		if p, err := exec.LookPath("chromium"); err == nil {
			path = p
		} else if os.Getenv("BANKRAIL_REQUIRE_CHROMIUM") == "1" {
			t.Fatalf("Chromium is required (BANKRAIL_REQUIRE_CHROMIUM=1) but %s is missing: apt-get install chromium", ChromiumPath)
		} else {
			t.Skipf("browser test skipped: Chromium is not installed (apt-get install chromium); set BANKRAIL_REQUIRE_CHROMIUM=1 to make this a failure")
		}
	}
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(path), chromedp.Headless, chromedp.NoSandbox, chromedp.DisableGPU, chromedp.NoFirstRun,
		chromedp.NoDefaultBrowserCheck, chromedp.UserDataDir(t.TempDir()),
		chromedp.Flag("disable-background-networking", true), chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true), chromedp.WindowSize(Width, Height),
	}
	if !javascript {
		opts = append(opts, chromedp.Flag("blink-settings", "scriptEnabled=false"))
	}
	alloc, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancel := chromedp.NewContext(alloc)
	t.Cleanup(func() { cancel(); cancelAlloc() })
	if err := chromedp.Do(ctx); err != nil { // starts the browser
		t.Fatalf("start Chromium: %v", err)
	}
	return ctx
}

// Tab opens a new tab with the phone-sized viewport, closed with the test.
// The tab is watched: Steps, Open, Follow and the end of the test fail it
// when the tab logged an error to its console (console.error, an uncaught
// exception, a resource that did not load), and Open, Follow, Check and the
// end of the test when an image of the page did not load.
func Tab(t *testing.T, browser context.Context) context.Context {
	t.Helper()
	ctx, cancel := chromedp.NewContext(browser)
	t.Cleanup(cancel)
	w := &watch{}
	ctx = context.WithValue(ctx, watchKey{}, w)
	if err := chromedp.Do(ctx, chromedp.EmulateViewport(Width, Height)); err != nil {
		t.Fatal(err)
	}
	if err := w.listen(ctx); err != nil {
		t.Fatalf("listen to the console: %v", err)
	}
	t.Cleanup(func() { // before cancel: the last page is checked too
		c, cancel := context.WithTimeout(ctx, 20*time.Second)
		defer cancel()
		if err := w.checkImages(c); err != nil && !t.Failed() {
			t.Errorf("check the last page: %v", err)
		}
		w.fail(t, false)
	})
	return ctx
}

// Steps runs actions within 20 seconds, failing the test with what on error
// or when the tab logged an error meanwhile (see Tab).
func Steps(t *testing.T, ctx context.Context, what string, actions ...chromedp.Action[chromedp.Void]) {
	t.Helper()
	c, cancel := context.WithTimeout(ctx, 20*time.Second)
	defer cancel()
	if err := chromedp.Do(c, actions...); err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	if w := watchOf(ctx); w != nil {
		w.fail(t, true)
	}
}
