package httpapi_test

import (
	"net/http"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/bankrail/bankrail/internal/apptest"
	"github.com/bankrail/bankrail/internal/dbtest"
)

// sample is one line of the Prometheus text format.
var sample = regexp.MustCompile(`^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$`)

// scrape reads GET /metrics into "name{labels}" -> value, labels as the
// exposition writes them (sorted by name).
func scrape(t *testing.T, env *apptest.Env) (map[string]float64, string) {
	t.Helper()
	resp := env.Do(t, apptest.Request{Method: "GET", Path: "/metrics"})
	if resp.Status != http.StatusOK {
		t.Fatalf("metrics: %d", resp.Status)
	}
	out := map[string]float64{}
	for _, line := range strings.Split(string(resp.Body), "\n") {
		m := sample.FindStringSubmatch(line)
		if m == nil || strings.HasPrefix(line, "#") {
			continue
		}
		v, err := strconv.ParseFloat(m[3], 64)
		if err != nil {
			t.Fatalf("metrics line %q: %v", line, err)
		}
		out[m[1]+"{"+m[2]+"}"] = v
	}
	return out, string(resp.Body)
}

// TestMetricsCountRequestsByRouteAndPaymentsByStatus scrapes /metrics after
// known requests: requests are counted and timed by route pattern (never
// the raw path) and status; payments created (replays excluded) and every
// move they made are counted, as their status history says.
func TestMetricsCountRequestsByRouteAndPaymentsByStatus(t *testing.T) {
	t.Parallel()
	apptest.Each(t, func(t *testing.T, env *apptest.Env) {
		token := env.Token(t, apptest.Merchant)
		p := mustCreate(t, env, token, euBody(), nil)
		key := map[string]string{"Idempotency-Key": "metrics-replay-1"}
		first := mustCreate(t, env, token, euBody(), key)
		if again := mustCreate(t, env, token, euBody(), key); again.ID != first.ID {
			t.Fatalf("the idempotent retry created %s", again.ID)
		}
		for range 2 {
			if r := env.Do(t, apptest.Request{Method: "GET", Path: "/payments/" + p.ID, Token: token}); r.Status != http.StatusOK {
				t.Fatalf("get: %d", r.Status)
			}
		}
		env.Do(t, apptest.Request{Method: "GET", Path: "/payments/00000000-0000-4000-8000-00000000dead", Token: token}).Error(t, http.StatusNotFound, "RESOURCE_NOT_FOUND")
		env.Do(t, apptest.Request{Method: "GET", Path: "/no/such/" + p.ID}).Error(t, http.StatusNotFound, "RESOURCE_NOT_FOUND")
		mustAuthorise(t, env, token, p.ID, "COMPLETED")
		_, history := statusHistory(t, env, token, p.ID)

		got, text := scrape(t, env)
		want := map[string]float64{
			`bankrail_http_requests_total{code="200",method="POST",route="/oauth"}`:                           1,
			`bankrail_http_requests_total{code="201",method="POST",route="/payments"}`:                        3,
			`bankrail_http_requests_total{code="200",method="GET",route="/payments/{id}"}`:                    3, // 2 + statusHistory
			`bankrail_http_requests_total{code="404",method="GET",route="/payments/{id}"}`:                    1,
			`bankrail_http_requests_total{code="404",method="GET",route="unmatched"}`:                         1,
			`bankrail_http_request_duration_seconds_count{code="200",method="GET",route="/payments/{id}"}`:    3,
			`bankrail_http_requests_total{code="200",method="POST",route="/sandbox/payments/{id}/authorise"}`: 1,
			`bankrail_payments_created_total{channel="hosted",payment_system="OPEN_BANKING_EU"}`:              2,
			`bankrail_payments_moved_total{status="COMPLETED"}`:                                               1,
		}
		for name, w := range want {
			if got[name] != w {
				t.Errorf("%s = %v, want %v", name, got[name], w)
			}
		}
		moves := 0.0
		for name, v := range got {
			if strings.HasPrefix(name, "bankrail_payments_moved_total{") {
				moves += v
			}
		}
		// Every move of the history after NEW_PAYMENT, and nothing else.
		if n := len(strings.Fields(history)) - 1; moves != float64(n) || n < 2 {
			t.Errorf("moves counted %v, the history %q has %d", moves, history, n)
		}
		// The store's transactions: these requests' writes each ran alone
		// (one at a time), none lost its commit's outcome; the connection
		// pools' statistics are there (one pool on PostgreSQL, the writer's
		// and the readers' on SQLite).
		if got[`bankrail_store_transaction_units_count{pass="alone"}`] < 4 || got[`bankrail_store_transaction_seconds_count{pass="alone"}`] < 4 {
			t.Errorf("store transactions alone: %v units histogram count, %v seconds; want the 4 writes at least",
				got[`bankrail_store_transaction_units_count{pass="alone"}`], got[`bankrail_store_transaction_seconds_count{pass="alone"}`])
		}
		// The writer's CPU is measured on SQLite (on PostgreSQL it is 0:
		// its writer is not locked to a thread, store.lockWriter).
		if runtime.GOOS == "linux" && env.DB.Engine != dbtest.Postgres && got[`bankrail_store_transaction_cpu_seconds_total{pass="alone"}`] <= 0 {
			t.Errorf("bankrail_store_transaction_cpu_seconds_total{pass=\"alone\"} = %v, want the writer's CPU time of the 4 writes",
				got[`bankrail_store_transaction_cpu_seconds_total{pass="alone"}`])
		}
		if v, ok := got[`bankrail_store_commit_outcome_unknown_units_total{}`]; !ok || v != 0 {
			t.Errorf("bankrail_store_commit_outcome_unknown_units_total = %v (present %v), want 0", v, ok)
		}
		pools := 0
		for name, v := range got {
			if strings.HasPrefix(name, "go_sql_max_open_connections{") && v > 0 {
				pools++
			}
		}
		if pools == 0 {
			t.Error("no connection pool statistics (go_sql_max_open_connections)")
		}
		if strings.Contains(text, p.ID) || strings.Contains(text, "00000000dead") {
			t.Error("a raw path (a payment id) is a label value: one series per payment")
		}
	})
}
