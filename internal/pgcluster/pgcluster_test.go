package pgcluster_test

import (
	"context"
	"database/sql"
	"testing"
	"time"

	"github.com/bankrail/bankrail/internal/pgcluster"
)

// TestClusterFailoverCycle runs the cycle an operator runs: a synchronous
// primary and standby, the primary killed, the standby promoted (found
// through the multi-host URL), the old primary rewound as the new standby,
// and a second failover back to it. No committed row is lost.
func TestClusterFailoverCycle(t *testing.T) {
	c := pgcluster.Start(t, pgcluster.Options{Synchronous: true, ApplyDelay: 300 * time.Millisecond})
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	db, err := sql.Open("pgx", c.URL("postgres"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	db.SetMaxIdleConns(0) // each statement connects anew: to whichever is primary now
	mustExec(t, db, `CREATE TABLE rows (n int PRIMARY KEY)`)
	mustExec(t, db, `INSERT INTO rows VALUES (1)`)
	if err := c.Exec(ctx, c.Standbys()[0], `SELECT 1`); err != nil {
		t.Fatalf("the standby takes reads: %v", err)
	}
	if err := c.Exec(ctx, c.Standbys()[0], `CREATE TABLE nope (n int)`); err == nil {
		t.Fatal("the standby took a write")
	}

	for round, n := 0, 2; round < 2; round, n = round+1, n+1 {
		old, standby := c.Primary(), c.Standbys()[0]
		if err := c.Kill(old); err != nil {
			t.Fatal(err)
		}
		if c.Primary() != nil {
			t.Fatal("a killed primary is still the primary")
		}
		if err := c.Promote(standby); err != nil {
			t.Fatal(err)
		}
		if c.Primary() != standby {
			t.Fatalf("round %d: primary %v, want %s", round, c.Primary(), standby.Name)
		}
		mustExec(t, db, `INSERT INTO rows VALUES ($1)`, n)
		if err := c.Rewind(old); err != nil {
			t.Fatal(err)
		}
		if got := c.Standbys(); len(got) != 1 || got[0] != old {
			t.Fatalf("round %d: standbys %v, want the old primary %s", round, got, old.Name)
		}
	}
	var count int
	if err := db.QueryRowContext(ctx, `SELECT count(*) FROM rows`).Scan(&count); err != nil {
		t.Fatal(err)
	}
	if count != 3 {
		t.Fatalf("%d rows after two failovers, want 3", count)
	}
}

func mustExec(t *testing.T, db *sql.DB, query string, args ...any) {
	t.Helper()
	if _, err := db.Exec(query, args...); err != nil {
		t.Fatalf("%s: %v", query, err)
	}
}

// TestPausedReplicationLosesAsynchronousCommits shows what asynchronous
// replication may lose: a commit the standby had not received when the
// primary died is not on the promoted standby.
func TestPausedReplicationLosesAsynchronousCommits(t *testing.T) {
	c := pgcluster.Start(t, pgcluster.Options{})
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	old, standby := c.Primary(), c.Standbys()[0]
	primary, err := sql.Open("pgx", old.URL("postgres"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { primary.Close() })
	mustExec(t, primary, `CREATE TABLE rows (n int PRIMARY KEY)`)
	mustExec(t, primary, `INSERT INTO rows VALUES (1)`)
	if err := c.WaitStreaming(ctx, old, 1); err != nil {
		t.Fatal(err)
	}
	resume, err := c.PauseReplication(ctx, standby)
	if err != nil {
		t.Fatal(err)
	}
	defer resume()
	mustExec(t, primary, `INSERT INTO rows VALUES (2)`) // acknowledged, never shipped
	if err := c.Kill(old); err != nil {
		t.Fatal(err)
	}
	if err := c.Promote(standby); err != nil {
		t.Fatal(err)
	}
	db, err := sql.Open("pgx", standby.URL("postgres"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	var rows []int
	r, err := db.QueryContext(ctx, `SELECT n FROM rows ORDER BY n`)
	if err != nil {
		t.Fatal(err)
	}
	for r.Next() {
		var n int
		if err := r.Scan(&n); err != nil {
			t.Fatal(err)
		}
		rows = append(rows, n)
	}
	if err := r.Err(); err != nil {
		t.Fatal(err)
	}
	if len(rows) != 1 || rows[0] != 1 {
		t.Fatalf("rows on the promoted standby: %v, want [1] (row 2 was never shipped)", rows)
	}
	if err := c.Rewind(old); err != nil { // the old primary's extra commit is rewound away
		t.Fatal(err)
	}
}
