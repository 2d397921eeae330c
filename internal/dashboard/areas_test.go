package dashboard_test

import (
	"context"
	"fmt"
	"maps"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/bankrail/bankrail/internal/apptest"
)

// applicationID is the id of the fixture application of l.
func applicationID(t *testing.T, env *apptest.Env, l apptest.Login) string {
	t.Helper()
	a, err := env.App.Store().GetApplicationByClientID(context.Background(), l.ClientID)
	if err != nil {
		t.Fatal(err)
	}
	return a.ID
}

// mandateBody is a PayTo mandate request of payer.
func mandateBody(payer string) map[string]any {
	return map[string]any{
		"type":     "PAYTO",
		"payer":    map[string]any{"name": payer, "accountIdentifiers": map[string]any{"bsb": "062000", "accountNumber": "12345678"}},
		"validity": map[string]any{"to": "2027-06-01 00:00:00"},
		"payTo":    map[string]any{"limits": map[string]any{"payment": map[string]any{"amount": 5000}}},
	}
}

// createMandate creates a mandate through the API and returns its id.
func createMandate(t testing.TB, env *apptest.Env, token, payer string) string {
	t.Helper()
	resp := env.Do(t, apptest.Request{Method: "POST", Path: "/mandates", Token: token, Header: v1, Body: mandateBody(payer)})
	if resp.Status != http.StatusCreated {
		t.Fatalf("create mandate: %d %s", resp.Status, resp.Body)
	}
	var m struct{ ID string }
	resp.JSON(t, &m)
	return m.ID
}

// amendMandate asks for an amendment of mandate id and returns its id.
func amendMandate(t testing.TB, env *apptest.Env, token, id string, limit int) string {
	t.Helper()
	resp := env.Do(t, apptest.Request{Method: "POST", Path: "/mandates/" + id + "/amendments", Token: token, Header: v1,
		Body: map[string]any{"payTo": map[string]any{"limits": map[string]any{"payment": map[string]any{"amount": limit}}}}})
	if resp.Status != http.StatusCreated {
		t.Fatalf("amend mandate: %d %s", resp.Status, resp.Body)
	}
	var a struct{ ID string }
	resp.JSON(t, &a)
	return a.ID
}

// createChannel opens a USDC channel with reference and one deposit of
// 125.5 USDC; it returns the channel's id.
func createChannel(t testing.TB, env *apptest.Env, token, reference string) string {
	t.Helper()
	resp := env.Do(t, apptest.Request{Method: "POST", Path: "/channels", Token: token, Header: v1, Body: map[string]any{
		"token": "USDC", "network": "ETH", "currency": "EUR", "endUser": map[string]any{"reference": reference}}})
	if resp.Status != http.StatusCreated {
		t.Fatalf("create channel: %d %s", resp.Status, resp.Body)
	}
	var c struct{ ID string }
	resp.JSON(t, &c)
	resp = env.Do(t, apptest.Request{Method: "POST", Path: "/sandbox/channels/" + c.ID + "/deposits", Token: token, Body: map[string]any{"amount": "125.5"}})
	if resp.Status != http.StatusCreated {
		t.Fatalf("deposit: %d %s", resp.Status, resp.Body)
	}
	return c.ID
}

// TestApplicationsPage: the applications of the customer; an
// application's notification URL is set (and refused when it is not an
// http(s) URL) and its notification secret rotated, shown once.
func TestApplicationsPage(t *testing.T) {
	t.Parallel()
	apptest.Each(t, func(t *testing.T, env *apptest.Env) {
		c := signIn(t, env, apptest.Merchant)
		list := c.open("/dashboard/applications")
		id := applicationID(t, env, apptest.Merchant)
		contains(t, "applications", list.Body, apptest.Merchant.ClientID, `/dashboard/applications/`+id+`"`)
		lacks(t, "applications", list.Body, apptest.OtherMerch.ClientID, apptest.PSPAdmin.ClientID)
		// A PSP sees its own applications and its merchant's, not an
		// unrelated merchant's.
		psp := signIn(t, env, apptest.PSPAdmin)
		pspList := psp.open("/dashboard/applications").Body
		contains(t, "a PSP's applications", pspList, apptest.PSPAdmin.ClientID, apptest.Merchant.ClientID,
			`/dashboard/applications/`+id+`"`)
		lacks(t, "a PSP's applications", pspList, apptest.OtherMerch.ClientID)
		contains(t, "the merchant's application from the PSP's list", psp.open("/dashboard/applications/"+id).Body,
			"Application "+apptest.Merchant.ClientID)
		p := c.open("/dashboard/applications/" + id)
		contains(t, "application", p.Body, "Application "+apptest.Merchant.ClientID, "Save the URL", "Rotate the secret")

		loc := c.act("/dashboard/applications/"+id+"/notification-url", url.Values{"url": {"https://hooks.example.com/bankrail"}})
		contains(t, "saved URL", c.open(loc).Body, "https://hooks.example.com/bankrail", "The notification URL was saved")
		a, err := env.App.Store().GetApplication(context.Background(), id)
		if err != nil || a.NotificationURL != "https://hooks.example.com/bankrail" {
			t.Fatalf("stored %q, %v", a.NotificationURL, err)
		}
		if got := strings.Join(auditActions(t, env, apptest.ShopID), ","); !strings.Contains(got, "POST /dashboard/applications/{id}/notification-url") {
			t.Fatalf("audit log %s", got)
		}
		for _, bad := range []string{"ftp://hooks.example.com", "not a url", "/relative"} {
			p := c.post("/dashboard/applications/"+id+"/notification-url", url.Values{"url": {bad}})
			if p.Status != http.StatusUnprocessableEntity {
				t.Fatalf("URL %q: %d", bad, p.Status)
			}
			contains(t, "refused URL", p.Body, "notificationUrl must be an absolute http or https URL")
		}

		before := a.NotificationSecret
		p = c.post("/dashboard/applications/"+id+"/rotate-secret", url.Values{"overlap": {"3600"}})
		if p.Status != http.StatusOK {
			t.Fatalf("rotate: %d\n%s", p.Status, mainOf(p.Body))
		}
		secret := regexp.MustCompile(`class="new-secret">([0-9a-f]+)<`).FindStringSubmatch(p.Body)
		if secret == nil {
			t.Fatalf("no new secret:\n%s", mainOf(p.Body))
		}
		a, _ = env.App.Store().GetApplication(context.Background(), id)
		if a.NotificationSecret != secret[1] || a.NotificationSecret == before {
			t.Fatalf("stored secret %q, shown %q, before %q", a.NotificationSecret, secret[1], before)
		}
		contains(t, "rotated", p.Body, "still signs until", "2026-06-01 10:00:00 UTC", "It is not shown again.")
		again := c.open("/dashboard/applications/" + id)
		lacks(t, "the page after", again.Body, secret[1])
		contains(t, "the page after", again.Body, "still signs until", "2026-06-01 10:00:00 UTC")
		if p := c.post("/dashboard/applications/"+id+"/rotate-secret", url.Values{"overlap": {"-1"}}); p.Status != http.StatusUnprocessableEntity {
			t.Fatalf("overlap -1: %d", p.Status)
		}
	})
}

// TestMandatePage: a mandate's page with its history and amendments; in
// the sandbox the payer's answers are buttons: authorise the mandate,
// approve one amendment, decline another.
func TestMandatePage(t *testing.T) {
	t.Parallel()
	apptest.Each(t, func(t *testing.T, env *apptest.Env) {
		token := env.Token(t, apptest.Merchant)
		id := createMandate(t, env, token, "Ann Payer")
		c := signIn(t, env, apptest.Merchant)
		contains(t, "mandates", c.open("/dashboard/mandates").Body, `href="/dashboard/mandates/`+id+`"`)
		p := c.open("/dashboard/mandates/" + id)
		contains(t, "requested mandate", p.Body, "Mandate of Ann Payer", "REQUESTED", "mandate_requested", "No amendments.",
			`action="/dashboard/mandates/`+id+`/authorise"`)
		if p := c.post("/dashboard/mandates/"+id+"/authorise", url.Values{"outcome": {"MAYBE"}}); p.Status != http.StatusUnprocessableEntity {
			t.Fatalf("unknown outcome: %d", p.Status)
		}
		loc := c.act("/dashboard/mandates/"+id+"/authorise", url.Values{"outcome": {"AUTHORISED"}})
		p = c.open(loc)
		contains(t, "authorised mandate", p.Body, "ACTIVE", "mandate_authorised", "The payer&#39;s answer was played.")
		lacks(t, "authorised mandate", p.Body, `/authorise"`)

		first := amendMandate(t, env, token, id, 7000)
		p = c.open("/dashboard/mandates/" + id)
		contains(t, "amendment", p.Body, "AWAITING_APPROVAL", "per payment 70.00 AUD", `/dashboard/amendments/`+first+`/approve`)
		c.act("/dashboard/amendments/"+first+"/approve", nil)
		second := amendMandate(t, env, token, id, 9000)
		c.act("/dashboard/amendments/"+second+"/decline", nil)
		p = c.open("/dashboard/mandates/" + id)
		contains(t, "answered amendments", p.Body, "APPROVED", "DECLINED", "70.00 AUD", "The payer approved the amendment")
		lacks(t, "answered amendments", p.Body, "/approve", "/decline")
		// An answered amendment cannot be answered again: the page says why.
		if p := c.post("/dashboard/amendments/"+first+"/decline", nil); p.Status != http.StatusConflict {
			t.Fatalf("answer again: %d", p.Status)
		}
	})
}

// TestChannelPage: a stablecoin channel's page with its deposits.
func TestChannelPage(t *testing.T) {
	t.Parallel()
	apptest.Each(t, func(t *testing.T, env *apptest.Env) {
		token := env.Token(t, apptest.Merchant)
		id := createChannel(t, env, token, "user-42")
		c := signIn(t, env, apptest.Merchant)
		contains(t, "channels", c.open("/dashboard/channels").Body, `href="/dashboard/channels/`+id+`"`)
		p := c.open("/dashboard/channels/" + id)
		contains(t, "channel", p.Body, "Channel USDC on ETH", "user-42", "125.500000 USDC", "PROCESSING")
		lacks(t, "one page of deposits", p.Body, `rel="next"`, `rel="prev"`)

		// 101 deposits: a full first page, then the 101st on page 2.
		for i := range 100 {
			resp := env.Do(t, apptest.Request{Method: "POST", Path: "/sandbox/channels/" + id + "/deposits", Token: token,
				Body: map[string]any{"amount": fmt.Sprintf("%d.25", i+1)}})
			if resp.Status != http.StatusCreated {
				t.Fatalf("deposit %d: %d %s", i, resp.Status, resp.Body)
			}
		}
		deposits := func(body string) int { return strings.Count(body, `<tr><td class="num">`) }
		p = c.open("/dashboard/channels/" + id)
		if n := deposits(p.Body); n != 100 {
			t.Fatalf("page 1: %d deposits, want 100", n)
		}
		contains(t, "page 1", p.Body, `href="/dashboard/channels/`+id+`?page=2" rel="next"`, "125.500000 USDC")
		lacks(t, "page 1", p.Body, `rel="prev"`, "100.250000 USDC")
		p = c.open("/dashboard/channels/" + id + "?page=2")
		if n := deposits(p.Body); n != 1 {
			t.Fatalf("page 2: %d deposits, want 1", n)
		}
		contains(t, "page 2", p.Body, `href="/dashboard/channels/`+id+`?page=1" rel="prev"`, "100.250000 USDC")
		lacks(t, "page 2", p.Body, `rel="next"`)
		contains(t, "page 3", c.open("/dashboard/channels/"+id+"?page=3").Body, "No deposits on this page.")
	})
}

// TestSandboxConsole: the webhook chaos of the customer's application is
// set from the sandbox page (and refused out of range); the reset of the
// ADMIN's own customer tree is behind a confirmation page, leaves another
// tenant's data and the sessions alone, and is not for a merchant.
func TestSandboxConsole(t *testing.T) {
	t.Parallel()
	apptest.Each(t, func(t *testing.T, env *apptest.Env) {
		token := env.Token(t, apptest.Merchant)
		c := signIn(t, env, apptest.Merchant)
		id := applicationID(t, env, apptest.Merchant)
		p := c.open("/dashboard/clock")
		contains(t, "sandbox page", p.Body, "Webhook chaos of "+apptest.Merchant.ClientID, `action="/dashboard/applications/`+id+`/chaos"`)
		lacks(t, "merchant's sandbox page", p.Body, "/dashboard/sandbox/reset")
		c.act("/dashboard/applications/"+id+"/chaos", url.Values{"duplicatePercent": {"10"}, "delayPercent": {"20"}, "delaySeconds": {"30"}, "seed": {"7"}})
		var chaos struct{ DuplicatePercent, DelayPercent, DelaySeconds, Seed int64 }
		env.Do(t, apptest.Request{Method: "GET", Path: "/sandbox/notification-chaos", Token: token, Header: v1}).JSON(t, &chaos)
		if chaos.DuplicatePercent != 10 || chaos.DelayPercent != 20 || chaos.DelaySeconds != 30 || chaos.Seed != 7 {
			t.Fatalf("chaos %+v", chaos)
		}
		contains(t, "chaos on", c.open("/dashboard/clock?done=chaos").Body, "The webhook chaos settings were saved.", ">ON<")
		for _, bad := range []url.Values{{"duplicatePercent": {"101"}}, {"delayPercent": {"x"}}, {"delayPercent": {"5"}}} {
			p := c.post("/dashboard/applications/"+id+"/chaos", bad)
			if p.Status != http.StatusUnprocessableEntity {
				t.Fatalf("%v: %d", bad, p.Status)
			}
			contains(t, "refused chaos", p.Body, `class="problem"`)
		}
		// Reset: not for a merchant.
		for _, req := range []func() page{func() page { return c.get("/dashboard/sandbox/reset") },
			func() page { return c.post("/dashboard/sandbox/reset", url.Values{"confirm": {"reset"}}) }} {
			if p := req(); p.Status != http.StatusForbidden {
				t.Fatalf("a merchant's reset: %d", p.Status)
			}
		}
		paymentID := createPayment(t, env, token, "before-reset", nil, nil)
		theirs := createPayment(t, env, env.Token(t, apptest.OtherMerch), "another tenant's", nil, nil)
		admin := signIn(t, env, apptest.PSPAdmin)
		contains(t, "admin's sandbox page", admin.open("/dashboard/clock").Body, `href="/dashboard/sandbox/reset"`)
		contains(t, "confirmation", admin.open("/dashboard/sandbox/reset").Body, "Reset the sandbox?", `name="confirm" value="reset"`)
		if p := admin.post("/dashboard/sandbox/reset", nil); p.Status != http.StatusUnprocessableEntity {
			t.Fatalf("reset without confirming: %d", p.Status)
		}
		admin.open("/dashboard/payments/" + paymentID) // nothing was reset
		p = admin.post("/dashboard/sandbox/reset", url.Values{"confirm": {"reset"}})
		if p.Status != http.StatusSeeOther || p.Location != "/dashboard/clock?done=tree-reset" {
			t.Fatalf("reset: %d to %q\n%s", p.Status, p.Location, mainOf(p.Body))
		}
		contains(t, "after the reset", admin.open(p.Location).Body, "back at its seed state; other customers&#39; is untouched")
		if p := admin.get("/dashboard/payments/" + paymentID); p.Status != http.StatusNotFound {
			t.Fatalf("a payment after the reset: %d", p.Status)
		}
		other := signIn(t, env, apptest.OtherMerch)
		other.open("/dashboard/payments/" + theirs) // another tenant's payment is still there
	})
}

// TestNewPagesSecurity: the applications, mandates and channels pages and
// the sandbox console's forms: CSRF missing or wrong is refused, another
// merchant's records are 404 read or acted on, READ_ONLY sees no action
// and its forged ones are 403, and names holding markup are shown
// escaped.
func TestNewPagesSecurity(t *testing.T) {
	t.Parallel()
	apptest.Each(t, func(t *testing.T, env *apptest.Env) {
		const evil = `<script>alert(1)</script>`
		token := env.Token(t, apptest.Merchant)
		mandateID := createMandate(t, env, token, evil)
		channelID := createChannel(t, env, token, evil)
		appID := applicationID(t, env, apptest.Merchant)
		shop := signIn(t, env, apptest.Merchant)
		posts := []struct {
			path string
			form url.Values
		}{
			{"/dashboard/applications/" + appID + "/notification-url", url.Values{"url": {"https://evil.test/"}}},
			{"/dashboard/applications/" + appID + "/rotate-secret", url.Values{"overlap": {"0"}}},
			{"/dashboard/applications/" + appID + "/chaos", url.Values{"duplicatePercent": {"100"}}},
			{"/dashboard/mandates/" + mandateID + "/authorise", url.Values{"outcome": {"DECLINED"}}},
		}
		unchanged := func(what string) {
			t.Helper()
			a, _ := env.App.Store().GetApplication(context.Background(), appID)
			if a.NotificationURL == "https://evil.test/" || a.NotificationSecret != apptest.NotificationSecrets[apptest.Merchant.ClientID] {
				t.Fatalf("%s changed the application: %+v", what, a)
			}
			contains(t, what, shop.open("/dashboard/mandates/"+mandateID).Body, "REQUESTED")
			contains(t, what, shop.open("/dashboard/clock").Body, `name="duplicatePercent" type="number" min="0" max="100" step="1" inputmode="numeric" value="0"`)
		}
		env.SetNotificationURL(t, apptest.Merchant, "") // its stored secret is the fixture's
		good := shop.csrf
		for _, f := range posts {
			for name, token := range map[string]string{"missing": "", "wrong": wrongToken(good)} {
				form := url.Values{"csrf": {token}}
				for k, v := range f.form {
					form[k] = v
				}
				if p := shop.post(f.path, form); p.Status != http.StatusForbidden {
					t.Fatalf("%s token on %s: %d", name, f.path, p.Status)
				}
			}
		}
		shop.csrf = good
		unchanged("a refused token")

		other := signIn(t, env, apptest.OtherMerch)
		for _, path := range []string{"/dashboard/applications/" + appID, "/dashboard/mandates/" + mandateID, "/dashboard/channels/" + channelID,
			"/dashboard/applications/not-a-uuid", "/dashboard/mandates/nope", "/dashboard/channels/nope"} {
			if p := other.get(path); p.Status != http.StatusNotFound {
				t.Fatalf("another merchant's %s: %d", path, p.Status)
			}
		}
		lacks(t, "another merchant's applications", other.open("/dashboard/applications").Body, apptest.Merchant.ClientID)
		lacks(t, "another merchant's mandates", other.open("/dashboard/mandates").Body, mandateID)
		for _, f := range posts {
			if p := other.post(f.path, maps.Clone(f.form)); p.Status != http.StatusNotFound {
				t.Fatalf("another merchant's POST %s: %d", f.path, p.Status)
			}
		}
		unchanged("another merchant")

		viewer := signIn(t, env, apptest.Viewer)
		for _, path := range []string{"/dashboard/applications/" + appID, "/dashboard/mandates/" + mandateID} {
			p := viewer.open(path)
			lacks(t, "READ_ONLY "+path, mainOf(p.Body), "<form", "<button")
		}
		if p := viewer.get("/dashboard/clock"); p.Status != http.StatusForbidden {
			t.Fatalf("READ_ONLY sandbox page: %d", p.Status)
		}
		viewer.open("/dashboard/applications/" + appID)
		for _, f := range posts {
			p := viewer.post(f.path, maps.Clone(f.form))
			if p.Status != http.StatusForbidden {
				t.Fatalf("READ_ONLY POST %s: %d", f.path, p.Status)
			}
			contains(t, f.path, p.Body, "Your role READ_ONLY may not do this; nothing was done.")
		}
		unchanged("READ_ONLY")

		for _, path := range []string{"/dashboard/mandates", "/dashboard/mandates/" + mandateID, "/dashboard/channels", "/dashboard/channels/" + channelID} {
			body := strings.ToLower(shop.open(path).Body)
			if strings.Contains(body, "<script") {
				t.Fatalf("%s reflects markup:\n%s", path, mainOf(body))
			}
			contains(t, path, body, "&lt;script&gt;alert(1)&lt;/script&gt;")
		}
	})
}
