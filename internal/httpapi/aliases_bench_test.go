package httpapi_test

import (
	"encoding/json"
	"net/http"
	"testing"
	"time"

	"github.com/bankrail/bankrail/internal/alias"
	"github.com/bankrail/bankrail/internal/apptest"
	"github.com/bankrail/bankrail/internal/dbtest"
)

// BenchmarkAliasOrders measures, through the API on each engine, aliases
// issued per second: each operation orders MaxCount (1000) aliases of one
// account (POST /orders/account-aliases) and waits until the background
// job has issued them all (10 batches of 100, each one transaction with
// its IBAN checks; the order's row is read every 5 ms). One order per
// round, each round followed by the bare INSERT reference on the same
// database for as long (pairedRounds); reported as aliases/s, inserts/s
// and their ratio x-insert.
//
//	go test -run '^$' -bench AliasOrders -benchtime 5x ./internal/httpapi
func BenchmarkAliasOrders(b *testing.B) {
	for _, engine := range dbtest.Engines {
		b.Run(string(engine), func(b *testing.B) {
			env := apptest.NewOn(b, dbtest.Migrated(b, engine))
			acct := openAccount(b, env, apptest.ShopID, "EUR", "bench")
			post := benchPost(b, env, env.Token(b, apptest.Merchant))
			body, _ := json.Marshal(map[string]any{"accountId": acct.ID, "count": alias.MaxCount})
			_, read := env.App.Store().Pools()
			order := func(string) {
				var created struct{ ID string }
				if err := json.Unmarshal(post("/orders/account-aliases", body, http.StatusCreated), &created); err != nil {
					b.Error(err)
					return
				}
				for {
					var status string
					if err := read.QueryRowContext(b.Context(), `SELECT status FROM alias_orders WHERE id = $1`, created.ID).Scan(&status); err != nil {
						b.Error(err)
						return
					}
					if status == "COMPLETED" {
						return
					}
					if status != "PROCESSING" {
						b.Errorf("alias order %s is %s", created.ID, status)
						return
					}
					time.Sleep(5 * time.Millisecond)
				}
			}
			pairedRounds(b, insertReference(b, env), pairedOp{unit: "aliases/s", round: 1, weight: alias.MaxCount,
				prepare: noIDs, op: order})
		})
	}
}
