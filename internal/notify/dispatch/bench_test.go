package dispatch_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/bankrail/bankrail/internal/clock"
	"github.com/bankrail/bankrail/internal/dbtest"
	"github.com/bankrail/bankrail/internal/identity"
	"github.com/bankrail/bankrail/internal/notify"
	"github.com/bankrail/bankrail/internal/notify/dispatch"
	"github.com/bankrail/bankrail/internal/store"
	"github.com/bankrail/bankrail/notification"
)

const (
	benchCustomer = "60000000-0000-4000-8000-000000000001"
	benchApp      = "60000000-0000-4000-8000-0000000000a1"
)

// benchReceiver answers 204 at once and remembers when each notification
// id arrived.
type benchReceiver struct {
	*httptest.Server
	mu      sync.Mutex
	arrived map[string]time.Time
	all     chan struct{}
	want    int
}

func newBenchReceiver(b *testing.B) *benchReceiver {
	rc := &benchReceiver{arrived: map[string]time.Time{}, all: make(chan struct{})}
	rc.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		id := r.Header.Get(notification.HeaderNotificationID)
		rc.mu.Lock()
		if _, dup := rc.arrived[id]; !dup && id != "" {
			rc.arrived[id] = time.Now()
			if len(rc.arrived) == rc.want {
				close(rc.all)
			}
		}
		rc.mu.Unlock()
		w.WriteHeader(http.StatusNoContent)
	}))
	b.Cleanup(rc.Close)
	return rc
}

// expect resets the receiver to wait for n notifications.
func (rc *benchReceiver) expect(n int) {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	rc.arrived, rc.want, rc.all = map[string]time.Time{}, n, make(chan struct{})
}

func (rc *benchReceiver) wait(b *testing.B) {
	select {
	case <-rc.all:
	case <-time.After(5 * time.Minute):
		b.Fatalf("only %d of %d notifications arrived", len(rc.arrived), rc.want)
	}
}

// benchSetup opens a store on engine e with one application pointing at a
// new receiver, and starts a dispatcher on it.
func benchSetup(b *testing.B, e dbtest.Engine) (*store.Store, *benchReceiver) {
	ctx := context.Background()
	db := dbtest.Migrated(b, e)
	s, err := store.Open(ctx, store.Options{DatabaseURL: db.DatabaseURL, SQLitePath: db.SQLitePath}, slog.New(slog.DiscardHandler))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { s.Close() })
	if err := s.Migrate(ctx); err != nil {
		b.Fatal(err)
	}
	rc := newBenchReceiver(b)
	now := time.Now()
	if err := s.CreateCustomer(ctx, identity.Customer{ID: benchCustomer, Name: "Bench", CreatedAt: now}); err != nil {
		b.Fatal(err)
	}
	if err := s.CreateApplication(ctx, identity.Application{ID: benchApp, CustomerID: benchCustomer, ClientID: "bench",
		ClientSecretHash: "h", NotificationURL: rc.URL, NotificationSecret: "bench-secret", CreatedAt: now}); err != nil {
		b.Fatal(err)
	}
	d := dispatch.New(s, clock.Real{}, slog.New(slog.DiscardHandler), dispatch.Options{PerApplication: 64})
	d.Start(ctx)
	b.Cleanup(d.Stop)
	return s, rc
}

func benchMessage(i int) notify.Message {
	m, err := notify.Gateway(notify.Target{CustomerID: benchCustomer, ApplicationID: benchApp}, notification.Gateway{
		Payment: fmt.Sprintf("pay-%d", i), Reference: "bench", Amount: int64(i), Status: "COMPLETED", DetailedStatus: "COMPLETED"})
	if err != nil {
		panic(err)
	}
	return m
}

// rawPostsPerSecond is the reference: signed POSTs of the same body to the
// same receiver from 64 goroutines, with no database at all.
func rawPostsPerSecond(url string, n int) float64 {
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 64, MaxIdleConns: 128}}
	body := benchMessage(0).Body
	jobs := make(chan int)
	var wg sync.WaitGroup
	start := time.Now()
	for range 64 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range jobs {
				req, _ := http.NewRequest(http.MethodPost, url, bytes.NewReader(body))
				for k, v := range notify.BuildRequest(notify.Notification{ID: "raw", Body: body}, url, "s", time.Now()).Headers {
					req.Header.Set(k, v)
				}
				if resp, err := client.Do(req); err == nil {
					_, _ = io.Copy(io.Discard, resp.Body)
					resp.Body.Close()
				}
			}
		}()
	}
	for i := range n {
		jobs <- i
	}
	close(jobs)
	wg.Wait()
	return float64(n) / time.Since(start).Seconds()
}

// BenchmarkDeliveryThroughput enqueues b.N notifications (500 per
// transaction, each of its own payment) and measures the time until the
// receiver has them all: deliveries per second, against raw POSTs per second
// to the same receiver. Run with a fixed count, e.g.
//
//	go test -run '^$' -bench Delivery -benchtime 5000x ./internal/notify/dispatch
func BenchmarkDeliveryThroughput(b *testing.B) {
	for _, e := range dbtest.Engines {
		b.Run(string(e), func(b *testing.B) {
			s, rc := benchSetup(b, e)
			ctx := context.Background()
			raw := rawPostsPerSecond(rc.URL, max(b.N, 1000))
			rc.expect(b.N)
			b.ResetTimer()
			start := time.Now()
			for i := 0; i < b.N; i += 500 {
				msgs := make([]notify.Message, 0, 500)
				for j := i; j < min(i+500, b.N); j++ {
					msgs = append(msgs, benchMessage(j))
				}
				if _, err := s.EnqueueNotifications(ctx, time.Now(), msgs...); err != nil {
					b.Fatal(err)
				}
			}
			rc.wait(b)
			rate := float64(b.N) / time.Since(start).Seconds()
			b.StopTimer()
			b.ReportMetric(rate, "deliveries/s")
			b.ReportMetric(raw, "raw-posts/s")
			b.ReportMetric(rate/raw, "ratio")
		})
	}
}

// BenchmarkDeliveryLatency creates b.N notifications one transaction each
// from 4 producers (about 400 per second in all) and reports the time from
// commit to arrival at the receiver: p50 and p99 in milliseconds.
func BenchmarkDeliveryLatency(b *testing.B) {
	for _, e := range dbtest.Engines {
		b.Run(string(e), func(b *testing.B) {
			s, rc := benchSetup(b, e)
			ctx := context.Background()
			rc.expect(b.N)
			var mu sync.Mutex
			committed := map[string]time.Time{}
			var wg sync.WaitGroup
			b.ResetTimer()
			for p := range 4 {
				wg.Add(1)
				go func() {
					defer wg.Done()
					for i := p; i < b.N; i += 4 {
						ids, err := s.EnqueueNotifications(ctx, time.Now(), benchMessage(i))
						at := time.Now()
						if err != nil {
							b.Error(err)
							return
						}
						mu.Lock()
						committed[ids[0]] = at
						mu.Unlock()
						time.Sleep(10 * time.Millisecond)
					}
				}()
			}
			wg.Wait()
			rc.wait(b)
			b.StopTimer()
			var lat []float64
			rc.mu.Lock()
			for id, at := range rc.arrived {
				lat = append(lat, float64(at.Sub(committed[id]).Microseconds())/1000)
			}
			rc.mu.Unlock()
			slices.Sort(lat)
			b.ReportMetric(lat[len(lat)/2], "p50-ms")
			b.ReportMetric(lat[min(len(lat)-1, len(lat)*99/100)], "p99-ms")
		})
	}
}
