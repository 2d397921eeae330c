package httpapi_test

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/bankrail/bankrail/internal/apptest"
	"github.com/bankrail/bankrail/internal/store"
	"github.com/bankrail/bankrail/notification"
)

// mandatePaymentRecord is the part of the Global record of a payment
// against a mandate the tests read.
type mandatePaymentRecord struct {
	ID            string  `json:"id"`
	Status        string  `json:"status"`
	Currency      string  `json:"currency"`
	Amount        int64   `json:"amount"`
	PaymentSystem string  `json:"paymentSystem"`
	TransferType  string  `json:"transferType"`
	MandateID     *string `json:"mandateId"`
	Sender        *struct {
		Name string `json:"name"`
	} `json:"sender"`
	Beneficiary struct {
		AccountIdentifiers struct {
			IBAN string `json:"iban"`
		} `json:"accountIdentifiers"`
	} `json:"beneficiary"`
	PaymentInitiationFlow struct {
		Status  string `json:"status"`
		Details struct {
			Reason   string          `json:"reason"`
			Redirect json.RawMessage `json:"redirect"`
		} `json:"details"`
	} `json:"paymentInitiationFlow"`
}

// payAgainst sends POST /payments with body on the api channel (plus
// header), as the merchant.
func payAgainst(t *testing.T, env *apptest.Env, token string, body map[string]any, header map[string]string) *apptest.Response {
	t.Helper()
	h := map[string]string{"X-Service-Api-Version": "1", "X-Service-Initiation-Channel": "api"}
	for k, v := range header {
		h[k] = v
	}
	return env.Do(t, apptest.Request{Method: "POST", Path: "/payments", Token: token, Header: h, Body: body})
}

// mandatePayment is the smallest body of a payment against mandate id.
func mandatePayment(id string, amount int64) map[string]any {
	return map[string]any{"mandateId": id, "amount": amount, "internalReference": "invoice 42"}
}

// mustPayAgainst pays amount against mandate id and returns the record.
func mustPayAgainst(t *testing.T, env *apptest.Env, token, id string, amount int64, header map[string]string) mandatePaymentRecord {
	t.Helper()
	resp := payAgainst(t, env, token, mandatePayment(id, amount), header)
	if resp.Status != http.StatusCreated {
		t.Fatalf("pay %d against %s: %d %s", amount, id, resp.Status, resp.Body)
	}
	var p mandatePaymentRecord
	resp.JSON(t, &p)
	return p
}

// paymentStatus reads a payment's status from GET /payments/{id}.
func paymentStatus(t *testing.T, env *apptest.Env, token, id string) string {
	t.Helper()
	resp := env.Do(t, apptest.Request{Method: "GET", Path: "/payments/" + id, Token: token})
	if resp.Status != 200 {
		t.Fatalf("read payment %s: %d %s", id, resp.Status, resp.Body)
	}
	var d struct {
		Status string `json:"status"`
	}
	resp.JSON(t, &d)
	return d.Status
}

// TestMandatePayment takes a payment against a PayTo and a VRP mandate:
// no redirect, the mandate's currency, payment system and payer, the
// Connect account as the receiving account, usedAt set, the notifications
// of the moves at the bank signed and in order, the funds on the account.
func TestMandatePayment(t *testing.T) {
	t.Parallel()
	apptest.Each(t, func(t *testing.T, env *apptest.Env) {
		rc := apptest.NewReceiver(t)
		token := env.Token(t, apptest.Merchant)
		aud := openAccount(t, env, apptest.ShopID, "AUD", "au")
		gbp := openAccount(t, env, apptest.ShopID, "GBP", "uk")
		env.SetNotificationURL(t, apptest.Merchant, rc.URL)
		payTo := mustActiveMandate(t, env, token, payToBody())
		vrp := mustActiveMandate(t, env, token, vrpBody())

		for _, tc := range []struct {
			mandate                    mandateRecord
			account                    string
			iban                       string
			currency, system, transfer string
			amount                     int64
			payer                      string
		}{
			{payTo, aud.ID, aud.IBAN, "AUD", "NPP_PAY_TO_AU", "NPP", 5000, "Ann Payer"}, // at the limit exactly
			{vrp, gbp.ID, gbp.IBAN, "GBP", "OPEN_BANKING_UK", "Faster Payments", 123456, "Bo Payer"},
		} {
			p := mustPayAgainst(t, env, token, tc.mandate.ID, tc.amount, nil)
			if p.Status != "NEW_PAYMENT" || p.MandateID == nil || *p.MandateID != tc.mandate.ID || p.Currency != tc.currency ||
				p.PaymentSystem != tc.system || p.TransferType != tc.transfer || p.Amount != tc.amount ||
				p.Sender == nil || p.Sender.Name != tc.payer || p.Beneficiary.AccountIdentifiers.IBAN != tc.iban ||
				p.PaymentInitiationFlow.Status != "PROCESSING" || p.PaymentInitiationFlow.Details.Reason != "SUBMITTED_TO_BANK" ||
				string(p.PaymentInitiationFlow.Details.Redirect) != "null" {
				t.Fatalf("payment against %s: %+v", tc.mandate.Type, p)
			}
			// No payer step, so no payment link: its short code leads nowhere.
			if code := shortCodeOf(t, env, p.ID); code == "" {
				t.Fatalf("payment against %s has no short code", tc.mandate.Type)
			} else {
				env.Do(t, apptest.Request{Method: "GET", Path: "/c/" + code}).Error(t, http.StatusNotFound, "RESOURCE_NOT_FOUND")
			}
			// Straight at the bank: the sandbox's bank takes it and sends the funds.
			if st := paymentStatus(t, env, token, p.ID); st != "RECEIVED" {
				t.Fatalf("payment against %s: %s, want RECEIVED", tc.mandate.Type, st)
			}
			if got := accountBalance(t, env, token, tc.account).Balance.Available; got != tc.amount {
				t.Fatalf("%s account holds %d, want %d", tc.currency, got, tc.amount)
			}
			got := mandateCall(t, env, token, "GET", "/mandates/"+tc.mandate.ID, nil, 200)
			if got.UsedAt == nil || got.Status != "ACTIVE" {
				t.Fatalf("mandate after its first payment: %+v", got)
			}
			// A second payment keeps the first usedAt.
			mustPayAgainst(t, env, token, tc.mandate.ID, 1, nil)
			if again := mandateCall(t, env, token, "GET", "/mandates/"+tc.mandate.ID, nil, 200); !again.UsedAt.Equal(*got.UsedAt) {
				t.Fatalf("usedAt moved from %s to %s", got.UsedAt, again.UsedAt)
			}
		}
		// Per payment, in order: PENDING at the bank, COMPLETED, then the
		// funds (payment_received); each signed.
		perPayment := map[string][]string{}
		for _, r := range rc.WaitFor(t, 2+12) {
			if err := notification.Verify(apptest.NotificationSecrets[apptest.Merchant.ClientID], r.Header, r.Body); err != nil {
				t.Fatalf("notification %s: %v", r.Body, err)
			}
			var n struct {
				Payment        string `json:"payment"`
				Status         string `json:"status"`
				DetailedStatus string `json:"detailedStatus"`
			}
			if err := json.Unmarshal(r.Body, &n); err != nil {
				t.Fatal(err)
			}
			typ := r.Header.Get("X-Service-Type")
			if strings.HasPrefix(typ, "mandate_") {
				continue // the two authorisations
			}
			if typ == "" {
				typ = "gateway"
			}
			perPayment[n.Payment] = append(perPayment[n.Payment], typ+" "+n.Status+" "+n.DetailedStatus)
		}
		want := "gateway PENDING BANK_REDIRECT,gateway COMPLETED COMPLETED,payment_received RECEIVED "
		for id, got := range perPayment {
			if strings.Join(got, ",") != want {
				t.Fatalf("notifications of %s: %v, want %s", id, got, want)
			}
		}
		if len(perPayment) != 4 {
			t.Fatalf("notifications of %d payments, want 4", len(perPayment))
		}
	})
}

// TestMandatePaymentRules: every rule of a payment against a mandate, its
// exact code and property path, and that a refused payment leaves the
// mandate unused.
func TestMandatePaymentRules(t *testing.T) {
	t.Parallel()
	apptest.Each(t, func(t *testing.T, env *apptest.Env) {
		token := env.Token(t, apptest.Merchant)
		openAccount(t, env, apptest.ShopID, "AUD", "au")
		active := mustActiveMandate(t, env, token, payToBody())
		vrpNoAccount := mustActiveMandate(t, env, token, vrpBody()) // the shop has no GBP account
		requested := mustCreateMandate(t, env, token, payToBody())
		suspended := mustActiveMandate(t, env, token, payToBody())
		mandateCall(t, env, token, "POST", "/mandates/"+suspended.ID+"/suspend", nil, 200)
		cancelled := mustActiveMandate(t, env, token, payToBody())
		mandateCall(t, env, token, "POST", "/mandates/"+cancelled.ID+"/cancel", nil, 200)
		declined := mustCreateMandate(t, env, token, payToBody())
		mandateCall(t, env, token, "POST", "/sandbox/mandates/"+declined.ID+"/authorise", map[string]string{"outcome": "DECLINED"}, 200)
		future := payToBody()
		future["validity"] = map[string]any{"from": "2026-07-01 00:00:00"} // the epoch is 2026-06-01 09:00:00
		notYet := mustActiveMandate(t, env, token, future)
		soon := payToBody()
		soon["validity"] = map[string]any{"to": "2026-06-02 09:00:00"}
		expired := mustActiveMandate(t, env, token, soon)
		theirs := mustActiveMandate(t, env, env.Token(t, apptest.OtherMerch), payToBody())

		with := func(id string, edit func(b map[string]any)) map[string]any {
			b := mandatePayment(id, 2500)
			edit(b)
			return b
		}
		same := func(map[string]any) {}
		tests := []struct {
			name string
			body map[string]any
			want []string // "TYPE path"
		}{
			{"mandateId not a uuid", with("mandate-1", same), []string{"INVALID_FORMAT mandateId"}},
			{"empty mandateId", with("", same), []string{"INVALID_FORMAT mandateId"}},
			{"no such mandate", with("0192f0c1-7a2b-7c3d-8e4f-5a6b7c8d9e0f", same), []string{"INVALID_VALUE mandateId"}},
			{"another merchant's mandate", with(theirs.ID, same), []string{"INVALID_VALUE mandateId"}},
			{"REQUESTED", with(requested.ID, same), []string{"INVALID_VALUE mandateId"}},
			{"SUSPENDED", with(suspended.ID, same), []string{"INVALID_VALUE mandateId"}},
			{"CANCELLED", with(cancelled.ID, same), []string{"INVALID_VALUE mandateId"}},
			{"DECLINED", with(declined.ID, same), []string{"INVALID_VALUE mandateId"}},
			{"before validity.from", with(notYet.ID, same), []string{"INVALID_VALUE mandateId"}},
			{"above the payment limit", with(active.ID, func(b map[string]any) { b["amount"] = 5001 }), []string{"TOO_HIGH amount"}},
			{"another currency", with(active.ID, func(b map[string]any) { b["currency"] = "GBP" }), []string{"INVALID_VALUE currency"}},
			{"not a currency", with(active.ID, func(b map[string]any) { b["currency"] = "XXY" }), []string{"INVALID_VALUE currency"}},
			{"another payment system", with(active.ID, func(b map[string]any) { b["paymentSystem"] = "OPEN_BANKING_UK" }), []string{"INVALID_VALUE paymentSystem"}},
			{"no amount", with(active.ID, func(b map[string]any) { delete(b, "amount") }), []string{"VALUE_REQUIRED amount"}},
			{"amount 0", with(active.ID, func(b map[string]any) { b["amount"] = 0 }), []string{"TOO_LOW amount"}},
			{"no internalReference", with(active.ID, func(b map[string]any) { delete(b, "internalReference") }), []string{"VALUE_REQUIRED internalReference"}},
			{"paymentReference too long for the scheme", with(vrpNoAccount.ID, func(b map[string]any) { b["paymentReference"] = strings.Repeat("A", 19) }),
				[]string{"INVALID_VALUE mandateId", "TOO_LONG paymentReference"}},
			{"a payer, a beneficiary and a bank", with(active.ID, func(b map[string]any) {
				b["payer"] = map[string]any{"firstName": "Ann"}
				b["beneficiary"] = map[string]any{"name": "Shop"}
				b["openBankingUK"] = map[string]any{"type": "BILL"}
			}), []string{"FIELD_NOT_ALLOWED payer", "FIELD_NOT_ALLOWED beneficiary", "FIELD_NOT_ALLOWED openBankingUK"}},
			{"no Connect account in the mandate's currency", with(vrpNoAccount.ID, same), []string{"INVALID_VALUE mandateId"}},
			{"everything at once", with(active.ID, func(b map[string]any) {
				b["amount"], b["currency"], b["paymentSystem"], b["internalReference"] = 9999, "EUR", "OPEN_BANKING_EU", ""
			}), []string{"VALUE_REQUIRED internalReference", "INVALID_VALUE currency", "INVALID_VALUE paymentSystem", "TOO_HIGH amount"}},
		}
		for _, tc := range tests {
			t.Run(tc.name, func(t *testing.T) {
				e := payAgainst(t, env, token, tc.body, nil).Error(t, 422, "VALIDATION_FAILURE")
				if got := fieldList(e); strings.Join(got, ",") != strings.Join(tc.want, ",") {
					t.Fatalf("errors %v, want %v", got, tc.want)
				}
			})
		}
		// The PSP above sees the shop's mandate, but its payments are the shop's own.
		psp := env.Token(t, apptest.PSPAdmin)
		e := payAgainst(t, env, psp, mandatePayment(active.ID, 1), nil).Error(t, 422, "VALIDATION_FAILURE")
		if got := fieldList(e); strings.Join(got, ",") != "INVALID_VALUE mandateId" {
			t.Fatalf("the PSP's payment: %v", got)
		}
		// Expired on the clock: refused, and the mandate reads EXPIRED.
		advanceClock(t, env, token, int64(24*time.Hour/time.Second))
		token = env.Token(t, apptest.Merchant)
		e = payAgainst(t, env, token, mandatePayment(expired.ID, 1), nil).Error(t, 422, "VALIDATION_FAILURE")
		if got := fieldList(e); strings.Join(got, ",") != "INVALID_VALUE mandateId" {
			t.Fatalf("expired: %v", got)
		}
		if got := mandateCall(t, env, token, "GET", "/mandates/"+expired.ID, nil, 200); got.Status != "EXPIRED" {
			t.Fatalf("expired mandate reads %+v", got)
		}
		// Headers: the hosted channel and the payer's scenarios do not apply.
		payAgainst(t, env, token, mandatePayment(active.ID, 1), map[string]string{"X-Service-Initiation-Channel": "hosted"}).Error(t, 400, "INVALID_HTTP_HEADER")
		for _, sc := range []string{"CANCELLED_BY_USER", "ABANDONED_BY_USER"} {
			payAgainst(t, env, token, mandatePayment(active.ID, 1), map[string]string{"X-Service-Testing-Scenario": sc}).Error(t, 400, "INVALID_HTTP_HEADER")
		}
		// An amendment of validity.from awaits the payer on the unused mandate: 409.
		mustAmend(t, env, token, active.ID, map[string]any{"validity": map[string]any{"from": "2026-06-05 00:00:00"}})
		payAgainst(t, env, token, mandatePayment(active.ID, 1), nil).Error(t, 409, "CONFLICT")
		// Nothing refused used a mandate.
		for _, m := range []mandateRecord{active, requested, suspended, cancelled, declined, notYet, expired, vrpNoAccount} {
			if got := mandateCall(t, env, token, "GET", "/mandates/"+m.ID, nil, 200); got.UsedAt != nil {
				t.Fatalf("mandate %s used by a refused payment: %+v", m.ID, got)
			}
		}
	})
}

// TestMandatePaymentScenarios: a payment against a mandate reaches every
// final status through the sandbox's scenarios (and the magic amount 2050),
// the timed ones on the clock.
func TestMandatePaymentScenarios(t *testing.T) {
	t.Parallel()
	apptest.Each(t, func(t *testing.T, env *apptest.Env) {
		rc := apptest.NewReceiver(t)
		env.SetNotificationURL(t, apptest.Merchant, rc.URL)
		token := env.Token(t, apptest.Merchant)
		openAccount(t, env, apptest.ShopID, "GBP", "uk")
		m := mustActiveMandate(t, env, token, vrpBody())
		const (
			atBank    = "PENDING BANK_REDIRECT"
			completed = "COMPLETED COMPLETED"
			received  = "payment_received RECEIVED"
			missing   = "payment_not_received NOT_RECEIVED"
			delayed   = "PENDING DELAYED_AT_BANK"
		)
		tests := []struct {
			scenario string
			amount   int64
			now      string   // the status right after creation
			later    string   // after the bank's delay, or the scheme's timeframe
			notices  []string // in order: gateway "status detailedStatus", else "type status"
		}{
			{"", 100, "RECEIVED", "RECEIVED", []string{atBank, completed, received}},
			{"COMPLETED", 100, "RECEIVED", "RECEIVED", []string{atBank, completed, received}},
			{"", 2050, "NOT_RECEIVED", "NOT_RECEIVED", []string{atBank, completed, missing}},
			{"COMPLETED>NOT_RECEIVED", 100, "COMPLETED", "NOT_RECEIVED", []string{atBank, completed, missing}},
			{"REFUSED_BY_BANK", 100, "REFUSED_BY_BANK", "REFUSED_BY_BANK", []string{atBank, "FAILED REFUSED_BY_BANK"}},
			{"ERROR_AT_BANK", 100, "ERROR_AT_BANK", "ERROR_AT_BANK", []string{atBank, "FAILED ERROR_AT_BANK"}},
			{"REFUSED_BY_RISK", 100, "REFUSED_BY_RISK", "REFUSED_BY_RISK", []string{"FAILED REFUSED_BY_RISK"}},
			{"DELAYED_AT_BANK>COMPLETED", 100, "DELAYED_AT_BANK", "RECEIVED", []string{atBank, delayed, completed, received}},
			{"DELAYED_AT_BANK>REFUSED_BY_BANK", 100, "DELAYED_AT_BANK", "REFUSED_BY_BANK", []string{atBank, delayed, "FAILED REFUSED_BY_BANK"}},
		}
		ids := make([]string, len(tests))
		for i, tc := range tests {
			var h map[string]string
			if tc.scenario != "" {
				h = map[string]string{"X-Service-Testing-Scenario": tc.scenario}
			}
			ids[i] = mustPayAgainst(t, env, token, m.ID, tc.amount, h).ID
			if got := paymentStatus(t, env, token, ids[i]); got != tc.now {
				t.Fatalf("%q %d: %s, want %s", tc.scenario, tc.amount, got, tc.now)
			}
		}
		advanceClock(t, env, token, int64(25*time.Hour/time.Second)) // past the bank's delay and Faster Payments' one day
		token = env.Token(t, apptest.Merchant)
		for i, tc := range tests { // the timed moves are the worker's
			apptest.Eventually(t, tc.scenario+" later: "+tc.later, func() bool { return paymentStatus(t, env, token, ids[i]) == tc.later })
		}
		want, total := map[string]string{}, 1 // and mandate_authorised
		for i, tc := range tests {
			want[ids[i]] = strings.Join(tc.notices, ",")
			total += len(tc.notices)
		}
		got := map[string][]string{}
		for _, r := range rc.WaitFor(t, total) {
			if err := notification.Verify(apptest.NotificationSecrets[apptest.Merchant.ClientID], r.Header, r.Body); err != nil {
				t.Fatalf("notification %s: %v", r.Body, err)
			}
			var n struct{ Payment, Status, DetailedStatus string }
			if err := json.Unmarshal(r.Body, &n); err != nil {
				t.Fatal(err)
			}
			switch typ := r.Header.Get("X-Service-Type"); {
			case typ == "":
				got[n.Payment] = append(got[n.Payment], n.Status+" "+n.DetailedStatus)
			case !strings.HasPrefix(typ, "mandate_"):
				got[n.Payment] = append(got[n.Payment], typ+" "+n.Status)
			}
		}
		for i, tc := range tests {
			if g := strings.Join(got[ids[i]], ","); g != want[ids[i]] {
				t.Errorf("%q %d notifications: %s, want %s", tc.scenario, tc.amount, g, want[ids[i]])
			}
		}
		rc.Quiet(t, total)
	})
}

// TestMandatePaymentIdempotency: the same Idempotency-Key replays the first
// answer without a second payment; another body under it is 409.
func TestMandatePaymentIdempotency(t *testing.T) {
	t.Parallel()
	apptest.Each(t, func(t *testing.T, env *apptest.Env) {
		token := env.Token(t, apptest.Merchant)
		gbp := openAccount(t, env, apptest.ShopID, "GBP", "uk")
		m := mustActiveMandate(t, env, token, vrpBody())
		key := map[string]string{"Idempotency-Key": "rent-2026-06"}
		first := payAgainst(t, env, token, mandatePayment(m.ID, 700), key)
		again := payAgainst(t, env, token, mandatePayment(m.ID, 700), key)
		if first.Status != 201 || again.Status != 201 || again.Header.Get("Idempotent-Replayed") != "true" || string(again.Body) != string(first.Body) {
			t.Fatalf("replay: %d %s, then %d %v %s", first.Status, first.Body, again.Status, again.Header, again.Body)
		}
		payAgainst(t, env, token, mandatePayment(m.ID, 701), key).Error(t, 409, "IDEMPOTENCY_CONFLICT")
		other := mustActiveMandate(t, env, token, vrpBody())
		payAgainst(t, env, token, mandatePayment(other.ID, 700), key).Error(t, 409, "IDEMPOTENCY_CONFLICT")
		if got := accountBalance(t, env, token, gbp.ID).Balance.Available; got != 700 {
			t.Fatalf("GBP account holds %d after a replay, want 700", got)
		}
	})
}

// shortCodeOf reads the code of payment id's short link from the store: the
// API never shows it for a payment without a payer step.
func shortCodeOf(t *testing.T, env *apptest.Env, id string) string {
	t.Helper()
	var code string
	err := env.App.Store().InTx(context.Background(), func(tx *store.Tx) error {
		p, err := tx.Payments().Get(context.Background(), apptest.ShopID, id)
		code = p.ShortCode
		return err
	})
	if err != nil {
		t.Fatalf("read payment %s: %v", id, err)
	}
	return code
}
