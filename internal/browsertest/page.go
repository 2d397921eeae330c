package browsertest

import (
	"context"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// Page is the selector of the marker of bankrail's payer page name: its
// <body data-page="name"> (picker, confirm, bank, done, error).
func Page(name string) string { return `body[data-page="` + name + `"]` }

// Open loads url in the tab and waits for marker, a selector only the
// expected page has (see Page); then it checks the page (Check).
func Open(t *testing.T, ctx context.Context, what, url, marker string) {
	t.Helper()
	Steps(t, ctx, what, chromedp.Navigate(url), chromedp.WaitVisible(marker))
	Check(t, ctx)
}

// Follow runs actions that lead to another page (a click on a link, a form
// submitted), waits until the browser has loaded the new document and shows
// marker, then checks the page (Check). Waiting for the navigation, not for
// an element, keeps the test from acting on the page it leaves.
func Follow(t *testing.T, ctx context.Context, what, marker string, actions ...chromedp.Action[chromedp.Void]) {
	t.Helper()
	c, cancel := context.WithTimeout(ctx, 20*time.Second)
	defer cancel()
	if _, err := chromedp.RunResponse(c, actions...); err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	Steps(t, ctx, what, chromedp.WaitVisible(marker))
	Check(t, ctx)
}

// Check fails the test when an image of the tab's page (in any frame) did
// not load, or when the tab logged an error to its console. It waits until
// every frame has loaded.
func Check(t *testing.T, ctx context.Context) {
	t.Helper()
	w := watchOf(ctx)
	if w == nil {
		t.Fatal("browsertest.Check: not a tab of browsertest.Tab")
	}
	c, cancel := context.WithTimeout(ctx, 20*time.Second)
	defer cancel()
	if err := w.checkImages(c); err != nil {
		t.Fatalf("check the page: %v", err)
	}
	w.fail(t, true)
}
