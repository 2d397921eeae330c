package httpapi_test

import (
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/bankrail/bankrail/internal/apptest"
	"github.com/bankrail/bankrail/internal/dbtest"
	"github.com/bankrail/bankrail/internal/ledger"
	"github.com/bankrail/bankrail/internal/payout"
)

// settlementBody is a SETTLEMENT payout of amount out of accountID.
func settlementBody(accountID string, amount int64) map[string]any {
	b := payoutBody(accountID, amount, "Jane Doe")
	b["type"] = "SETTLEMENT"
	return b
}

// SETTLEMENT payouts through HTTP: a completed one moves the account's
// RECEIVED payments to SETTLED, oldest first, as far as its amount covers
// them (each with its status event, no notification of its own), in the
// payout's transaction with its postings and payout_confirmed; a held one
// settles nothing until it is approved; a failed one settles nothing.
func TestSettlementPayouts(t *testing.T) {
	t.Parallel()
	apptest.Each(t, func(t *testing.T, env *apptest.Env) {
		rc := apptest.NewReceiver(t)
		env.SetNotificationURL(t, apptest.Merchant, rc.URL)
		acct := openAccount(t, env, apptest.ShopID, "EUR", "settlements")
		token := env.Token(t, apptest.Merchant)
		const ahv = "account_holder_verification_result_completed"

		// Four payments received on the account, oldest first, and one that never arrives.
		received := receivePayments(t, env, rc, token, 1000, 2000, 3000, 500)
		missing := mustCreate(t, env, token, expectedBody(rc, 2050, "Order S5"), map[string]string{scenarioHeader: "COMPLETED"})
		connectNotes(t, rc, missing.ID, 1)
		wantBalance(t, env, acct, 6500, 0)
		settled := func(id string) bool {
			t.Helper()
			st, hist := statusHistory(t, env, token, id)
			if st == "SETTLED" && !strings.HasSuffix(hist, "COMPLETED RECEIVED SETTLED") {
				t.Fatalf("payment %s: history %s", id, hist)
			}
			return st == "SETTLED"
		}
		wantSettled := func(want ...bool) {
			t.Helper()
			for i, id := range received {
				if got := settled(id); got != want[i] {
					t.Fatalf("payment %d (%s) settled %v, want %v", i, id, got, want[i])
				}
			}
		}
		// Everything the receiver holds by now; from here on only payout notifications may come.
		apptest.Eventually(t, "the payments' notifications", func() bool { return len(rc.Got()) >= 5*3 })
		before := len(rc.Got())

		// 3500 covers the first two (1000 + 2000); the third (3000) no longer fits: it ends there.
		p := mustPayout(t, env, token, settlementBody(acct.ID, 3500), map[string]string{"Idempotency-Key": "settle-1"})
		if p.Type != "SETTLEMENT" {
			t.Fatalf("payout %+v", p)
		}
		n := payoutNotes(t, rc, p.ID, ahv, "payout_confirmed")
		if c := n["payout_confirmed"]; c["status"] != "COMPLETED" || c["amount"] != float64(3500) {
			t.Fatalf("payout_confirmed %v", c)
		}
		wantSettled(true, true, false, false)
		if st, _ := statusHistory(t, env, token, missing.ID); st != "NOT_RECEIVED" {
			t.Fatalf("a payment that was never received: %s", st)
		}
		wantBalance(t, env, acct, 3000, 0)
		if got := getPayout(t, env, token, p.ID); got.Status != "COMPLETED" || got.Type != "SETTLEMENT" {
			t.Fatalf("read back %+v", got)
		}
		var tx transactionJSON
		env.Do(t, apptest.Request{Method: "GET", Path: "/transactions/" + p.ID, Token: token, Header: v1}).JSON(t, &tx)
		if tx.Type != "PAYOUT" || tx.Status != "COMPLETED" || tx.Amount != 3500 || tx.Operation != "OUTGOING" {
			t.Fatalf("the payout's transaction %+v", tx)
		}
		rc.Quiet(t, before+2) // the verification and payout_confirmed: SETTLED notifies nothing
		var list []map[string]any
		env.Do(t, apptest.Request{Method: "GET", Path: "/payments?status=SETTLED", Token: token}).JSON(t, &list)
		if len(list) != 2 {
			t.Fatalf("SETTLED payments %v", list)
		}

		// A held SETTLEMENT payout settles nothing while it waits; approved, it settles the third.
		held := mustPayout(t, env, token, settlementBody(acct.ID, 3000), map[string]string{scenarioHeader: "ACCOUNT_HOLDER_VERIFICATION_CLOSE_MATCH"})
		payoutNotes(t, rc, held.ID, ahv)
		wantSettled(true, true, false, false)
		wantBalance(t, env, acct, 0, 3000)
		env.Do(t, apptest.Request{Method: "POST", Path: "/account-holder-verifications/" + held.AccountHolderVerificationID + "/approve",
			Token: token, Header: v1}).JSON(t, &verificationJSON{})
		payoutNotes(t, rc, held.ID, ahv, "payout_confirmed")
		wantSettled(true, true, true, false)
		wantBalance(t, env, acct, 0, 0)

		// A failed one (1570) gives the money back and settles nothing.
		credit(t, env, acct, 2000, ledger.TypeManualCredit, env.Clock.Now())
		failed := mustPayout(t, env, token, settlementBody(acct.ID, payout.FailingAmount), nil)
		if f := payoutNotes(t, rc, failed.ID, ahv, "payout_failed")["payout_failed"]; f["status"] != "FAILED" {
			t.Fatalf("payout_failed %v", f)
		}
		wantSettled(true, true, true, false)
		wantBalance(t, env, acct, 2000, 0)

		// The books balance: the cached balance is the sum of the postings.
		entries, err := env.App.Store().Ledger().Entries(t.Context(), acct.ID)
		if err != nil {
			t.Fatal(err)
		}
		if sum := ledger.Replay(entries)[acct.ID]; sum.Available != 2000 || sum.Held != 0 {
			t.Fatalf("postings sum to %+v", sum)
		}
		// A SETTLEMENT payout still needs the money on the account.
		e := postPayout(t, env, token, settlementBody(acct.ID, 2001), nil).Error(t, http.StatusUnprocessableEntity, "VALIDATION_FAILURE")
		if e.Errors[0].PropertyPath != "amount" || e.Errors[0].Type != "TOO_HIGH" {
			t.Fatalf("above the balance %+v", e)
		}
	})
}

// Two SETTLEMENT payouts at once over the same received payments: both
// complete, every payment is settled once, by one of them, each payout
// settling what its amount covers; on both engines and across two
// instances on one PostgreSQL.
func TestConcurrentSettlements(t *testing.T) {
	t.Parallel()
	apptest.Each(t, func(t *testing.T, env *apptest.Env) { concurrentSettlements(t, env, env) })
}

func TestConcurrentSettlementsAcrossInstances(t *testing.T) {
	t.Parallel()
	db := dbtest.Migrated(t, dbtest.Postgres)
	concurrentSettlements(t, apptest.NewOn(t, db), apptest.NewOn(t, db))
}

func concurrentSettlements(t *testing.T, a, b *apptest.Env) {
	t.Helper()
	rc := apptest.NewReceiver(t)
	acct := openAccount(t, a, apptest.ShopID, "EUR", "settlements")
	token := a.Token(t, apptest.Merchant)
	received := receivePayments(t, a, rc, token, 1000, 1000, 1000, 1000)
	var wg sync.WaitGroup
	ids := make([]string, 2)
	for i, env := range []*apptest.Env{a, b} {
		wg.Go(func() {
			resp := postPayout(t, env, token, settlementBody(acct.ID, 2000), nil)
			var p payoutJSON
			resp.JSON(t, &p)
			if resp.Status != http.StatusCreated {
				t.Errorf("settlement %d: %d %s", i, resp.Status, resp.Body)
			}
			ids[i] = p.ID
		})
	}
	wg.Wait()
	if t.Failed() {
		t.FailNow()
	}
	for _, id := range ids {
		if p := getPayout(t, b, token, id); p.Status != "COMPLETED" {
			t.Fatalf("payout %+v", p)
		}
	}
	for _, id := range received {
		if st, _ := statusHistory(t, a, token, id); st != "SETTLED" {
			t.Fatalf("payment %s is %s", id, st)
		}
	}
	_, read := a.App.Store().Pools()
	rows, err := read.QueryContext(t.Context(), `SELECT payout_id, COUNT(*), SUM(amount) FROM payout_settlements GROUP BY payout_id`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	n := 0
	for rows.Next() {
		var id string
		var count, sum int
		if err := rows.Scan(&id, &count, &sum); err != nil {
			t.Fatal(err)
		}
		if count != 2 || sum != 2000 || (id != ids[0] && id != ids[1]) {
			t.Fatalf("payout %s settled %d payments worth %d", id, count, sum)
		}
		n++
	}
	if n != 2 {
		t.Fatalf("%d payouts settled payments, want 2", n)
	}
	wantBalance(t, a, acct, 0, 0)
}
