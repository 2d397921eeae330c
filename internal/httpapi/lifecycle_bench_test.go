package httpapi_test

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/bankrail/bankrail/internal/apptest"
	"github.com/bankrail/bankrail/internal/dbtest"
	"github.com/bankrail/bankrail/notification"
)

// completions is a merchant's notification endpoint for the benchmark: it
// verifies every notification and signals the COMPLETED ones per payment.
type completions struct {
	mu      sync.Mutex
	waiting map[string]chan struct{}
}

func (c *completions) channel(payment string) chan struct{} {
	c.mu.Lock()
	defer c.mu.Unlock()
	ch, ok := c.waiting[payment]
	if !ok {
		ch = make(chan struct{})
		c.waiting[payment] = ch
	}
	return ch
}

func (c *completions) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	n, err := notification.Verifier{Secret: apptest.NotificationSecrets[apptest.Merchant.ClientID]}.Read(r)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	if n.Gateway != nil && n.Gateway.Status == notification.StatusCompleted {
		close(c.channel(n.Gateway.Payment))
	}
	w.WriteHeader(http.StatusNoContent)
}

// inFlight is how many payments per CPU the benchmark drives at once: a
// lifecycle mostly waits (for the notification), so throughput needs many.
const inFlight = 16

// BenchmarkLifecycle measures full payment lifecycles per second through
// the API - create, authorise through POST /sandbox/payments/{id}/authorise,
// and the signed COMPLETED notification received and verified - beside
// creating payments alone, measured in the same run on the same database.
//
//	go test -run '^$' -bench Lifecycle -benchtime 2000x ./internal/httpapi
func BenchmarkLifecycle(b *testing.B) {
	for _, engine := range dbtest.Engines {
		b.Run(string(engine), func(b *testing.B) {
			env := apptest.NewOn(b, dbtest.Migrated(b, engine))
			rc := &completions{waiting: map[string]chan struct{}{}}
			recv := httptest.NewServer(rc)
			b.Cleanup(recv.Close)
			env.SetNotificationURL(b, apptest.Merchant, recv.URL)
			token := env.Token(b, apptest.Merchant)
			client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 64}}
			body, _ := json.Marshal(with(euBody(), "communication", nil)) // notifications go to the application's URL
			post := func(path string, payload []byte, want int) []byte {
				req, _ := http.NewRequest(http.MethodPost, env.URL+path, bytes.NewReader(payload))
				req.Header.Set("Authorization", "Bearer "+token)
				req.Header.Set("Content-Type", "application/json")
				req.Header.Set("X-Service-Api-Version", "1")
				req.Header.Set(channelHeader, "hosted")
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
			create := func() string {
				var rec struct{ ID string }
				_ = json.Unmarshal(post(paymentsPath, body, http.StatusCreated), &rec)
				return rec.ID
			}
			b.Run("reference-create-only", func(b *testing.B) {
				b.SetParallelism(inFlight)
				b.RunParallel(func(pb *testing.PB) {
					for pb.Next() {
						create()
					}
				})
				b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "payments/s")
			})
			b.Run("full-lifecycle", func(b *testing.B) {
				b.SetParallelism(inFlight)
				b.RunParallel(func(pb *testing.PB) {
					for pb.Next() {
						id := create()
						done := rc.channel(id)
						post("/sandbox/payments/"+id+"/authorise", []byte(`{"outcome":"COMPLETED"}`), http.StatusOK)
						select {
						case <-done:
						case <-time.After(30 * time.Second):
							b.Errorf("no COMPLETED notification for %s within 30 s", id)
							return
						}
					}
				})
				b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "lifecycles/s")
			})
		})
	}
}
