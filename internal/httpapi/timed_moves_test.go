package httpapi_test

import (
	"net/http"
	"testing"
	"time"

	"github.com/bankrail/bankrail/internal/apptest"
	"github.com/bankrail/bankrail/internal/dbtest"
	"github.com/bankrail/bankrail/internal/payment"
)

// Abandonment and a delayed bank's answer follow the service clock: the
// fake clock in tests, POST /sandbox/clock/advance in the sandbox.
func TestTimedMoves(t *testing.T) {
	t.Parallel()
	apptest.Each(t, func(t *testing.T, env *apptest.Env) {
		token := env.Token(t, apptest.Merchant)
		rc := apptest.NewReceiver(t)
		created := env.App.Clock().Now()
		idle := mustCreate(t, env, token, notifiedBody(rc), nil)
		refused := mustCreate(t, env, token, notifiedBody(rc), map[string]string{scenarioHeader: "DELAYED_AT_BANK>REFUSED_BY_BANK"})
		gatewayNotes(t, rc, refused.ID, 2)

		env.Clock.Advance(payment.BankDelay - time.Second)
		rc.Quiet(t, 2)
		env.Clock.Advance(time.Second)
		if got := gatewayNotes(t, rc, refused.ID, 3); got != "PENDING/BANK_REDIRECT PENDING/DELAYED_AT_BANK FAILED/REFUSED_BY_BANK" {
			t.Fatalf("delayed then refused: %s", got)
		}

		env.Clock.Advance(payment.AbandonAfter - payment.BankDelay - time.Second)
		rc.Quiet(t, 3)
		if st, _ := statusHistory(t, env, token, idle.ID); st != "NEW_PAYMENT" {
			t.Fatalf("%s before 30 minutes", st)
		}
		resp := env.Do(t, apptest.Request{Method: "POST", Path: "/sandbox/clock/advance", Token: token, Body: map[string]int{"seconds": 1}})
		if resp.Status != http.StatusOK {
			t.Fatalf("advance: %d %s", resp.Status, resp.Body)
		}
		if got := gatewayNotes(t, rc, idle.ID, 1); got != "FAILED/ABANDONED_BY_USER" {
			t.Fatalf("abandonment: %s", got)
		}
		d := getDetails(t, env, token, idle.ID)
		last := d.StatusUpdates[len(d.StatusUpdates)-1]
		if at, _ := time.Parse(time.RFC3339Nano, last.CreatedAt); d.Status != "ABANDONED_BY_USER" || !at.Equal(created.Add(payment.AbandonAfter)) {
			t.Fatalf("abandoned %s at %s, want 30 minutes after %s", d.Status, last.CreatedAt, created)
		}
		// An ended payment is not abandoned: nothing more arrives.
		env.Clock.Advance(time.Hour)
		rc.Quiet(t, 4)
	})
}

// Several instances share the timed moves: each is applied exactly once,
// with exactly one notification, however the workers race.
func TestTimedMovesAcrossInstances(t *testing.T) {
	t.Parallel()
	dbtest.EachMigrated(t, func(t *testing.T, db dbtest.DB) {
		a, b := apptest.NewOn(t, db), apptest.NewOn(t, db)
		token := a.Token(t, apptest.Merchant)
		const n = 20
		ids := make([]string, n)
		for i := range ids {
			ids[i] = mustCreate(t, a, token, euBody(), map[string]string{scenarioHeader: "DELAYED_AT_BANK>COMPLETED"}).ID
		}
		a.Clock.Advance(payment.BankDelay)
		b.Clock.Advance(payment.BankDelay)
		for _, id := range ids {
			apptest.Eventually(t, "COMPLETED", func() bool { st, _ := statusHistory(t, b, token, id); return st == "COMPLETED" })
		}
		time.Sleep(2 * apptest.TimedMovesEvery) // let a losing worker finish, if any
		for _, id := range ids {
			if _, hist := statusHistory(t, a, token, id); hist != "NEW_PAYMENT BANK_REDIRECT DELAYED_AT_BANK COMPLETED" {
				t.Fatalf("%s: history %s", id, hist)
			}
			resp := a.Do(t, apptest.Request{Method: "GET", Path: "/notifications?paymentId=" + id, Token: token})
			var list []notificationRecord
			resp.JSON(t, &list)
			if len(list) != 3 {
				t.Fatalf("%s: %d notifications, want 3 (BANK_REDIRECT, DELAYED_AT_BANK, COMPLETED)", id, len(list))
			}
		}
	})
}
