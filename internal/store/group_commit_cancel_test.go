package store_test

import (
	"context"
	"database/sql/driver"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"modernc.org/sqlite"

	"github.com/bankrail/bankrail/internal/dbtest"
	"github.com/bankrail/bankrail/internal/errs"
	"github.com/bankrail/bankrail/internal/identity"
	"github.com/bankrail/bankrail/internal/store"
)

// A unit grouped with others whose request is cancelled while one of its
// statements runs (on PostgreSQL the statement's connection is the
// group's; on SQLite an interrupted write rolls back the whole
// transaction) changes no other unit's answer: each gets what it would
// get alone, promptly, and what succeeded is committed.
func TestGroupCommitKeepsAnswersWhenAUnitIsCancelledMidStatement(t *testing.T) {
	t.Parallel()
	dbtest.EachMigrated(t, func(t *testing.T, db dbtest.DB) {
		s := open(t, db)
		ctx := context.Background()
		shop := identity.Customer{ID: "22000000-0000-4000-8000-000000000004", Name: "Shop", CreatedAt: t0}
		if err := s.CreateCustomer(ctx, shop); err != nil {
			t.Fatal(err)
		}
		st := newStall(t, s, db)
		const n, cancelled, failing = 8, 4, 2
		own := errors.New("the unit's own failure")
		id := func(i int) string { return fmt.Sprintf("46000000-0000-4000-8000-%012d", i) }
		cctx, cancel := context.WithCancel(ctx)
		defer cancel()
		results := make([]error, n)
		release := s.HoldGroupWorkers(ctx)
		var wg sync.WaitGroup
		for i := range n {
			uctx := ctx
			if i == cancelled {
				uctx = cctx
			}
			wg.Go(func() {
				results[i] = s.InTx(uctx, func(tx *store.Tx) error {
					if err := tx.Payments().Create(uctx, testPayment(id(i), shop.ID, fmt.Sprintf("C%09d", i), t0)); err != nil {
						return err
					}
					switch i {
					case cancelled:
						return st.run(uctx, tx)
					case failing:
						return own
					}
					return nil
				})
			})
			waitFor(t, func() bool { return s.QueuedUnits() == i+1 }, "the unit to queue") // in order
		}
		release()
		st.waitRunning(t)
		cancel()
		answered := make(chan struct{})
		go func() { wg.Wait(); close(answered) }()
		select {
		case <-answered:
		case <-time.After(30 * time.Second):
			t.Fatal("the units were not answered within 30 s of the cancellation (waiting behind the cancelled statement?)")
		}
		for i, err := range results {
			_, getErr := s.Payments().Get(ctx, shop.ID, id(i))
			switch i {
			case cancelled:
				if err == nil || !errs.Is(getErr, errs.NotFound) {
					t.Errorf("the cancelled unit: %v, read %v; want an error and nothing written", err, getErr)
				}
			case failing:
				if !errors.Is(err, own) || !errs.Is(getErr, errs.NotFound) {
					t.Errorf("unit %d: %v, read %v; want its own error and nothing written", i, err, getErr)
				}
			default:
				if err != nil || getErr != nil {
					t.Errorf("unit %d: %v, read %v; want it committed", i, err, getErr)
				}
			}
		}
	})
}

// stall is a statement that runs until its context ends: on SQLite a
// write whose recursion never ends in time (its start signalled by the
// function bankrail_test_started), on PostgreSQL a write after
// pg_sleep(120) (its start seen in pg_stat_activity).
type stall struct {
	s       *store.Store
	db      dbtest.DB
	key     string
	started chan struct{}
}

// stallsStarted maps a stall's key to its channel, closed by
// bankrail_test_started(key) once its statement runs.
var stallsStarted sync.Map

var stallKeys atomic.Int64

func init() {
	sqlite.MustRegisterScalarFunction("bankrail_test_started", 1, func(_ *sqlite.FunctionContext, args []driver.Value) (driver.Value, error) {
		if ch, ok := stallsStarted.LoadAndDelete(args[0]); ok {
			close(ch.(chan struct{}))
		}
		return int64(0), nil
	})
}

// newStall makes the table its statement writes to.
func newStall(t *testing.T, s *store.Store, db dbtest.DB) *stall {
	t.Helper()
	if err := s.Exec(context.Background(), `CREATE TABLE IF NOT EXISTS stall_scratch (x BIGINT)`); err != nil {
		t.Fatal(err)
	}
	st := &stall{s: s, db: db, key: fmt.Sprintf("stall%d_%d", time.Now().UnixNano(), stallKeys.Add(1)), started: make(chan struct{})}
	stallsStarted.Store(st.key, st.started)
	return st
}

// run runs the statement in tx with ctx.
func (st *stall) run(ctx context.Context, tx *store.Tx) error {
	if st.db.Engine == dbtest.SQLite {
		return tx.Exec(ctx, `WITH RECURSIVE c(x) AS (SELECT bankrail_test_started($1) UNION ALL SELECT x + 1 FROM c WHERE x < 100000000000)
			INSERT INTO stall_scratch SELECT x FROM c WHERE x < 0`, st.key)
	}
	return tx.Exec(ctx, `INSERT INTO stall_scratch SELECT 1 FROM pg_sleep(120) /* `+st.key+` */`)
}

// waitRunning returns once the statement runs.
func (st *stall) waitRunning(t *testing.T) {
	t.Helper()
	if st.db.Engine == dbtest.SQLite {
		select {
		case <-st.started:
		case <-time.After(30 * time.Second):
			t.Fatal("the stalling statement did not start within 30 s")
		}
		return
	}
	write, _ := st.s.Pools()
	waitFor(t, func() bool {
		var running int
		err := write.QueryRowContext(context.Background(), `SELECT COUNT(*) FROM pg_stat_activity
			WHERE state = 'active' AND pid <> pg_backend_pid() AND query LIKE '%' || $1 || '%'`, st.key).Scan(&running)
		return err == nil && running > 0
	}, "the stalling statement to run")
}
