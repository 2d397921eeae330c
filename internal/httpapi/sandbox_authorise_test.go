package httpapi_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/bankrail/bankrail/internal/apptest"
)

// POST /sandbox/payments/{id}/authorise plays the same outcomes as the
// scenario header, on an existing payment.
func TestSandboxAuthorise(t *testing.T) {
	t.Parallel()
	apptest.Each(t, func(t *testing.T, env *apptest.Env) {
		token := env.Token(t, apptest.Merchant)
		rc := apptest.NewReceiver(t)
		for _, tc := range lifecycleCases {
			if tc.delayed {
				continue // TestTimedMoves
			}
			p := mustCreate(t, env, token, notifiedBody(rc), nil)
			rec := mustAuthorise(t, env, token, p.ID, tc.outcome)
			if st, hist := statusHistory(t, env, token, p.ID); rec.Status != st || hist != tc.history {
				t.Errorf("%s: answered %s, stored %s along %s, want %s", tc.outcome, rec.Status, st, hist, tc.history)
			}
			if got := gatewayNotes(t, rc, p.ID, len(splitFields(tc.notes))); got != tc.notes {
				t.Errorf("%s: notifications %s, want %s", tc.outcome, got, tc.notes)
			}
		}
	})
}

// The flow status, the sender and the name match score follow the moves.
func TestSandboxAuthoriseRecord(t *testing.T) {
	t.Parallel()
	apptest.Each(t, func(t *testing.T, env *apptest.Env) {
		token := env.Token(t, apptest.Merchant)
		flows := map[string]string{"COMPLETED": "FINISHED", "CANCELLED_BY_USER": "ABORTED", "ABANDONED_BY_USER": "ABORTED",
			"ERROR_AT_BANK": "EXCEPTION", "REFUSED_BY_RISK": "EXCEPTION", "REFUSED_BY_BANK": "EXCEPTION"}
		for outcome, flow := range flows {
			p := mustCreate(t, env, token, euBody(), nil)
			if rec := mustAuthorise(t, env, token, p.ID, outcome); rec.PaymentInitiationFlow.Status != flow ||
				rec.PaymentInitiationFlow.Details.Reason != outcome {
				t.Errorf("%s: flow %+v, want %s", outcome, rec.PaymentInitiationFlow, flow)
			}
		}

		p := mustCreate(t, env, token, euBody(), nil) // payer Anna Müller
		score := func() *apptest.Response {
			return env.Do(t, apptest.Request{Method: "GET", Path: "/payments/" + p.ID + "/name-match-score", Token: token})
		}
		score().Error(t, http.StatusConflict, "CONFLICT")
		mustAuthorise(t, env, token, p.ID, "COMPLETED")
		if resp := score(); resp.Status != http.StatusOK || !strings.Contains(string(resp.Body), `"score":1`) {
			t.Fatalf("score after the bank reported the sender: %d %s", resp.Status, resp.Body)
		}
		d := getDetails(t, env, token, p.ID)
		if d.Sender.Name == nil || *d.Sender.Name != "ANNA MÜLLER" || d.Bank == nil {
			t.Fatalf("sender %+v, bank %+v", d.Sender, d.Bank)
		}

		q := mustCreate(t, env, token, euBody(), nil)
		resp := authorise(t, env, token, q.ID, map[string]string{"outcome": "COMPLETED", "accountHolderName": "Hans Schmidt"})
		if resp.Status != http.StatusOK || !strings.Contains(string(resp.Body), `"name":"Hans Schmidt"`) {
			t.Fatalf("holder name: %d %s", resp.Status, resp.Body)
		}
	})
}

func TestSandboxAuthoriseRefusals(t *testing.T) {
	t.Parallel()
	apptest.Each(t, func(t *testing.T, env *apptest.Env) {
		token := env.Token(t, apptest.Merchant)
		done := mustCreate(t, env, token, euBody(), nil)
		mustAuthorise(t, env, token, done.ID, "COMPLETED")
		delayed := mustCreate(t, env, token, euBody(), map[string]string{scenarioHeader: "DELAYED_AT_BANK>COMPLETED"})
		fresh := mustCreate(t, env, token, euBody(), nil)
		tests := []struct {
			name, id string
			body     any
			status   int
			code     string
		}{
			{"initiation ended", done.ID, map[string]string{"outcome": "CANCELLED_BY_USER"}, 409, "RESOURCE_NOT_MODIFIABLE"},
			{"same outcome twice", done.ID, map[string]string{"outcome": "COMPLETED"}, 409, "RESOURCE_NOT_MODIFIABLE"},
			{"not from DELAYED_AT_BANK", delayed.ID, map[string]string{"outcome": "CANCELLED_BY_USER"}, 409, "CONFLICT"},
			{"risk after the bank", delayed.ID, map[string]string{"outcome": "REFUSED_BY_RISK"}, 409, "CONFLICT"},
			{"outcome missing", fresh.ID, map[string]string{}, 422, "VALIDATION_FAILURE"},
			{"outcome unknown", fresh.ID, map[string]string{"outcome": "PAID"}, 422, "VALIDATION_FAILURE"},
			{"holder name too long", fresh.ID, map[string]string{"outcome": "COMPLETED", "accountHolderName": strings.Repeat("x", 141)}, 422, "VALIDATION_FAILURE"},
			{"malformed id", "nope", map[string]string{"outcome": "COMPLETED"}, 400, "MALFORMED_PATH_PARAM"},
			{"malformed JSON", fresh.ID, "{", 400, "BAD_REQUEST"},
		}
		for _, tt := range tests {
			authorise(t, env, token, tt.id, tt.body).Error(t, tt.status, tt.code)
		}
		// The DELAYED_AT_BANK payment can still be answered by the bank.
		if rec := mustAuthorise(t, env, token, delayed.ID, "REFUSED_BY_BANK"); rec.Status != "REFUSED_BY_BANK" {
			t.Fatalf("bank answer: %s", rec.Status)
		}
		other := env.Token(t, apptest.OtherMerch)
		authorise(t, env, other, fresh.ID, map[string]string{"outcome": "COMPLETED"}).Error(t, http.StatusNotFound, "RESOURCE_NOT_FOUND")
		viewer := env.Token(t, apptest.Viewer)
		authorise(t, env, viewer, fresh.ID, map[string]string{"outcome": "COMPLETED"}).Error(t, http.StatusForbidden, "ACCESS_DENIED")
		if st, _ := statusHistory(t, env, token, fresh.ID); st != "NEW_PAYMENT" {
			t.Fatalf("a refused request moved the payment to %s", st)
		}
		// The PSP above the shop may drive its merchant's payments.
		psp := env.Token(t, apptest.PSPAdmin)
		if rec := mustAuthorise(t, env, psp, fresh.ID, "REFUSED_BY_RISK"); rec.Status != "REFUSED_BY_RISK" {
			t.Fatalf("PSP: %s", rec.Status)
		}
	})
}
