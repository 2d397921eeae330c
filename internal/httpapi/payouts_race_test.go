package httpapi_test

import (
	"net/http"
	"sync"
	"testing"

	"github.com/bankrail/bankrail/internal/apptest"
	"github.com/bankrail/bankrail/internal/dbtest"
	"github.com/bankrail/bankrail/internal/ledger"
)

// Two concurrent payouts that together exceed the balance: exactly one is
// accepted and the balance never goes below zero.
func TestConcurrentPayouts(t *testing.T) {
	t.Parallel()
	apptest.Each(t, func(t *testing.T, env *apptest.Env) {
		concurrentPayouts(t, env, env)
	})
}

// The same across two instances on one PostgreSQL database: the balance
// lives in the database, not in a process.
func TestConcurrentPayoutsAcrossInstances(t *testing.T) {
	t.Parallel()
	db := dbtest.Migrated(t, dbtest.Postgres)
	concurrentPayouts(t, apptest.NewOn(t, db), apptest.NewOn(t, db))
}

// concurrentPayouts sends, in rounds, two payouts of 600 out of 1000 at
// once, one through a and one through b: exactly one is accepted (held
// by NO_MATCH), then rejected to free the balance for the next round.
func concurrentPayouts(t *testing.T, a, b *apptest.Env) {
	t.Helper()
	acct := openAccount(t, a, apptest.ShopID, "EUR", "payouts")
	credit(t, a, acct, 1000, ledger.TypeManualCredit, a.Clock.Now())
	token := a.Token(t, apptest.Merchant) // signing keys are shared: b accepts a's tokens
	for round := 0; round < 5; round++ {
		var wg sync.WaitGroup
		statuses := make([]int, 2)
		for i, env := range []*apptest.Env{a, b} {
			wg.Add(1)
			go func() {
				defer wg.Done()
				statuses[i] = postPayout(t, env, token, payoutBody(acct.ID, 600, "Jane Doe"),
					map[string]string{scenarioHeader: "ACCOUNT_HOLDER_VERIFICATION_NO_MATCH"}).Status
			}()
		}
		wg.Wait()
		ok := 0
		for _, s := range statuses {
			switch s {
			case http.StatusCreated:
				ok++
			case http.StatusUnprocessableEntity:
			default:
				t.Fatalf("round %d: status %d", round, s)
			}
		}
		if ok != 1 {
			t.Fatalf("round %d: %v accepted, want exactly one", round, statuses)
		}
		wantBalance(t, a, acct, 400, 600)
		var list []payoutJSON
		a.Do(t, apptest.Request{Method: "GET", Path: "/payouts?status=CREATED", Token: token, Header: v1}).JSON(t, &list)
		if len(list) != 1 {
			t.Fatalf("round %d: held payouts %+v", round, list)
		}
		var v verificationJSON
		b.Do(t, apptest.Request{Method: "POST", Path: "/account-holder-verifications/" + list[0].AccountHolderVerificationID + "/reject",
			Token: token, Header: v1}).JSON(t, &v)
		wantBalance(t, a, acct, 1000, 0)
	}
}
