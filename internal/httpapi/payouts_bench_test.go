package httpapi_test

import (
	"encoding/json"
	"net/http"
	"testing"

	"github.com/bankrail/bankrail/internal/apptest"
	"github.com/bankrail/bankrail/internal/dbtest"
	"github.com/bankrail/bankrail/internal/ledger"
)

// BenchmarkPayouts measures, through the API on each engine, payouts per
// second (POST /payouts with a MATCH: the hold, the verification, the move
// to COMPLETED, the postings and two notifications in one transaction),
// all on one account, so that every payout updates the same balance row;
// in rounds of connectRound beside the bare INSERT reference on the same
// database (pairedRounds), reported as payouts/s, inserts/s and their
// ratio x-insert.
//
//	go test -run '^$' -bench Payouts -benchtime 300x ./internal/httpapi
func BenchmarkPayouts(b *testing.B) {
	for _, engine := range dbtest.Engines {
		b.Run(string(engine), func(b *testing.B) {
			env := apptest.NewOn(b, dbtest.Migrated(b, engine))
			acct := openAccount(b, env, apptest.ShopID, "EUR", "bench")
			credit(b, env, acct, 1_000_000_000, ledger.TypeManualCredit, env.Clock.Now())
			healthyReceiver(b, env)
			post := benchPost(b, env, env.Token(b, apptest.Merchant))
			body, _ := json.Marshal(payoutBody(acct.ID, 100, "Jane Doe"))
			pairedRounds(b, insertReference(b, env), pairedOp{unit: "payouts/s", round: connectRound, prepare: noIDs,
				op: func(string) { post("/payouts", body, http.StatusCreated) }})
		})
	}
}
