package app_test

import (
	"context"
	"database/sql"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/bankrail/bankrail/internal/apptest"
	"github.com/bankrail/bankrail/internal/config"
	"github.com/bankrail/bankrail/internal/dbtest"
	"github.com/bankrail/bankrail/internal/pgcluster"
)

// TestReadReplicaOnAStreamingStandby runs an instance on a primary with an
// asynchronous streaming standby as its --replica-url (issue 32, item 3):
//   - list pages read on the standby: with its WAL held back, a payment
//     just created is answered by GET /payments/{id} (the primary) and
//     missing from GET /payments (the standby);
//   - a standby lagging beyond --replica-max-lag is skipped: the list
//     shows the payment, the lag metric is above the bound;
//   - report generation reads on the standby (the standby's
//     pg_stat_statements counts the report's query, the primary's does
//     not) and still holds every payment made before it;
//   - a standby that dies is skipped at once: lists answer 200 from the
//     primary, the lag metric is -1.
func TestReadReplicaOnAStreamingStandby(t *testing.T) {
	c := pgcluster.Start(t, pgcluster.Options{Settings: []string{"shared_preload_libraries = 'pg_stat_statements'"}})
	standby := c.Standbys()[0]
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	if err := c.Exec(ctx, c.Primary(), `CREATE EXTENSION pg_stat_statements`); err != nil {
		t.Fatal(err)
	}
	const maxLag = 2 * time.Second
	env := apptest.NewOn(t, dbtest.DB{Engine: dbtest.Postgres, DatabaseURL: c.Primary().URL("postgres")}, func(cfg *config.Config) {
		cfg.ReplicaURL = standby.URL("postgres")
		cfg.ReplicaMaxLag, cfg.ReplicaCheckInterval = maxLag, 100*time.Millisecond
	})
	monitor := env.App.Replica()
	apptest.Eventually(t, "the standby in use", monitor.Used)
	shop := env.Token(t, apptest.Merchant)
	listed := func(id string) bool {
		t.Helper()
		resp := env.Do(t, apptest.Request{Method: "GET", Path: "/payments?limit=100", Token: shop})
		if resp.Status != http.StatusOK {
			t.Fatalf("GET /payments: %d %s", resp.Status, resp.Body)
		}
		return strings.Contains(string(resp.Body), id)
	}
	a := env.CreatePayment(t, shop, "hosted", apptest.EUPayment(), nil).ID
	apptest.Eventually(t, "the first payment listed", func() bool { return listed(a) })

	// The standby's WAL is held back: within the bound, lists read there.
	resume, err := c.PauseReplication(ctx, standby)
	if err != nil {
		t.Fatal(err)
	}
	b := env.CreatePayment(t, shop, "hosted", apptest.EUPayment(), nil).ID
	if resp := env.Do(t, apptest.Request{Method: "GET", Path: "/payments/" + b, Token: shop}); resp.Status != http.StatusOK {
		t.Fatalf("GET /payments/%s right after its creation: %d %s", b, resp.Status, resp.Body)
	}
	before := monitor.Used()
	onStandby := !listed(b)
	if !before || !monitor.Used() || !onStandby {
		t.Fatalf("right after the pause: replica used %v (after the list %v), the list read on the standby %v; want all true", before, monitor.Used(), onStandby)
	}
	// Beyond the bound it is skipped.
	apptest.Eventually(t, "the lagging standby skipped", func() bool { return !monitor.Used() })
	if !listed(b) {
		t.Fatal("a list while the standby is skipped lacks the payment the primary has")
	}
	if lag := replicaLag(t, env); lag <= maxLag.Seconds() {
		t.Fatalf("bankrail_replica_lag_seconds %v, want above the bound %s", lag, maxLag)
	}
	resume()
	apptest.Eventually(t, "the standby in use again", monitor.Used)

	// A report generated now reads on the standby and holds both payments.
	id := requestPaymentsReport(t, env, shop)
	csv := string(env.Do(t, apptest.Request{Method: "GET", Path: "/reports/" + id + "/download", Token: shop}).Body)
	if !strings.Contains(csv, a) || !strings.Contains(csv, b) {
		t.Fatalf("the report lacks a payment made before it (%s, %s):\n%s", a, b, csv)
	}
	if on, off := reportQueries(ctx, t, standby), reportQueries(ctx, t, c.Primary()); on == 0 || off != 0 {
		t.Fatalf("the report's query ran %d times on the standby and %d on the primary; want some and none", on, off)
	}

	// The standby dies: lists answer from the primary at once.
	if err := c.Kill(standby); err != nil {
		t.Fatal(err)
	}
	if !listed(a) || !listed(b) {
		t.Fatal("a list right after the standby died lacks a payment")
	}
	apptest.Eventually(t, "the dead standby skipped", func() bool { return !monitor.Used() })
	if lag := replicaLag(t, env); lag != -1 {
		t.Fatalf("bankrail_replica_lag_seconds %v with the standby dead, want -1", lag)
	}
}

// requestPaymentsReport requests a PAYMENTS report of the fake clock's
// day and waits until it is available.
func requestPaymentsReport(t *testing.T, env *apptest.Env, token string) string {
	t.Helper()
	resp := env.Do(t, apptest.Request{Method: "POST", Path: "/reports/payments", Token: token, Body: map[string]any{
		"startDate": apptest.Epoch.Add(-time.Hour).Format(time.RFC3339), "endDate": apptest.Epoch.Add(24 * time.Hour).Format(time.RFC3339)}})
	if resp.Status != http.StatusCreated {
		t.Fatalf("POST /reports/payments: %d %s", resp.Status, resp.Body)
	}
	var rec struct{ ID, Status string }
	resp.JSON(t, &rec)
	apptest.Eventually(t, "report "+rec.ID+" generated", func() bool {
		env.Do(t, apptest.Request{Method: "GET", Path: "/reports/" + rec.ID, Token: token}).JSON(t, &rec)
		return rec.Status == "REPORT_AVAILABLE" || rec.Status == "REPORT_FAILED"
	})
	if rec.Status != "REPORT_AVAILABLE" {
		t.Fatalf("report %s: %s", rec.ID, rec.Status)
	}
	return rec.ID
}

// reportQueries is how often node ran the PAYMENTS report's query of
// one customer's payments (pg_stat_statements, in shared memory: no
// flush delay).
func reportQueries(ctx context.Context, t *testing.T, node *pgcluster.Node) int64 {
	t.Helper()
	db, err := sql.Open("pgx", node.URL("postgres"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var n int64
	if err := db.QueryRowContext(ctx, `SELECT COALESCE(SUM(calls), 0) FROM pg_stat_statements
		WHERE query LIKE '%FROM payments WHERE customer_id = $1 AND created_at >= $2 AND created_at <= $3 ORDER BY created_at, id%'`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

var lagLine = regexp.MustCompile(`(?m)^bankrail_replica_lag_seconds (\S+)$`)

// replicaLag is bankrail_replica_lag_seconds from GET /metrics.
func replicaLag(t *testing.T, env *apptest.Env) float64 {
	t.Helper()
	body := env.Do(t, apptest.Request{Method: "GET", Path: "/metrics"}).Body
	m := lagLine.FindSubmatch(body)
	if m == nil {
		t.Fatalf("no bankrail_replica_lag_seconds in /metrics:\n%s", body)
	}
	v, err := strconv.ParseFloat(string(m[1]), 64)
	if err != nil {
		t.Fatal(err)
	}
	return v
}
