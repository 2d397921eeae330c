package httpapi_test

import (
	"context"
	"sync"
	"testing"

	"github.com/bankrail/bankrail/internal/apptest"
	"github.com/bankrail/bankrail/internal/event"
	"github.com/bankrail/bankrail/internal/mandate"
)

// TestMandatePaymentRaces races, through HTTP on both engines, what the
// mandate's row lock serialises inside the payment's transaction:
//   - an amendment of validity.from and the first payment on one unused
//     mandate: exactly one wins (the payment sets usedAt and the amendment
//     is 422 FIELD_NOT_ALLOWED on validity.from, or the amendment awaits
//     the payer and the payment is 409 CONFLICT);
//   - many first payments on one unused mandate: all are taken, and the
//     mandate is used once (one usedAt, one mandate_used event).
func TestMandatePaymentRaces(t *testing.T) {
	t.Parallel()
	apptest.Each(t, func(t *testing.T, env *apptest.Env) {
		token := env.Token(t, apptest.Merchant)
		openAccount(t, env, apptest.ShopID, "AUD", "au")

		t.Run("amendment of validity.from against the first payment", func(t *testing.T) {
			m := mustActiveMandate(t, env, token, payToBody())
			var wg sync.WaitGroup
			var pay, amendment *apptest.Response
			start := make(chan struct{})
			wg.Add(2)
			go func() {
				defer wg.Done()
				<-start
				pay = payAgainst(t, env, token, mandatePayment(m.ID, 100), nil)
			}()
			go func() {
				defer wg.Done()
				<-start
				amendment = amend(t, env, token, m.ID, map[string]any{"validity": map[string]any{"from": "2026-06-05 00:00:00"}})
			}()
			close(start)
			wg.Wait()
			got := mandateCall(t, env, token, "GET", "/mandates/"+m.ID, nil, 200)
			switch {
			case pay.Status == 201:
				e := amendment.Error(t, 422, "VALIDATION_FAILURE")
				if l := fieldList(e); len(l) != 1 || l[0] != "FIELD_NOT_ALLOWED validity.from" {
					t.Fatalf("the payment won; the amendment got %v", l)
				}
				if got.UsedAt == nil || got.Validity.From != "2026-06-01 00:00:00" {
					t.Fatalf("the payment won; the mandate is %+v", got)
				}
			case amendment.Status == 201:
				pay.Error(t, 409, "CONFLICT")
				if got.UsedAt != nil {
					t.Fatalf("the amendment won; the mandate is used: %+v", got)
				}
			default:
				t.Fatalf("neither won: payment %d %s, amendment %d %s", pay.Status, pay.Body, amendment.Status, amendment.Body)
			}
		})

		t.Run("first payments at once", func(t *testing.T) {
			m := mustActiveMandate(t, env, token, payToBody())
			const n = 8
			var wg sync.WaitGroup
			status := make([]int, n)
			start := make(chan struct{})
			for i := range n {
				wg.Add(1)
				go func() {
					defer wg.Done()
					<-start
					status[i] = payAgainst(t, env, token, mandatePayment(m.ID, 100), nil).Status
				}()
			}
			close(start)
			wg.Wait()
			for i, s := range status {
				if s != 201 {
					t.Fatalf("payment %d: %d", i, s)
				}
			}
			if got := mandateCall(t, env, token, "GET", "/mandates/"+m.ID, nil, 200); got.UsedAt == nil {
				t.Fatalf("mandate after %d payments: %+v", n, got)
			}
			used, err := env.App.Store().Events().List(context.Background(), apptest.ShopID,
				event.Filter{SubjectType: mandate.SubjectMandate, SubjectID: m.ID, Type: mandate.EventUsed})
			if err != nil || len(used) != 1 {
				t.Fatalf("mandate_used events: %d (%v), want 1", len(used), err)
			}
		})
	})
}
