package httpapi_test

import (
	"net/http"
	"sync"
	"testing"

	"github.com/bankrail/bankrail/internal/apptest"
)

// The mock bank's credit advice of a completed expected payment pays that
// payment, not the oldest one waiting with the same reference and amount:
// a merchant's paymentReference is the payments' uniqueReference and need
// not be unique, and the advice names its payment by its EndToEndId. An
// older payment with the same reference and amount that waits at
// COMPLETED (COMPLETED>NOT_RECEIVED) keeps waiting.
func TestCreditAdviceFundsThePaymentItNames(t *testing.T) {
	t.Parallel()
	apptest.Each(t, func(t *testing.T, env *apptest.Env) {
		openAccount(t, env, apptest.ShopID, "EUR", "Shop EUR")
		token := env.Token(t, apptest.Merchant)
		rc := apptest.NewReceiver(t)

		waiting := mustCreate(t, env, token, expectedBody(rc, 1050, "Order"), map[string]string{scenarioHeader: "COMPLETED>NOT_RECEIVED"})
		paid := mustCreate(t, env, token, expectedBody(rc, 1050, "Order"), map[string]string{scenarioHeader: "COMPLETED"})
		if st, hist := statusHistory(t, env, token, paid.ID); st != "RECEIVED" {
			t.Fatalf("the completed payment is %s (%s): its funds paid another payment", st, hist)
		}
		if st, hist := statusHistory(t, env, token, waiting.ID); st != "COMPLETED" {
			t.Fatalf("the waiting payment is %s (%s): it took another payment's funds", st, hist)
		}
	})
}

// Many creations at once with the scenario COMPLETED, all with the same
// reference and amount, beside payments of that reference waiting at
// COMPLETED (the CI's bench soak, which found 409s on PostgreSQL): every
// creation is 201, each completed payment is RECEIVED in its creation's
// unit by its own credit advice, the waiting ones still wait, and the
// account has one GATEWAY_PAYMENT credit per completed payment, its own.
func TestConcurrentCompletedPaymentsOfOneReferenceGetTheirOwnFunds(t *testing.T) {
	t.Parallel()
	apptest.Each(t, func(t *testing.T, env *apptest.Env) {
		acct := openAccount(t, env, apptest.ShopID, "EUR", "Shop EUR")
		token := env.Token(t, apptest.Merchant)
		rc := apptest.NewReceiver(t)

		const n = 4
		var waiting []string
		for range 2 {
			waiting = append(waiting, mustCreate(t, env, token, expectedBody(rc, 1050, "Soak"), map[string]string{scenarioHeader: "COMPLETED>NOT_RECEIVED"}).ID)
		}
		var wg sync.WaitGroup
		resps := make([]*apptest.Response, 2*n)
		start := make(chan struct{})
		for i := range resps {
			scenario := "COMPLETED"
			if i%2 == 1 {
				scenario = "COMPLETED>NOT_RECEIVED"
			}
			wg.Add(1)
			go func() {
				defer wg.Done()
				<-start
				resps[i] = postPayment(t, env, token, expectedBody(rc, 1050, "Soak"), map[string]string{scenarioHeader: scenario})
			}()
		}
		close(start)
		wg.Wait()

		completed := map[string]bool{}
		for i, resp := range resps {
			if resp.Status != http.StatusCreated {
				t.Fatalf("creation %d: %d %s", i, resp.Status, resp.Body)
			}
			var rec record
			resp.JSON(t, &rec)
			if i%2 == 0 {
				completed[rec.ID] = true
			} else {
				waiting = append(waiting, rec.ID)
			}
		}
		for id := range completed {
			if st, hist := statusHistory(t, env, token, id); st != "RECEIVED" {
				t.Fatalf("completed payment %s is %s (%s)", id, st, hist)
			}
		}
		for _, id := range waiting {
			if st, hist := statusHistory(t, env, token, id); st != "COMPLETED" {
				t.Fatalf("waiting payment %s is %s (%s)", id, st, hist)
			}
		}
		txs := accountTransactions(t, env, token, acct.ID)
		if len(txs) != n {
			t.Fatalf("%d transactions, want %d: %+v", len(txs), n, txs)
		}
		for _, tx := range txs {
			if tx.Type != "GATEWAY_PAYMENT" || tx.PaymentID == nil || !completed[*tx.PaymentID] || tx.Amount != 1050 {
				t.Fatalf("transaction %+v is no completed payment's credit", tx)
			}
			delete(completed, *tx.PaymentID)
		}
	})
}
