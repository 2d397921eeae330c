package httpapi_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"sync/atomic"
	"testing"

	"github.com/bankrail/bankrail/internal/apptest"
	"github.com/bankrail/bankrail/internal/dbtest"
)

// BenchmarkConnect measures, through the API on each engine, payins
// reconciled per second (POST /payin matching a COMPLETED expected payment:
// the payment's move, the ledger's credit and payment_received in one
// transaction) and refunds per second (POST /payments/{id}/request-refund:
// the hold, the refund and, in the sandbox, its confirmation and
// notification), beside creating payments alone in the same run.
//
//	go test -run '^$' -bench Connect -benchtime 500x ./internal/httpapi
func BenchmarkConnect(b *testing.B) {
	for _, engine := range dbtest.Engines {
		b.Run(string(engine), func(b *testing.B) {
			env := apptest.NewOn(b, dbtest.New(b, engine))
			acct, _, err := env.App.Accounts().EnsureAccount(b.Context(), accountSpec(apptest.ShopID, "EUR"))
			if err != nil {
				b.Fatal(err)
			}
			token := env.Token(b, apptest.Merchant)
			client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 64}}
			post := func(path string, payload []byte, want int, scenario string) []byte {
				req, _ := http.NewRequest(http.MethodPost, env.URL+path, bytes.NewReader(payload))
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
					b.Fatalf("POST %s: %d %s", path, resp.StatusCode, out)
				}
				return out
			}
			body, _ := json.Marshal(with(euBody(), "communication", nil))
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
			b.Run("reference-create-only", func(b *testing.B) {
				b.SetParallelism(inFlight)
				b.RunParallel(func(pb *testing.PB) {
					for pb.Next() {
						create("")
					}
				})
				b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "payments/s")
			})
			b.Run("payin-reconciled", func(b *testing.B) {
				ids := prepare(b.N, "COMPLETED>NOT_RECEIVED")
				var next atomic.Int64
				b.ResetTimer()
				b.SetParallelism(inFlight)
				b.RunParallel(func(pb *testing.PB) {
					for pb.Next() {
						id := ids[next.Add(1)-1]
						post("/payin", []byte(fmt.Sprintf(`{"externalPaymentId":%q,"paymentReference":%q,"amount":{"amount":1050,"currency":"EUR"},`+
							`"sender":{"name":"Anna"},"beneficiary":{"accountIdentifiers":{"iban":%q}}}`, "x-"+id, id, acct.IBAN)),
							http.StatusAccepted, "")
					}
				})
				b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "payins/s")
			})
			b.Run("refund", func(b *testing.B) {
				ids := prepare(b.N, "COMPLETED")
				var next atomic.Int64
				b.ResetTimer()
				b.SetParallelism(inFlight)
				b.RunParallel(func(pb *testing.PB) {
					for pb.Next() {
						id := ids[next.Add(1)-1]
						post("/payments/"+id+"/request-refund", []byte(`{"amount":500,"externalReference":"bench"}`), http.StatusCreated, "")
					}
				})
				b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "refunds/s")
			})
		})
	}
}
