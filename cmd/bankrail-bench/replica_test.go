package main

import (
	"os"
	"strconv"
	"testing"

	"github.com/bankrail/bankrail/internal/pgcluster"
)

// TestReplicaPhase runs the replica phase on a primary and an asynchronous
// streaming standby of the machine's PostgreSQL (pgcluster): at 2,000
// payments and 3 s per phase by default, a check that it runs and no create
// fails. BANKRAIL_BENCH_REPLICA_PAYMENTS, _DURATION and _ROUNDS make it the
// measurement (docs/performance.md, "Read replicas"):
//
//	BANKRAIL_BENCH_REPLICA_PAYMENTS=1000000 BANKRAIL_BENCH_REPLICA_DURATION=60s BANKRAIL_BENCH_REPLICA_ROUNDS=6 \
//	  go test -run TestReplicaPhase -v -timeout 30m ./cmd/bankrail-bench/
//
// BANKRAIL_BENCH_REPLICA_STANDBY_NICE=19 lowers the standby's processes'
// CPU priority: a stand-in, on one shared machine, for a standby on a
// machine of its own (its reads then take the processors only when the
// primary and the service leave them). BANKRAIL_BENCH_REPLICA_DUTY sets
// the instance's --report-duty-cycle; the fourth phase reads on the
// replica with reports at duty cycle 50 (the pacer before the setting),
// or at BANKRAIL_BENCH_REPLICA_COMPARE_DUTY (0: no fourth phase);
// BANKRAIL_BENCH_REPLICA_PAGE_EVERY sets each list reader's pace (0: back
// to back).
func TestReplicaPhase(t *testing.T) {
	payments, duration, rounds := "2000", "3s", "3"
	if v := os.Getenv("BANKRAIL_BENCH_REPLICA_ROUNDS"); v != "" {
		rounds = v
	}
	if v := os.Getenv("BANKRAIL_BENCH_REPLICA_PAYMENTS"); v != "" {
		if _, err := strconv.Atoi(v); err != nil {
			t.Fatalf("BANKRAIL_BENCH_REPLICA_PAYMENTS=%q: %v", v, err)
		}
		payments = v
	}
	if v := os.Getenv("BANKRAIL_BENCH_REPLICA_DURATION"); v != "" {
		duration = v
	}
	c := pgcluster.Start(t, pgcluster.Options{Settings: []string{"shared_buffers = '256MB'", "max_wal_size = '4GB'"}})
	if v := os.Getenv("BANKRAIL_BENCH_REPLICA_STANDBY_NICE"); v != "" {
		nice, err := strconv.Atoi(v)
		if err != nil {
			t.Fatalf("BANKRAIL_BENCH_REPLICA_STANDBY_NICE=%q: %v", v, err)
		}
		if err := c.Renice(c.Standbys()[0], nice); err != nil {
			t.Fatal(err)
		}
		t.Logf("the standby's processes run at nice %d (a stand-in for a machine of its own)", nice)
	}
	args := []string{"--database-url", c.Primary().URL("postgres"), "--replica-url", c.Standbys()[0].URL("postgres"),
		"--payments", payments, "--duration", duration, "--rounds", rounds, "--compare-duty-cycle", "50"}
	if v := os.Getenv("BANKRAIL_BENCH_REPLICA_DUTY"); v != "" {
		args = append(args, "--report-duty-cycle", v)
	}
	if v := os.Getenv("BANKRAIL_BENCH_REPLICA_COMPARE_DUTY"); v != "" {
		args = append(args, "--compare-duty-cycle", v)
	}
	if v := os.Getenv("BANKRAIL_BENCH_REPLICA_PAGE_EVERY"); v != "" {
		args = append(args, "--page-every", v)
	}
	err := runReplica(args)
	if err != nil {
		t.Fatal(err)
	}
}
