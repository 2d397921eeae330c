package dashboard_test

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/network"
	cdppage "github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"

	"github.com/bankrail/bankrail/internal/apptest"
	"github.com/bankrail/bankrail/internal/browsertest"
	"github.com/bankrail/bankrail/internal/camt/camttest"
)

// TestAccessibilityOperatorPages runs axe-core, as TestAccessibility does,
// on the operator's pages, filled, on a phone and on a desktop, in
// production: the statements with a summary, the exceptions open (with
// the resolution form), resolved and all, the transfer files and the
// result of the bank's answer; then, in a tab the harness does not watch
// (their status is 4xx), a refused statement file and a refused note. No
// serious or critical violation.
func TestAccessibilityOperatorPages(t *testing.T) {
	t.Parallel()
	b := browsertest.Start(t, true)
	env := apptest.New(t, apptest.Production)
	f := seedOperator(t, env)
	acct := openAccount(t, env, apptest.ShopID, "EUR", "Payouts EUR")
	c := signInAt(t, env, apptest.Operator, "/dashboard/statements")
	for _, doc := range []string{operatorStatement(acct.IBAN), camttest.String(54, 8, "FEE-2", camttest.Stmt{IBAN: acct.IBAN,
		Entries: []camttest.Entry{{AcctSvcrRef: "F2", Minor: 150, Txs: []camttest.Tx{{Name: "Card fee", Ustrd: []string{"fee <b>11/2026</b>"}}}}}})} {
		if p := c.upload("/dashboard/statements", nil, "day.xml", []byte(doc), nil); p.Status != http.StatusSeeOther {
			t.Fatalf("import: %d\n%s", p.Status, mainOf(p.Body))
		}
	}
	resolve := exceptionForm(t, c, "Card fee")
	c.act(resolve, map[string][]string{"note": {"card fee, booked"}})

	bypassCSP := chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
		_, err := cdp.Call(ctx, tg, cdppage.SetBypassCSP, cdppage.SetBypassCSPParams{Enabled: true})
		return err
	})
	// Each window starts signed out: the tabs share the browser's cookies,
	// and a window that failed did not sign out.
	signedOut := chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
		_, err := cdp.Call(ctx, tg, network.ClearBrowserCookies, cdp.Empty{})
		return err
	})
	for _, size := range sizes {
		t.Run(size.name, func(t *testing.T) {
			ctx := browsertest.Tab(t, b)
			browsertest.Steps(t, ctx, "size the window, sign out and allow axe", chromedp.EmulateViewport(size.width, size.height), signedOut, bypassCSP)
			signInTo(t, ctx, env, apptest.Operator, browsertest.Page("statements")+" #statement-file")
			for _, p := range []struct{ what, path, marker string }{
				{"the statements", "/dashboard/statements", "statements"},
				{"the open exceptions", "/dashboard/reconciliation-exceptions", "exceptions"},
				{"the resolved exceptions", "/dashboard/reconciliation-exceptions?status=RESOLVED", "exceptions"},
				{"all exceptions", "/dashboard/reconciliation-exceptions?status=ALL", "exceptions"},
				{"the transfer files", "/dashboard/transfer-files", "transferfiles"},
			} {
				browsertest.Open(t, ctx, p.what, env.URL+p.path, browsertest.Page(p.marker)+" h1")
				axeCheck(t, ctx, p.what)
			}
			browsertest.Steps(t, ctx, "choose the answer", chromedp.SetUploadFiles("#status-file", []string{f.answer}))
			browsertest.Follow(t, ctx, "import the answer", browsertest.Page("transferfiles")+" section.result", chromedp.Submit("#status-file"))
			axeCheck(t, ctx, "the answer's result")

			raw, cancel := chromedp.NewContext(b)
			defer cancel()
			if err := chromedp.Do(raw); err != nil {
				t.Fatal(err)
			}
			run := func(what string, actions ...chromedp.Action[chromedp.Void]) {
				t.Helper()
				c, cancel := context.WithTimeout(raw, 20*time.Second)
				defer cancel()
				if err := chromedp.Do(c, actions...); err != nil {
					t.Fatalf("%s: %v", what, err)
				}
			}
			run("size the unwatched tab and allow axe", chromedp.EmulateViewport(size.width, size.height), bypassCSP)
			run("a refused file", chromedp.Navigate(env.URL+"/dashboard/statements"), chromedp.WaitVisible("#statement-file"),
				chromedp.SetUploadFiles("#statement-file", []string{f.notCamt}), chromedp.Submit("#statement-file"),
				chromedp.WaitVisible(browsertest.Page("statements")+" .problem"))
			axeCheck(t, raw, "a refused statement file")
			run("an empty note", chromedp.Navigate(env.URL+"/dashboard/reconciliation-exceptions"), chromedp.WaitVisible("article.exception textarea"),
				chromedp.SendKeys("article.exception textarea", " "), chromedp.Submit("article.exception textarea"),
				chromedp.WaitVisible(browsertest.Page("exceptions")+" .problem"))
			axeCheck(t, raw, "a refused note")
		})
	}
}
