package httpapi_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"testing"
	"time"

	"github.com/bankrail/bankrail/internal/apptest"
	"github.com/bankrail/bankrail/internal/dbtest"
)

// BenchmarkConnect measures, through the API on each engine, against one
// Connect account, each beside a bare INSERT reference on the same database
// (the very connection pools of the instance: a minimal HTTP handler doing
// one INSERT of a payment-sized row in one transaction, no authentication,
// validation or rendering, as cmd/bankrail-bench's). Each operation runs in
// rounds of connectRound, each followed by the reference for as long as the
// round took, inFlight requests per CPU at once, so that a shared machine's
// changing load weighs on both alike:
//
//   - reference-create-only: POST /payments alone;
//   - payin-reconciled: POST /payin matching a COMPLETED expected payment
//     (the payment's move, the ledger's credit and payment_received in one
//     transaction);
//   - refund: POST /payments/{id}/request-refund answered (the hold, the
//     refund and its settlement job in one transaction); the settlements
//     run between the rounds, untimed;
//   - refund-settled: the same, each round timed until its refunds are
//     CONFIRMED (the job worker sent them to the mock bank and settled
//     them: the ledger's move and refund_confirmed in one transaction).
//
// Each reports its rate, the reference's and the ratio (x-insert).
//
//	go test -run '^$' -bench Connect -benchtime 1000x ./internal/httpapi
func BenchmarkConnect(b *testing.B) {
	for _, engine := range dbtest.Engines {
		b.Run(string(engine), func(b *testing.B) {
			env := apptest.NewOn(b, dbtest.Migrated(b, engine))
			acct, _, err := env.App.Accounts().EnsureAccount(b.Context(), accountSpec(apptest.ShopID, "EUR"))
			if err != nil {
				b.Fatal(err)
			}
			token := env.Token(b, apptest.Merchant)
			healthyReceiver(b, env)
			client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 256}}
			send := func(url string, payload []byte, want int, scenario string) []byte {
				req, _ := http.NewRequest(http.MethodPost, url, bytes.NewReader(payload))
				req.Header.Set("Authorization", "Bearer "+token)
				req.Header.Set("Content-Type", "application/json")
				req.Header.Set("X-Service-Api-Version", "1")
				req.Header.Set(channelHeader, "hosted")
				if scenario != "" {
					req.Header.Set(scenarioHeader, scenario)
				}
				resp, err := client.Do(req)
				if err != nil {
					b.Fatal(err)
				}
				defer resp.Body.Close()
				out, _ := io.ReadAll(resp.Body)
				if resp.StatusCode != want {
					b.Fatalf("POST %s: %d %s", url, resp.StatusCode, out)
				}
				return out
			}
			post := func(path string, payload []byte, want int, scenario string) []byte {
				return send(env.URL+path, payload, want, scenario)
			}
			body, _ := json.Marshal(with(with(euBody(), "communication", nil), "beneficiary", nil)) // expected on the account
			create := func(scenario string) string {
				var rec struct{ ID string }
				_ = json.Unmarshal(post(paymentsPath, body, http.StatusCreated, scenario), &rec)
				return rec.ID
			}
			prepare := func(n int, scenario string) []string {
				ids := make([]string, n)
				for i := range ids {
					ids[i] = create(scenario)
				}
				return ids
			}
			// settled waits until no refund of the account is PENDING.
			settled := func() {
				_, read := env.App.Store().Pools()
				for {
					var n int
					if err := read.QueryRowContext(b.Context(), `SELECT COUNT(*) FROM refunds WHERE account_id = $1 AND status = 'PENDING'`,
						acct.ID).Scan(&n); err != nil {
						b.Fatal(err)
					}
					if n == 0 {
						return
					}
					time.Sleep(5 * time.Millisecond)
				}
			}
			insert := insertReference(b, env)
			// paired runs op n times beside the reference (pairedRounds).
			paired := func(b *testing.B, unit string, prepare func(n int) []string, op func(id string), settle func(), timed bool) {
				pairedRounds(b, insert, pairedOp{unit: unit, round: connectRound, prepare: prepare, op: op, settle: settle, timed: timed})
			}
			b.Run("reference-create-only", func(b *testing.B) {
				paired(b, "payments/s", noIDs, func(string) { create("") }, nil, false)
			})
			b.Run("payin-reconciled", func(b *testing.B) {
				paired(b, "payins/s", func(n int) []string { return prepare(n, "COMPLETED>NOT_RECEIVED") }, func(id string) {
					post("/payin", []byte(fmt.Sprintf(`{"externalPaymentId":%q,"paymentReference":%q,"amount":{"amount":1050,"currency":"EUR"},`+
						`"sender":{"name":"Anna"},"beneficiary":{"accountIdentifiers":{"iban":%q}}}`, "x-"+id, id, acct.IBAN)),
						http.StatusAccepted, "")
				}, nil, false)
			})
			refund := func(id string) {
				post("/payments/"+id+"/request-refund", []byte(`{"amount":500,"externalReference":"bench"}`), http.StatusCreated, "")
			}
			received := func(n int) []string { return prepare(n, "COMPLETED") }
			b.Run("refund", func(b *testing.B) {
				paired(b, "refunds/s", received, refund, settled, false) // the settlements end between the rounds, untimed
			})
			b.Run("refund-settled", func(b *testing.B) {
				paired(b, "settled/s", received, refund, settled, true) // each round timed until its refunds are settled
			})
		})
	}
}
