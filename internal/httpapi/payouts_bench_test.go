package httpapi_test

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"testing"

	"github.com/bankrail/bankrail/internal/apptest"
	"github.com/bankrail/bankrail/internal/dbtest"
	"github.com/bankrail/bankrail/internal/ledger"
)

// BenchmarkPayouts measures, through the API on each engine, payouts per
// second (POST /payouts with a MATCH: the hold, the verification, the move
// to COMPLETED, the postings and two notifications in one transaction),
// all on one account, so that every payout updates the same balance row.
//
//	go test -run '^$' -bench Payouts -benchtime 300x ./internal/httpapi
func BenchmarkPayouts(b *testing.B) {
	for _, engine := range dbtest.Engines {
		b.Run(string(engine), func(b *testing.B) {
			env := apptest.NewOn(b, dbtest.New(b, engine))
			acct := openAccount(b, env, apptest.ShopID, "EUR", "bench")
			credit(b, env, acct, 1_000_000_000, ledger.TypeManualCredit, env.Clock.Now())
			token := env.Token(b, apptest.Merchant)
			client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 64}}
			body, _ := json.Marshal(payoutBody(acct.ID, 100, "Jane Doe"))
			b.ResetTimer()
			b.SetParallelism(inFlight)
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					req, _ := http.NewRequest(http.MethodPost, env.URL+"/payouts", bytes.NewReader(body))
					req.Header.Set("Authorization", "Bearer "+token)
					req.Header.Set("Content-Type", "application/json")
					req.Header.Set("X-Service-Api-Version", "1")
					resp, err := client.Do(req)
					if err != nil {
						b.Error(err)
						return
					}
					out, _ := io.ReadAll(resp.Body)
					resp.Body.Close()
					if resp.StatusCode != http.StatusCreated {
						b.Errorf("POST /payouts: %d %s", resp.StatusCode, out)
						return
					}
				}
			})
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "payouts/s")
		})
	}
}
