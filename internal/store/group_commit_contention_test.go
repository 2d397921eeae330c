package store_test

import (
	"context"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"slices"
	"sync"
	"testing"

	"github.com/bankrail/bankrail/internal/dbtest"
	"github.com/bankrail/bankrail/internal/store"
)

// Units of work that each lock two of a few hot rows in the order of
// their ids cannot deadlock alone; grouped, two groups at once can (each
// holds the rows of all its units until it commits). On PostgreSQL the
// store then runs groups one at a time for a while and tries a unit that
// lost again alone: no unit is answered with a deadlock, and every
// movement is there.
func TestGroupCommitAnswersNoDeadlockToUnitsThatLockInOrder(t *testing.T) {
	t.Parallel()
	s, obs := hotRows(t)
	failed, want := contend(t, s, 600)
	if failed != 0 {
		t.Errorf("%d of 600 units were answered with an error (lost to another transaction); want none", failed)
	}
	write, _ := s.Pools()
	for id := 1; id <= hotRowCount; id++ {
		var n int64
		if err := write.QueryRowContext(context.Background(), `SELECT n FROM hot WHERE id = $1`, id).Scan(&n); err != nil {
			t.Fatal(err)
		}
		if n != want[id] {
			t.Errorf("row %d is %d; want %d (the movements of the units answered success)", id, n, want[id])
		}
	}
	obs.mu.Lock()
	defer obs.mu.Unlock()
	t.Logf("units run again alone: %v", obs.again)
}

// BenchmarkGroupCommitContention measures how often units of work of
// different groups deadlock on PostgreSQL where single transactions would
// not (contend). It reports the units run again alone per unit
// (lost-to-another/op: deadlocks and serialisation failures,
// bankrail_store_units_run_again_total), the units answered with an error
// (failed/op) and the units per committed group.
//
//	go test -run '^$' -bench GroupCommitContention -benchtime 1000x ./internal/store/
func BenchmarkGroupCommitContention(b *testing.B) {
	s, obs := hotRows(b)
	b.ResetTimer()
	failed, _ := contend(b, s, b.N)
	b.StopTimer()
	obs.mu.Lock()
	defer obs.mu.Unlock()
	var units, groups int
	for _, g := range obs.committed {
		var pass string
		var n int
		if _, err := fmt.Sscan(g, &pass, &n); err == nil {
			units, groups = units+n, groups+1
		}
	}
	b.ReportMetric(float64(failed)/float64(b.N), "failed/op")
	b.ReportMetric(float64(obs.again[store.AgainLostToAnother])/float64(b.N), "lost-to-another/op")
	b.ReportMetric(float64(obs.again[store.AgainGroupFailed])/float64(b.N), "group-failed/op")
	if groups > 0 {
		b.ReportMetric(float64(units)/float64(groups), "units/group")
	}
}

// hotRowCount is how many rows the units of contend share.
const hotRowCount = 8

// hotRows opens a store on a fresh PostgreSQL schema with a table hot of
// hotRowCount rows, observed.
func hotRows(tb testing.TB) (*store.Store, *commitLog) {
	tb.Helper()
	db := dbtest.Migrated(tb, dbtest.Postgres)
	s, err := store.Open(context.Background(), store.Options{DatabaseURL: db.DatabaseURL}, slog.New(slog.DiscardHandler))
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { s.Close() })
	ctx := context.Background()
	if err := s.Exec(ctx, `CREATE TABLE hot (id INT PRIMARY KEY, n BIGINT NOT NULL)`); err != nil {
		tb.Fatal(err)
	}
	if err := s.Exec(ctx, `INSERT INTO hot SELECT i, 0 FROM generate_series(1, $1) i`, hotRowCount); err != nil {
		tb.Fatal(err)
	}
	obs := &commitLog{}
	s.ObserveCommits(obs)
	return s, obs
}

// contend runs units units from 32 clients, each moving 1 from one of the
// hot rows to another (both locked in the order of their ids, as the
// ledger's post does), and returns how many were answered with an error
// and what each row must hold after those answered success.
func contend(tb testing.TB, s *store.Store, units int) (failed int, want map[int]int64) {
	tb.Helper()
	ctx := context.Background()
	want = map[int]int64{}
	var mu sync.Mutex
	left := units
	var wg sync.WaitGroup
	for range 32 {
		wg.Go(func() {
			for {
				mu.Lock()
				if left == 0 {
					mu.Unlock()
					return
				}
				left--
				mu.Unlock()
				pair := []int{rand.IntN(hotRowCount) + 1, rand.IntN(hotRowCount) + 1}
				from, to := pair[0], pair[1]
				slices.Sort(pair)
				err := s.InTx(ctx, func(tx *store.Tx) error {
					for _, id := range pair {
						delta := 0
						if id == from {
							delta--
						}
						if id == to {
							delta++
						}
						if err := tx.Exec(ctx, `UPDATE hot SET n = n + $2 WHERE id = $1`, id, delta); err != nil {
							return err
						}
					}
					return nil
				})
				mu.Lock()
				if err != nil {
					failed++
				} else {
					want[from]--
					want[to]++
				}
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	return failed, want
}
