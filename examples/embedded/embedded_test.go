package main

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/bankrail/bankrail/internal/apptest"
	"github.com/bankrail/bankrail/internal/browsertest"
	"github.com/bankrail/bankrail/notification"
)

// The example shop in a real browser with JavaScript: its page mounts the
// embedded checkout, the payer picks a bank and answers at the mock bank
// inside the frame, the shop's page gets the event, and the shop's
// notification endpoint receives the signed notification and verifies it
// with the public package.
func TestEmbeddedCheckoutInABrowser(t *testing.T) {
	t.Parallel()
	b := browsertest.Start(t, true)
	apptest.Each(t, func(t *testing.T, env *apptest.Env) {
		var sh *shop
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { sh.ServeHTTP(w, r) }))
		t.Cleanup(srv.Close)
		l := apptest.Merchant
		sh = newShop(config{Bankrail: env.URL, PublicURL: srv.URL, ClientID: l.ClientID, ClientSecret: l.ClientSecret,
			Username: l.Username, Password: l.Password, NotificationSecret: apptest.NotificationSecrets[l.ClientID]})

		for _, tc := range []struct {
			button, event, status, notified string
		}{
			{"COMPLETED", "success", "COMPLETED", notification.StatusCompleted},
			{"REFUSED_BY_BANK", "failure", "REFUSED_BY_BANK", notification.StatusFailed},
			{"CANCELLED_BY_USER", "cancel", "CANCELLED_BY_USER", notification.StatusFailed},
		} {
			ctx := browsertest.Tab(t, b)
			browsertest.Steps(t, ctx, "open the shop", chromedp.Navigate(srv.URL), chromedp.WaitVisible("iframe"))
			forgedMessageIgnored(t, ctx)
			inFrame(t, ctx, "pick a bank", "picker", "a.bank")
			inFrame(t, ctx, "confirm", "confirm", "button.primary")
			inFrame(t, ctx, "answer at the bank", "bank", `button[value="`+tc.button+`"]`)

			got := shown(t, ctx, tc.event)
			if got.Events != tc.event+": "+tc.status || got.Payment == "" {
				t.Fatalf("%s: the shop's page shows %+v", tc.button, got)
			}
			id := got.Payment
			apptest.Eventually(t, "the signed "+tc.notified+" notification", func() bool {
				sh.mu.Lock()
				defer sh.mu.Unlock()
				for _, g := range sh.verified {
					if g.Payment == id && g.Status == tc.notified && g.DetailedStatus == tc.status {
						return true
					}
				}
				return false
			})
		}
	}, apptest.ServedAtPublicURL)
}

// forgedMessageIgnored posts a checkout event from the shop's own window
// (not bankrail's frame): the library must not report it.
func forgedMessageIgnored(t *testing.T, ctx context.Context) {
	t.Helper()
	c, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	_, err := chromedp.Run(c, chromedp.Evaluate[bool](`(function () {
		var id = new URL(document.querySelector('iframe').src).pathname.split('/')[2];
		window.postMessage({source: 'bankrail', type: 'success', paymentId: id, status: 'COMPLETED'}, '*');
		return true;
	})()`))
	if err != nil {
		t.Fatal(err)
	}
	time.Sleep(200 * time.Millisecond) // the message is delivered asynchronously
	n, err := chromedp.Run(c, chromedp.Evaluate[int](`document.getElementById('events').children.length`))
	if err != nil || n != 0 {
		t.Fatalf("a message from another window was reported as an event (%d events, %v)", n, err)
	}
}

// inFrame waits until the checkout's iframe shows page (its data-page
// marker) with sel, checks the page (browsertest.Check), and clicks sel.
func inFrame(t *testing.T, ctx context.Context, what, page, sel string) {
	t.Helper()
	sel = browsertest.Page(page) + " " + sel
	deadline := time.Now().Add(20 * time.Second)
	for {
		// The frame's document changes with each page: find it anew.
		c, cancel := context.WithTimeout(ctx, 2*time.Second)
		frames, err := chromedp.Run(c, chromedp.Nodes("iframe"))
		if err == nil && len(frames) == 1 {
			err = chromedp.Do(c, chromedp.WaitVisible(sel, chromedp.FromNode(frames[0])))
		}
		cancel()
		if err == nil {
			browsertest.Check(t, ctx)
			browsertest.Steps(t, ctx, what, chromedp.Click(sel, chromedp.FromNode(frames[0])))
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: %s in the checkout frame: %v", what, sel, err)
		}
	}
}

// shopPage is what the shop's page shows once the checkout sent its event.
type shopPage struct {
	Events  string `json:"events"`  // the list of events received
	Payment string `json:"payment"` // the payment id of the event
}

// shown waits until the shop's page shows an event of type and returns
// what it shows.
func shown(t *testing.T, ctx context.Context, event string) shopPage {
	t.Helper()
	c, cancel := context.WithTimeout(ctx, 20*time.Second)
	defer cancel()
	p, err := chromedp.Run(c, chromedp.Poll[shopPage](`(function () {
		var r = document.querySelector('#result.`+event+`');
		return r && {events: document.getElementById('events').innerText.trim(), payment: r.getAttribute('data-payment')};
	})()`))
	if err != nil {
		t.Fatalf("waiting for the %s event in the shop's page: %v", event, err)
	}
	return p
}
