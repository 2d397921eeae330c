package httpapi_test

import (
	"fmt"
	"net/http"
	"slices"
	"testing"
	"time"

	"github.com/bankrail/bankrail/internal/apptest"
)

// receivePayments makes payments of amounts, one second apart, expected on
// the merchant's EUR Connect account, and waits until each is RECEIVED; it
// returns their ids, oldest first.
func receivePayments(t *testing.T, env *apptest.Env, rc *apptest.Receiver, token string, amounts ...int) []string {
	t.Helper()
	var received []string
	for i, amount := range amounts {
		p := mustCreate(t, env, token, expectedBody(rc, amount, fmt.Sprintf("Order S%d", i+1)), map[string]string{scenarioHeader: "COMPLETED"})
		if n := connectNotes(t, rc, p.ID, 1)[0]; n.Status != "RECEIVED" {
			t.Fatalf("payment %d: %+v", i, n)
		}
		received = append(received, p.ID)
		env.Clock.Advance(time.Second)
	}
	return received
}

// A SETTLEMENT payout shows the payments it settled (settledPayments, an
// extension: docs/decisions.md), oldest first with their amounts, at
// GET /payouts/{id} and in GET /payouts: empty in the 201 (it settles when
// it completes), absent on a PAYOUT; each one reads SETTLED. The owner's
// READ_ONLY user sees the same; another customer sees neither the payout
// nor, through it, its payments.
func TestSettlementShowsItsPayments(t *testing.T) {
	t.Parallel()
	apptest.Each(t, func(t *testing.T, env *apptest.Env) {
		rc := apptest.NewReceiver(t)
		env.SetNotificationURL(t, apptest.Merchant, rc.URL)
		acct := openAccount(t, env, apptest.ShopID, "EUR", "settled")
		token := env.Token(t, apptest.Merchant)
		received := receivePayments(t, env, rc, token, 1000, 2000, 3000)

		// The 201 is the CREATED payout: nothing settled yet.
		created := mustPayout(t, env, token, settlementBody(acct.ID, 3500), nil)
		if created.SettledPayments == nil || len(*created.SettledPayments) != 0 {
			t.Fatalf("201 %+v", created)
		}
		plain := mustPayout(t, env, token, payoutBody(acct.ID, 100, "Jane Doe"), nil)
		want := []settledJSON{{received[0], 1000}, {received[1], 2000}} // the third (3000) no longer fits in 3500
		apptest.Eventually(t, "the settlement completed", func() bool { return getPayout(t, env, token, created.ID).Status == "COMPLETED" })
		if got := getPayout(t, env, token, created.ID); got.SettledPayments == nil || !slices.Equal(*got.SettledPayments, want) {
			t.Fatalf("GET /payouts/{id} settledPayments %+v, want %+v", got.SettledPayments, want)
		}
		for _, st := range want {
			if status, _ := statusHistory(t, env, token, st.PaymentID); status != "SETTLED" {
				t.Fatalf("payment %s is %s", st.PaymentID, status)
			}
		}
		if status, _ := statusHistory(t, env, token, received[2]); status != "RECEIVED" {
			t.Fatalf("the payment that did not fit is %s", status)
		}

		// The list: the settlement with its payments, the PAYOUT without the field.
		listed := func(token string) map[string]payoutJSON {
			t.Helper()
			var page []payoutJSON
			env.Do(t, apptest.Request{Method: "GET", Path: "/payouts?limit=100", Token: token, Header: v1}).JSON(t, &page)
			out := map[string]payoutJSON{}
			for _, p := range page {
				out[p.ID] = p
			}
			return out
		}
		all := listed(token)
		if got := all[created.ID].SettledPayments; got == nil || !slices.Equal(*got, want) {
			t.Fatalf("GET /payouts settledPayments %+v, want %+v", got, want)
		}
		if p, ok := all[plain.ID]; !ok || p.SettledPayments != nil {
			t.Fatalf("a PAYOUT in the list %+v (listed %v)", p, ok)
		}
		if got := getPayout(t, env, token, plain.ID); got.SettledPayments != nil {
			t.Fatalf("a PAYOUT has settledPayments %+v", got.SettledPayments)
		}

		// The owner's READ_ONLY user reads the same.
		viewer := env.Token(t, apptest.Viewer)
		if got := getPayout(t, env, viewer, created.ID); got.SettledPayments == nil || !slices.Equal(*got.SettledPayments, want) {
			t.Fatalf("READ_ONLY reads %+v", got.SettledPayments)
		}
		// Another customer: the payout is 404, absent from its list, and so are the payments.
		other := env.Token(t, apptest.OtherMerch)
		env.Do(t, apptest.Request{Method: "GET", Path: "/payouts/" + created.ID, Token: other, Header: v1}).
			Error(t, http.StatusNotFound, "RESOURCE_NOT_FOUND")
		if _, seen := listed(other)[created.ID]; seen {
			t.Fatal("another customer lists the settlement")
		}
		env.Do(t, apptest.Request{Method: "GET", Path: "/payments/" + want[0].PaymentID, Token: other}).
			Error(t, http.StatusNotFound, "RESOURCE_NOT_FOUND")
	})
}
