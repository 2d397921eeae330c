package httpapi_test

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/bankrail/bankrail/internal/apptest"
)

// The bare INSERT reference of the API benchmarks (BenchmarkConnect,
// BenchmarkPayouts, BenchmarkAliasOrders): each operation is measured in
// rounds, each round followed by the reference for as long as it took, so
// that the changing load of a shared machine weighs on both alike, and
// reported as its rate, the reference's and their ratio (x-insert).

// pairedOp is one operation measured beside the reference.
type pairedOp struct {
	unit    string               // the rate's unit, e.g. "payouts/s"
	round   int                  // operations per round (run inFlight per CPU at once)
	weight  int                  // units per operation (0 means 1; an order of 1000 aliases: 1000)
	prepare func(n int) []string // the ids the n operations work on, made untimed
	op      func(id string)
	settle  func() // nil, or waits for the background work of a round to end
	timed   bool   // settle is timed with its round
}

// pairedRounds runs o.op b.N times in rounds of o.round, each round
// followed by the reference (insert) for as long as the round took, both
// with inFlight requests per CPU at once. After each round, o.settle (if
// any) waits for its background work, timed with the round when o.timed.
// It reports o's rate, the reference's and their ratio.
func pairedRounds(b *testing.B, insert func(int), o pairedOp) {
	b.Helper()
	ids := o.prepare(b.N)
	if o.settle != nil {
		o.settle()
	}
	b.ResetTimer()
	var spent, refSpent time.Duration
	var refs int
	for done := 0; done < b.N; {
		k := min(o.round, b.N-done)
		batch := ids[done : done+k]
		start := time.Now()
		inParallel(k, func(i int) { o.op(batch[i]) })
		if o.settle != nil && o.timed {
			o.settle()
		}
		d := time.Since(start)
		spent += d
		if o.settle != nil && !o.timed {
			o.settle()
		}
		n, took := inParallelFor(d, insert)
		refs, refSpent = refs+n, refSpent+took
		done += k
	}
	b.StopTimer()
	rate, ref := float64(b.N*max(o.weight, 1))/spent.Seconds(), float64(refs)/refSpent.Seconds()
	b.ReportMetric(rate, o.unit)
	b.ReportMetric(ref, "inserts/s")
	b.ReportMetric(rate/ref, "x-insert")
}

// noIDs prepares nothing: operations that need no id of their own.
func noIDs(n int) []string { return make([]string, n) }

// insertReference serves the bare INSERT reference on env's database
// (startInsertReference) and returns one call of it: a POST of a
// payment-sized body, answered 201.
func insertReference(b *testing.B, env *apptest.Env) func(int) {
	b.Helper()
	url := startInsertReference(b, env)
	body, _ := json.Marshal(with(with(euBody(), "communication", nil), "beneficiary", nil))
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 256}}
	b.Cleanup(client.CloseIdleConnections)
	return func(int) {
		resp, err := client.Post(url, "application/json", bytes.NewReader(body))
		if err != nil {
			b.Error(err)
			return
		}
		defer resp.Body.Close()
		out, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != http.StatusCreated {
			b.Errorf("reference INSERT: %d %s", resp.StatusCode, out)
		}
	}
}

// healthyReceiver is the merchant's receiver for a benchmark: it takes
// every notification at once, as a healthy one does (undelivered
// notifications would pile up and make each claim of the dispatcher
// slower).
func healthyReceiver(b *testing.B, env *apptest.Env) {
	b.Helper()
	receiver := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		w.WriteHeader(http.StatusNoContent)
	}))
	b.Cleanup(receiver.Close)
	env.SetNotificationURL(b, apptest.Merchant, receiver.URL)
}

// benchPost is an API POST of a benchmark with token: it returns the
// answer's body, or "" after reporting an error (any status but want).
func benchPost(b *testing.B, env *apptest.Env, token string) func(path string, body []byte, want int) []byte {
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 256}}
	b.Cleanup(client.CloseIdleConnections)
	return func(path string, body []byte, want int) []byte {
		req, _ := http.NewRequest(http.MethodPost, env.URL+path, bytes.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+token)
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("X-Service-Api-Version", "1")
		resp, err := client.Do(req)
		if err != nil {
			b.Error(err)
			return nil
		}
		defer resp.Body.Close()
		out, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != want {
			b.Errorf("POST %s: %d %s", path, resp.StatusCode, out)
			return nil
		}
		return out
	}
}

// connectRound is how many operations BenchmarkConnect runs between two
// rounds of the reference.
const connectRound = 100

// inParallel runs fn(0..n-1) with inFlight goroutines per CPU and returns
// how long it took.
func inParallel(n int, fn func(i int)) time.Duration {
	var next atomic.Int64
	var wg sync.WaitGroup
	start := time.Now()
	for range min(n, inFlight*runtime.GOMAXPROCS(0)) {
		wg.Go(func() {
			for i := int(next.Add(1)) - 1; i < n; i = int(next.Add(1)) - 1 {
				fn(i)
			}
		})
	}
	wg.Wait()
	return time.Since(start)
}

// inParallelFor runs fn with inFlight goroutines per CPU, each call after
// another, until d has passed; it returns how many calls ended and how
// long they took.
func inParallelFor(d time.Duration, fn func(i int)) (int, time.Duration) {
	var n atomic.Int64
	var wg sync.WaitGroup
	start := time.Now()
	for range inFlight * runtime.GOMAXPROCS(0) {
		wg.Go(func() {
			for time.Since(start) < d {
				fn(int(n.Add(1)))
			}
		})
	}
	wg.Wait()
	return int(n.Load()), time.Since(start)
}

// startInsertReference serves the bare INSERT reference on env's database
// (its own table, the instance's write pool) and returns its URL.
func startInsertReference(b *testing.B, env *apptest.Env) string {
	write, _ := env.App.Store().Pools()
	if _, err := write.ExecContext(b.Context(), `CREATE TABLE IF NOT EXISTS bench_reference (
		id TEXT PRIMARY KEY, customer_id TEXT NOT NULL, status TEXT NOT NULL, currency TEXT NOT NULL,
		amount BIGINT NOT NULL, request TEXT NOT NULL, created_at BIGINT NOT NULL)`); err != nil {
		b.Fatal(err)
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(r.Body)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		id := make([]byte, 16)
		_, _ = rand.Read(id)
		err = func(ctx context.Context) error {
			tx, err := write.BeginTx(ctx, nil)
			if err != nil {
				return err
			}
			if _, err := tx.ExecContext(ctx, `INSERT INTO bench_reference (id, customer_id, status, currency, amount, request, created_at)
				VALUES ($1, $2, $3, $4, $5, $6, $7)`, hex.EncodeToString(id), apptest.ShopID, "NEW_PAYMENT", "EUR", 1050,
				string(body), time.Now().UnixMicro()); err != nil {
				_ = tx.Rollback()
				return err
			}
			return tx.Commit()
		}(r.Context())
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusCreated)
		fmt.Fprintf(w, `{"id":%q}`, hex.EncodeToString(id))
	}))
	b.Cleanup(srv.Close)
	return srv.URL
}
