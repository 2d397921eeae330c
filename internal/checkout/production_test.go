package checkout_test

import (
	"encoding/json"
	"html"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/bankrail/bankrail/internal/apptest"
	"github.com/bankrail/bankrail/internal/payment"
	"github.com/bankrail/bankrail/notification"
)

// publicNotifyURL is a notification URL production accepts (a public
// address); nothing has to answer there: the tests read the outbox.
const publicNotifyURL = "https://203.0.113.10/notify"

// backLink is the href of the final page's "Back to" button, unescaped, or
// "" when the page has none.
var backLink = regexp.MustCompile(`<a class="button primary" href="([^"]+)">Back to `)

// gatewayNotes are the gateway notifications queued for payment id, read
// through GET /notifications, as "status/detailedStatus", sorted.
func gatewayNotes(t *testing.T, env *apptest.Env, token, id string) []string {
	t.Helper()
	resp := env.Do(t, apptest.Request{Method: "GET", Path: "/notifications?paymentId=" + id, Token: token})
	if resp.Status != http.StatusOK {
		t.Fatalf("GET /notifications: %d %s", resp.Status, resp.Body)
	}
	var list []struct {
		Type string          `json:"type"`
		Body json.RawMessage `json:"body"`
	}
	resp.JSON(t, &list)
	var out []string
	for _, n := range list {
		var g notification.Gateway
		if err := json.Unmarshal(n.Body, &g); err != nil || n.Type != "gateway" || g.Payment != id {
			t.Fatalf("notification %s %s: %v", n.Type, n.Body, err)
		}
		out = append(out, g.Status+"/"+g.DetailedStatus)
	}
	slices.Sort(out)
	return out
}

// paymentRecord is the part of GET /payments/{id} these tests read.
type paymentRecord struct {
	Status        string `json:"status"`
	StatusUpdates []struct {
		NewStatus string `json:"newStatus"`
	} `json:"statusUpdates"`
}

// history is the payment's status and its statusUpdates, through the API.
func history(t *testing.T, env *apptest.Env, token, id string) (paymentRecord, string) {
	t.Helper()
	resp := env.Do(t, apptest.Request{Method: "GET", Path: "/payments/" + id, Token: token, Header: map[string]string{"X-Service-Api-Version": "1"}})
	if resp.Status != http.StatusOK {
		t.Fatalf("GET /payments/%s: %d %s", id, resp.Status, resp.Body)
	}
	var rec paymentRecord
	resp.JSON(t, &rec)
	var hist []string
	for _, u := range rec.StatusUpdates {
		hist = append(hist, u.NewStatus)
	}
	return rec, strings.Join(hist, " ")
}

// In production no connector reaches the banks: a payer who picks one is
// told so on a page of the checkout (with the way back to the merchant,
// signed), instead of being sent to a mock bank that does not exist there;
// the payment ends in ERROR_AT_BANK (through BANK_REDIRECT) with both
// notifications, and stays so when the payer clicks again or comes back;
// the page links neither the sandbox inbox nor the dashboard.
func TestProductionBankWithoutConnector(t *testing.T) {
	t.Parallel()
	failure := map[string]any{"failure": map[string]any{"url": "https://shop.example/ko"}, "cancel": map[string]any{"url": "https://shop.example/cancel"}}
	cancelOnly := map[string]any{"cancel": map[string]any{"url": "https://shop.example/cancel"}}
	for _, tc := range []struct {
		name, channel, institution string
		urls                       map[string]any
		back                       string // the merchant's path the page links to; "" for no link
		bankName                   string
	}{
		{"picker with return URLs", "hosted", "", failure, "/ko", "Donau Bank"},
		{"merchant's bank, cancel URL only", "hosted", apptest.BankDE, cancelOnly, "/cancel", "Rheinische Volksbank"},
		{"api channel without return URLs", "api", apptest.BankDE, nil, "", "Rheinische Volksbank"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			apptest.Each(t, func(t *testing.T, env *apptest.Env) {
				token := env.Token(t, apptest.Merchant)
				comm := map[string]any{"notifications": map[string]any{"url": publicNotifyURL}}
				if tc.urls != nil {
					comm["return"] = map[string]any{"urls": tc.urls, "queryString": "order=42"}
				}
				body := with(apptest.EUPayment(), "communication", comm)
				if tc.institution != "" {
					body["openBankingEU"] = map[string]any{"type": "GOODS", "institutionId": tc.institution}
				}
				p := env.CreatePayment(t, token, tc.channel, body, nil)
				tok := tokenOf(t, p.DirectURL())
				pr := newPayer(t, env)

				var final page
				var at string
				switch {
				case tc.channel == "api": // the link goes to the bank
					final, at = pr.follow(p.RedirectURL())
				case tc.institution == "": // the picker, then the confirmation of the chosen bank, then the bank
					pr.get(p.DirectURL()).must(t, http.StatusOK, "Choose your bank", tc.bankName)
					pr.get("/checkout/"+p.ID+"/confirm?"+url.Values{"token": {tok}, "bank": {apptest.BankAT}}.Encode()).
						must(t, http.StatusOK, "Continue to "+tc.bankName)
					toBank := pr.post("/checkout/"+p.ID+"/confirm", url.Values{"token": {tok}, "bank": {apptest.BankAT}})
					if toBank.Status != http.StatusSeeOther || !strings.HasPrefix(toBank.Location, "/checkout/"+p.ID+"/done?") {
						t.Fatalf("confirm: %d to %q, want 303 to the final page", toBank.Status, toBank.Location)
					}
					final, at = pr.follow(toBank.Location)
				default: // the merchant's bank: the confirmation page at once
					pr.get(p.DirectURL()).must(t, http.StatusOK, "Continue to "+tc.bankName)
					final, at = pr.follow(pr.post("/checkout/"+p.ID+"/confirm", url.Values{"token": {tok}, "bank": {tc.institution}}).Location)
				}
				if !strings.Contains(at, "/checkout/"+p.ID+"/done?") {
					t.Fatalf("the payer ended at %s", at)
				}
				final.must(t, http.StatusOK, `<meta name="viewport"`, `data-page="done"`, `role="status"`, "<h1>Your bank is not available</h1>",
					tc.bankName+" cannot be reached", "No money was taken", "€10.50", "Test Shop GmbH", `href="/checkout/static/checkout.css"`)
				if strings.Contains(final.Body, "Sandbox") || strings.Contains(final.Body, "/mock-banks/") || strings.Contains(final.Body, "/dashboard/") {
					t.Fatalf("the production page mentions the sandbox, a mock bank or the dashboard:\n%s", final.Body)
				}

				m := backLink.FindStringSubmatch(final.Body)
				switch {
				case tc.back == "" && m != nil:
					t.Fatalf("a link back without return URLs: %s", m[1])
				case tc.back != "" && m == nil:
					t.Fatalf("no link back to the merchant:\n%s", final.Body)
				case tc.back != "":
					u, err := url.Parse(html.UnescapeString(m[1]))
					if err != nil || u.Host != "shop.example" || u.Path != tc.back || u.Query().Get("order") != "42" {
						t.Fatalf("link back %s, want https://shop.example%s?order=42&...", m[1], tc.back)
					}
					r, err := notification.VerifyReturn(apptest.NotificationSecrets[apptest.Merchant.ClientID], u.Query(), time.Minute, env.App.Clock().Now())
					if err != nil || r.PaymentID != p.ID || r.Status != notification.StatusFailed || r.DetailedStatus != "ERROR_AT_BANK" {
						t.Fatalf("signed outcome %+v: %v", r, err)
					}
				}

				check := func(when string) {
					t.Helper()
					rec, hist := history(t, env, token, p.ID)
					if rec.Status != "ERROR_AT_BANK" || hist != "NEW_PAYMENT BANK_REDIRECT ERROR_AT_BANK" {
						t.Fatalf("%s: status %s, history %s", when, rec.Status, hist)
					}
					want := []string{"FAILED/ERROR_AT_BANK", "PENDING/BANK_REDIRECT"}
					if got := gatewayNotes(t, env, token, p.ID); !slices.Equal(got, want) {
						t.Fatalf("%s: notifications %v, want %v", when, got, want)
					}
				}
				check("after the bank choice")

				// A second click and the payer's link later change nothing and
				// show the same page.
				if tc.channel == "hosted" {
					bankID := tc.institution
					if bankID == "" {
						bankID = apptest.BankAT
					}
					again, _ := pr.follow(pr.post("/checkout/"+p.ID+"/confirm", url.Values{"token": {tok}, "bank": {bankID}}).Location)
					again.must(t, http.StatusOK, "Your bank is not available")
				}
				back, _ := pr.follow(p.DirectURL())
				back.must(t, http.StatusOK, "Your bank is not available")
				if statusOf(t, env, p.ID) != payment.UnreachableBankStatus {
					t.Fatal("the status moved")
				}
				check("after coming back")
			}, apptest.Production, apptest.ServedAtPublicURL)
		})
	}
}

// An embedded checkout in production tells the merchant's page the failure
// (its event) instead of offering a link back: the page runs in the
// merchant's frame.
func TestProductionEmbeddedBankWithoutConnector(t *testing.T) {
	t.Parallel()
	env := apptest.New(t, apptest.Production, apptest.ServedAtPublicURL)
	const shop = "https://shop.example"
	id, token := dropin(t, env, dropinBody(shop))
	pr := newPayer(t, env)
	bound := tokenOf(t, pr.get("/checkout/"+id+"/embed?"+url.Values{"token": {token}, "origin": {shop}}.Encode()).Location)
	final, at := pr.follow(pr.post("/checkout/"+id+"/confirm", url.Values{"token": {bound}, "bank": {apptest.BankDE}}).Location)
	if !strings.Contains(at, "/checkout/"+id+"/done?") {
		t.Fatalf("the payer ended at %s", at)
	}
	final.must(t, http.StatusOK, "Your bank is not available", `data-event="failure"`, `data-status="ERROR_AT_BANK"`,
		`data-origin="https://shop.example"`, `<script src="/checkout/static/embed.js">`)
	framedBy(t, final, shop)
	if backLink.MatchString(final.Body) {
		t.Fatal("an embedded page links away from the merchant's page")
	}
	if st := statusOf(t, env, id); st != payment.UnreachableBankStatus {
		t.Fatalf("status %s", st)
	}
}
