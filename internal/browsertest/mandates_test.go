package browsertest_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"

	"github.com/bankrail/bankrail/api"
	"github.com/bankrail/bankrail/internal/apptest"
	"github.com/bankrail/bankrail/internal/browsertest"
)

// v1 is the API version header of the mandate routes.
var v1 = map[string]string{"X-Service-Api-Version": "1"}

// call makes an API call that must answer want and decodes its body into out.
func call(t *testing.T, env *apptest.Env, token, method, path string, body, out any, want int) http.Header {
	t.Helper()
	resp := env.Do(t, apptest.Request{Method: method, Path: path, Token: token, Header: v1, Body: body})
	if resp.Status != want {
		t.Fatalf("%s %s: %d %s, want %d", method, path, resp.Status, resp.Body, want)
	}
	if out != nil {
		resp.JSON(t, out)
	}
	return resp.Header
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

// overflow is how many CSS pixels the page is wider than the window (in an
// isolated world: it works with JavaScript off).
func overflow(t *testing.T, ctx context.Context) int64 {
	t.Helper()
	c, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	n, err := chromedp.Run(c, chromedp.Action[int64](func(ctx context.Context, tg *chromedp.Target) (int64, error) {
		tree, err := cdp.Call(ctx, tg, page.GetFrameTree, cdp.Empty{})
		if err != nil {
			return 0, err
		}
		world, err := cdp.Call(ctx, tg, page.CreateIsolatedWorld, page.CreateIsolatedWorldParams{FrameID: tree.FrameTree.Frame.ID, WorldName: "fit"})
		if err != nil {
			return 0, err
		}
		return chromedp.Evaluate[int64](`document.documentElement.scrollWidth - window.innerWidth`,
			func(p *runtime.EvaluateParams) { p.ContextID = world.ExecutionContextID })(ctx, tg)
	}))
	if err != nil {
		t.Fatalf("measure the page: %v", err)
	}
	return n
}

// fits fails the test when the page scrolls sideways in the window.
func fits(t *testing.T, ctx context.Context, what string) {
	t.Helper()
	if n := overflow(t, ctx); n > 0 {
		t.Fatalf("%s: the page is %d px wider than the window", what, n)
	}
}

// noticed waits for the mandate notification typ at rc.
func noticed(t *testing.T, rc *apptest.Receiver, typ, status string) {
	t.Helper()
	apptest.Eventually(t, typ+" notification", func() bool {
		for _, r := range rc.Got() {
			var b struct{ Status string }
			if r.Header.Get("X-Service-Type") == typ && json.Unmarshal(r.Body, &b) == nil && b.Status == status {
				return true
			}
		}
		return false
	})
}

// The mock bank's mandate and amendment pages in a real browser with
// JavaScript off, on a phone-sized window and on a desktop one: the payer
// authorises a PayTo mandate, approves one amendment and declines another;
// the API and the notifications show each answer; a recalled amendment's
// link is 404.
func TestBrowserMandateAndAmendmentPages(t *testing.T) {
	t.Parallel()
	b := browsertest.Start(t, false)
	for _, size := range []struct {
		name          string
		width, height int64
	}{{"phone", browsertest.Width, browsertest.Height}, {"desktop", 1280, 800}} {
		t.Run(size.name, func(t *testing.T) {
			apptest.Each(t, func(t *testing.T, env *apptest.Env) {
				rc := apptest.NewReceiver(t)
				env.SetNotificationURL(t, apptest.Merchant, rc.URL)
				token := env.Token(t, apptest.Merchant)
				ctx := browsertest.Tab(t, b)
				browsertest.Steps(t, ctx, "size the window", chromedp.EmulateViewport(size.width, size.height))

				var m struct {
					ID               string `json:"id"`
					Status           string `json:"status"`
					AuthorisationURL string `json:"authorisationUrl"`
				}
				call(t, env, token, "POST", "/mandates", map[string]any{
					"type":     "PAYTO",
					"payer":    map[string]any{"name": "Ann Payer", "accountIdentifiers": map[string]any{"bsb": "062000", "accountNumber": "12345678"}},
					"validity": map[string]any{"to": "2027-06-01 00:00:00"},
					"payTo":    map[string]any{"limits": map[string]any{"payment": map[string]any{"amount": 5000}}},
				}, &m, 201)

				browsertest.Open(t, ctx, "open the authorisation link", m.AuthorisationURL, browsertest.Page("mandate")+` button[value="approve"]`)
				if got := text(t, ctx, "main"); !strings.Contains(got, "AUD 50.00") || !strings.Contains(got, "BSB 062000") || !strings.Contains(got, "2027-06-01 00:00:00") {
					t.Fatalf("authorisation page: %q", got)
				}
				fits(t, ctx, "authorisation page")
				browsertest.Follow(t, ctx, "authorise", browsertest.Page("mandate")+" .outcome", chromedp.Click(`button[value="approve"]`, chromedp.NodeVisible))
				if got := text(t, ctx, "h1"); got != "Agreement authorised" {
					t.Fatalf("after authorising: %q", got)
				}
				fits(t, ctx, "authorised page")
				call(t, env, token, "GET", "/mandates/"+m.ID, nil, &m, 200)
				if m.Status != "ACTIVE" {
					t.Fatalf("mandate after the page: %s", m.Status)
				}
				noticed(t, rc, "mandate_authorised", "ACTIVE")
				// The link again: the answer, no second form.
				browsertest.Open(t, ctx, "reopen the authorisation link", m.AuthorisationURL+"&again=1", browsertest.Page("mandate")+" .outcome")

				var a struct {
					ID          string `json:"id"`
					ApprovalURL string `json:"-"` // the Link header's rel="approval"
				}
				a.ApprovalURL = api.LinkTarget(call(t, env, token, "POST", "/mandates/"+m.ID+"/amendments", map[string]any{
					"validity": map[string]any{"to": "2028-01-01 00:00:00"},
					"payTo":    map[string]any{"limits": map[string]any{"payment": map[string]any{"amount": 7500}}},
				}, &a, 201), "approval")
				browsertest.Open(t, ctx, "open the amendment link", a.ApprovalURL, browsertest.Page("amendment")+` button[value="approve"]`)
				if got := text(t, ctx, `[data-term="Most per payment"]`); got != "AUD 75.00" {
					t.Fatalf("proposed limit: %q", got)
				}
				if got := text(t, ctx, "main"); !strings.Contains(got, "AUD 50.00") || !strings.Contains(got, "2028-01-01 00:00:00") {
					t.Fatalf("amendment page: %q", got)
				}
				fits(t, ctx, "amendment page")
				browsertest.Follow(t, ctx, "approve", browsertest.Page("amendment")+" .outcome", chromedp.Click(`button[value="approve"]`, chromedp.NodeVisible))
				if got := text(t, ctx, "h1"); got != "Change approved" {
					t.Fatalf("after approving: %q", got)
				}
				if got := text(t, ctx, "main"); !strings.Contains(got, "AUD 75.00") {
					t.Fatalf("terms after approving: %q", got)
				}
				var after struct {
					PayTo struct {
						Limits struct{ Payment struct{ Amount int64 } }
					}
				}
				call(t, env, token, "GET", "/mandates/"+m.ID, nil, &after, 200)
				if after.PayTo.Limits.Payment.Amount != 7500 {
					t.Fatalf("the approved amendment did not change the mandate: %+v", after)
				}
				noticed(t, rc, "mandate_amended", "APPROVED")

				a.ApprovalURL = api.LinkTarget(call(t, env, token, "POST", "/mandates/"+m.ID+"/amendments", map[string]any{
					"payTo": map[string]any{"limits": map[string]any{"payment": map[string]any{"amount": 100}}}}, &a, 201), "approval")
				browsertest.Open(t, ctx, "open the second amendment link", a.ApprovalURL, browsertest.Page("amendment")+` button[value="decline"]`)
				browsertest.Follow(t, ctx, "decline", browsertest.Page("amendment")+" .outcome", chromedp.Click(`button[value="decline"]`, chromedp.NodeVisible))
				if got := text(t, ctx, "h1"); got != "Change declined" {
					t.Fatalf("after declining: %q", got)
				}
				fits(t, ctx, "declined page")
				noticed(t, rc, "mandate_amendment_declined", "DECLINED")

				// A recalled amendment's link is gone (404 page).
				a.ApprovalURL = api.LinkTarget(call(t, env, token, "POST", "/mandates/"+m.ID+"/amendments", map[string]any{
					"validity": map[string]any{"to": "2029-01-01 00:00:00"}}, &a, 201), "approval")
				call(t, env, token, "POST", "/amendments/"+a.ID+"/recall", nil, nil, 204)
				resp, err := http.Get(a.ApprovalURL)
				if err != nil {
					t.Fatal(err)
				}
				page, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				if resp.StatusCode != http.StatusNotFound || !strings.Contains(string(page), "This amendment link is not valid.") {
					t.Fatalf("recalled amendment's link: %d %s", resp.StatusCode, page)
				}
			}, apptest.ServedAtPublicURL)
		})
	}
}
