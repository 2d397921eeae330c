package httpapi_test

import (
	"net/http"
	"testing"

	"github.com/bankrail/bankrail/internal/apptest"
	"github.com/bankrail/bankrail/internal/payment"
)

// lifecycleCases are the sandbox outcomes with the history and the
// notifications decisions.md gives them; delayed ones finish after
// payment.BankDelay.
var lifecycleCases = []struct {
	outcome, history, notes string
	delayed                 bool
}{
	{"COMPLETED", "NEW_PAYMENT BANK_REDIRECT AUTHORISED_BY_USER COMPLETED", "PENDING/BANK_REDIRECT COMPLETED/COMPLETED", false},
	{"REFUSED_BY_BANK", "NEW_PAYMENT BANK_REDIRECT REFUSED_BY_BANK", "PENDING/BANK_REDIRECT FAILED/REFUSED_BY_BANK", false},
	{"ERROR_AT_BANK", "NEW_PAYMENT BANK_REDIRECT ERROR_AT_BANK", "PENDING/BANK_REDIRECT FAILED/ERROR_AT_BANK", false},
	{"CANCELLED_BY_USER", "NEW_PAYMENT BANK_REDIRECT CANCELLED_BY_USER", "PENDING/BANK_REDIRECT FAILED/CANCELLED_BY_USER", false},
	{"ABANDONED_BY_USER", "NEW_PAYMENT ABANDONED_BY_USER", "FAILED/ABANDONED_BY_USER", false},
	{"REFUSED_BY_RISK", "NEW_PAYMENT REFUSED_BY_RISK", "FAILED/REFUSED_BY_RISK", false},
	{"DELAYED_AT_BANK>COMPLETED", "NEW_PAYMENT BANK_REDIRECT DELAYED_AT_BANK COMPLETED",
		"PENDING/BANK_REDIRECT PENDING/DELAYED_AT_BANK COMPLETED/COMPLETED", true},
	{"DELAYED_AT_BANK>REFUSED_BY_BANK", "NEW_PAYMENT BANK_REDIRECT DELAYED_AT_BANK REFUSED_BY_BANK",
		"PENDING/BANK_REDIRECT PENDING/DELAYED_AT_BANK FAILED/REFUSED_BY_BANK", true},
}

// Every scenario header plays its moves right after creation; the answer
// is still the NEW_PAYMENT record; the notifications follow, signed.
func TestScenarioHeader(t *testing.T) {
	t.Parallel()
	apptest.Each(t, func(t *testing.T, env *apptest.Env) {
		token := env.Token(t, apptest.Merchant)
		rc := apptest.NewReceiver(t)
		for _, tc := range lifecycleCases {
			rec := mustCreate(t, env, token, notifiedBody(rc), map[string]string{scenarioHeader: tc.outcome})
			if rec.Status != "NEW_PAYMENT" || rec.PaymentInitiationFlow.Status != "PROCESSING" {
				t.Fatalf("%s: created %s/%s", tc.outcome, rec.Status, rec.PaymentInitiationFlow.Status)
			}
			if tc.delayed {
				if st, _ := statusHistory(t, env, token, rec.ID); st != "DELAYED_AT_BANK" {
					t.Fatalf("%s: %s before the bank's delay", tc.outcome, st)
				}
				gatewayNotes(t, rc, rec.ID, 2)
				env.Clock.Advance(payment.BankDelay)
			}
			if got := gatewayNotes(t, rc, rec.ID, len(splitFields(tc.notes))); got != tc.notes {
				t.Errorf("%s: notifications %s, want %s", tc.outcome, got, tc.notes)
			}
			if _, hist := statusHistory(t, env, token, rec.ID); hist != tc.history {
				t.Errorf("%s: history %s, want %s", tc.outcome, hist, tc.history)
			}
		}
	})
}

// The scenario is part of the idempotent request: the same key with
// another scenario is a different request.
func TestScenarioHeaderAndIdempotency(t *testing.T) {
	t.Parallel()
	apptest.Each(t, func(t *testing.T, env *apptest.Env) {
		token := env.Token(t, apptest.Merchant)
		h := map[string]string{scenarioHeader: "COMPLETED", "Idempotency-Key": "k-scenario"}
		first := mustCreate(t, env, token, euBody(), h)
		again := postPayment(t, env, token, euBody(), h)
		if again.Status != http.StatusCreated || again.Header.Get("Idempotent-Replayed") != "true" {
			t.Fatalf("replay: %d %s", again.Status, again.Body)
		}
		h[scenarioHeader] = "REFUSED_BY_BANK"
		postPayment(t, env, token, euBody(), h).Error(t, http.StatusConflict, "IDEMPOTENCY_CONFLICT")
		if st, _ := statusHistory(t, env, token, first.ID); st != "COMPLETED" {
			t.Fatalf("status %s", st)
		}
	})
}

func TestScenarioHeaderValidation(t *testing.T) {
	t.Parallel()
	apptest.Each(t, func(t *testing.T, env *apptest.Env) {
		token := env.Token(t, apptest.Merchant)
		for _, bad := range []string{"PAID", "NOT_RECEIVED", "DELAYED_AT_BANK", "BANK_REDIRECT"} {
			postPayment(t, env, token, euBody(), map[string]string{scenarioHeader: bad}).Error(t, http.StatusBadRequest, "INVALID_HTTP_HEADER")
		}
		// Case and spaces around ">" do not matter (the document lists the
		// canonical names only).
		resp := env.Do(t, apptest.Request{Method: "POST", Path: paymentsPath, Token: token, Body: euBody(),
			Header:  paymentHeaders(map[string]string{scenarioHeader: "delayed_at_bank > completed"}),
			OffSpec: "the scenario name in another case and with spaces, which the server tolerates"})
		if resp.Status != http.StatusCreated {
			t.Fatalf("create payment: %d %s", resp.Status, resp.Body)
		}
		var rec record
		resp.JSON(t, &rec)
	})
}

// Production has no scenarios: the header is refused (a test header left
// in live code must be noticed) and the sandbox endpoint does not exist.
func TestProductionRefusesScenarios(t *testing.T) {
	t.Parallel()
	apptest.Each(t, func(t *testing.T, env *apptest.Env) {
		token := env.Token(t, apptest.Merchant)
		e := postPayment(t, env, token, euBody(), map[string]string{scenarioHeader: "COMPLETED"}).Error(t, http.StatusBadRequest, "INVALID_HTTP_HEADER")
		if e.Message == "" {
			t.Fatal("no message")
		}
		// Production vets the notification URL's address: use a public one.
		public := with(euBody(), "communication", map[string]any{"notifications": map[string]any{"url": "https://203.0.113.10/notify"}})
		rec := mustCreate(t, env, token, public, nil)
		authorise(t, env, token, rec.ID, map[string]string{"outcome": "COMPLETED"}).Error(t, http.StatusNotFound, "RESOURCE_NOT_FOUND")
	}, apptest.Production)
}

// Without communication.notifications.url, the moves notify the creating
// application's URL, signed with its secret.
func TestLifecycleNotifiesTheApplicationURL(t *testing.T) {
	t.Parallel()
	apptest.Each(t, func(t *testing.T, env *apptest.Env) {
		token, rc := receiving(t, env)
		p := mustCreate(t, env, token, with(euBody(), "communication", nil), map[string]string{scenarioHeader: "CANCELLED_BY_USER"})
		if got := gatewayNotes(t, rc, p.ID, 2); got != "PENDING/BANK_REDIRECT FAILED/CANCELLED_BY_USER" {
			t.Fatalf("notifications %s", got)
		}
		for _, r := range rc.Got() {
			if r.Header.Get("X-Service-Type") != "" {
				t.Fatalf("a gateway notification carries X-Service-Type %q", r.Header.Get("X-Service-Type"))
			}
		}
	})
}
