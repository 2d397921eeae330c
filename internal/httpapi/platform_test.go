package httpapi_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/bankrail/bankrail/internal/apptest"
)

// legacyBase is the base URL a payment platform is configured with: the
// legacy API's (docs/legacy.md, "Using bankrail with a payment platform").
const legacyBase = "/legacy"

// TestPaymentPlatformConnectorAtTheLegacyBase plays the whole conversation
// of a real client of the legacy API, Hyperswitch's connector for the
// provider (platformClient, built from its source), against one base URL,
// the legacy one, on both engines: a token (and a refused one), a payment
// created with the client's body, read until final while the payer pays,
// refunded, another one cancelled (and a cancel refused), and every
// notification verified and parsed the way the connector does.
func TestPaymentPlatformConnectorAtTheLegacyBase(t *testing.T) {
	t.Parallel()
	apptest.Each(t, func(t *testing.T, env *apptest.Env) {
		openAccount(t, env, apptest.ShopID, "GBP", "platform") // funds arrive here: the payment can be refunded
		rc := apptest.NewReceiver(t)
		env.SetNotificationURL(t, apptest.Merchant, rc.URL) // the platform's webhook URL, set once for the application
		c := &platformClient{env: env, base: legacyBase, auth: apptest.Merchant}

		// The token: JSON at {base}/oauth; a wrong password is an error the connector parses.
		if _, status, msg := c.getToken(t, "wrong"); status != http.StatusUnauthorized || msg == "" {
			t.Fatalf("wrong password: %d %q", status, msg)
		}
		token, _, _ := c.getToken(t, apptest.Merchant.Password)
		c.token = token

		// Authorize: the legacy body with first_name/last_name, no beneficiary (the Connect account).
		id, checkout := c.authorize(t, 1050, "GBP", "pay_attempt_1", "cus_1", "anna@example.com", "Anna", "Müller", "https://platform.example/return")
		if !strings.Contains(checkout, "/checkout/"+id+"?token=") {
			t.Fatalf("checkoutUrl %s", checkout)
		}

		// PSync until final; the payer pays at the bank after the first read.
		var final map[string]any
		for i := 0; final == nil; i++ {
			p := c.psync(t, id)
			if p["id"] != id || p["merchantInternalReference"] != "pay_attempt_1" || p["amount"] != float64(1050) || p["currency"] != "GBP" {
				t.Fatalf("read %d: %v", i, p)
			}
			switch st := attemptStatus(p["status"].(string)); {
			case st == "Charged" || st == "Failure":
				final = p
			case i == 0 && st == "AuthenticationPending":
				mustAuthorise(t, env, token, id, "COMPLETED") // the payer approves; the mock bank sends the funds
			case i > 3:
				t.Fatalf("not final after %d reads: %v", i, p)
			}
		}
		if final["status"] != "RECEIVED" {
			t.Fatalf("final %v, want RECEIVED (Charged)", final)
		}

		// Webhooks: the payment's notifications, verified and parsed as the connector does.
		events := platformEvents(t, rc, id, 3)
		if want := []string{"PaymentIntentProcessing", "PaymentIntentProcessing", "PaymentIntentSuccess"}; strings.Join(events, " ") != strings.Join(want, " ") {
			t.Fatalf("payment events %v, want %v", events, want)
		}

		// The shopper's first_name/last_name are the payer's name: the bank reports it as the sender's.
		received := platformNote(t, rc, func(b map[string]any) bool { return b["payment"] == id && b["status"] == "RECEIVED" })
		var connect struct{ Sender struct{ Name string } }
		if err := json.Unmarshal(received.Body, &connect); err != nil || connect.Sender.Name != "ANNA MÜLLER" {
			t.Fatalf("payment_received %s: %v", received.Body, err)
		}

		// Refund: the answer's id is the refund the notification names.
		refundID := c.refund(t, id, 300, "ref_1")
		note := platformNote(t, rc, func(b map[string]any) bool { return b["refund"] == refundID })
		if _, _, err := webhookObject(note.Body); err == nil || !strings.Contains(err.Error(), "unknown variant `CONFIRMED`") {
			t.Fatalf("the refund notification %s: %v; its status is the contract's CONFIRMED, which the connector's VoltWebhookRefundsStatus does not have (docs/legacy.md)", note.Body, err)
		}

		// Void: a payment not authorised yet is cancelled and notified; a received one is 409 with the reason.
		other, _ := c.authorize(t, 2000, "GBP", "pay_attempt_2", "cus_1", "anna@example.com", "Anna", "Müller", "https://platform.example/return")
		status, v, _ := c.void(t, other)
		if status != http.StatusOK || v["paymentId"] != other || v["status"] != "ABANDONED_BY_USER" || attemptStatus(v["status"].(string)) != "Failure" {
			t.Fatalf("void: %d %v", status, v)
		}
		if p := c.psync(t, other); p["status"] != "ABANDONED_BY_USER" {
			t.Fatalf("after the void %v", p)
		}
		if events := platformEvents(t, rc, other, 1); events[0] != "PaymentIntentFailure" {
			t.Fatalf("void events %v", events)
		}
		if status, _, reason := c.void(t, id); status != http.StatusConflict || !strings.Contains(reason, "has already ended (status RECEIVED)") {
			t.Fatalf("void of a received payment: %d %q", status, reason)
		}
	})
}

// platformNote waits for a notification whose body matches, checks its
// signature the way the connector does and returns it.
func platformNote(t *testing.T, rc *apptest.Receiver, match func(map[string]any) bool) apptest.Received {
	t.Helper()
	var got apptest.Received
	apptest.Eventually(t, "a notification", func() bool {
		for _, r := range rc.Got() {
			var b map[string]any
			if json.Unmarshal(r.Body, &b) == nil && match(b) {
				got = r
				return true
			}
		}
		return false
	})
	if !verifyWebhook(apptest.NotificationSecrets[apptest.Merchant.ClientID], got.Header, got.Body) {
		t.Fatalf("the connector refuses the signature of %s (headers %v)", got.Body, got.Header)
	}
	return got
}

// platformEvents waits for n notifications of payment id and returns the
// connector's event of each, in order of arrival, after checking each
// one's signature and its reference (get_webhook_object_reference_id: the
// merchantInternalReference, the attempt, when present).
func platformEvents(t *testing.T, rc *apptest.Receiver, id string, n int) []string {
	t.Helper()
	var notes []apptest.Received
	apptest.Eventually(t, "notifications of "+id, func() bool {
		notes = nil
		for _, r := range rc.Got() {
			var b map[string]any
			if json.Unmarshal(r.Body, &b) == nil && b["payment"] == id && b["refund"] == nil {
				notes = append(notes, r)
			}
		}
		return len(notes) >= n
	})
	var events []string
	for _, r := range notes {
		if !verifyWebhook(apptest.NotificationSecrets[apptest.Merchant.ClientID], r.Header, r.Body) {
			t.Fatalf("the connector refuses the signature of %s", r.Body)
		}
		variant, obj, err := webhookObject(r.Body)
		if err != nil || variant != "Payment" {
			t.Fatalf("the connector cannot parse %s: %v", r.Body, err)
		}
		if ref, _ := obj["merchantInternalReference"].(string); !strings.HasPrefix(ref, "pay_attempt_") {
			t.Fatalf("no attempt reference in %s", r.Body)
		}
		events = append(events, webhookEvent(variant, obj["status"].(string)))
	}
	return events
}
