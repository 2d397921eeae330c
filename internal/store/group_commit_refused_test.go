package store_test

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"testing"

	"github.com/bankrail/bankrail/internal/dbtest"
	"github.com/bankrail/bankrail/internal/errs"
	"github.com/bankrail/bankrail/internal/identity"
	"github.com/bankrail/bankrail/internal/store"
)

// A unit refused in a group because of what a unit before it wrote (a
// refund refused because of a reservation) is answered only once the
// group committed. Here the group does not commit: the unit after it is
// cancelled in the middle of a statement, which breaks the transaction;
// the writer, run again alone, fails (its request gave up too), so the
// refused unit, run again alone, is accepted.
func TestGroupCommitRunsARefusedUnitAgainWhenTheGroupBreaks(t *testing.T) {
	t.Parallel()
	dbtest.EachMigrated(t, func(t *testing.T, db dbtest.DB) {
		s := open(t, db)
		st := newStall(t, s, db)
		gone, leave := context.WithCancel(context.Background())
		defer leave()
		refusalAfterTheGroup(t, s, s, "22000000-0000-4000-8000-000000000005", groupFailure{writerCtx: gone,
			breaker:      func(tx *store.Tx) error { return st.run(gone, tx) },
			afterRelease: func() { st.waitRunning(t); leave() }})
	})
}

// The same when the group's commit fails with nothing written: the writer
// broke a deferred constraint, which is checked at COMMIT; run again alone
// it fails at its own commit, and the refused unit is accepted.
func TestGroupCommitRunsARefusedUnitAgainWhenTheCommitFails(t *testing.T) {
	t.Parallel()
	dbtest.EachMigrated(t, func(t *testing.T, db dbtest.DB) {
		s := open(t, db)
		ctx := context.Background()
		for _, q := range []string{`CREATE TABLE ref_parent (id BIGINT PRIMARY KEY)`,
			`CREATE TABLE ref_child (id BIGINT PRIMARY KEY, parent BIGINT REFERENCES ref_parent (id) DEFERRABLE INITIALLY DEFERRED)`} {
			if err := s.Exec(ctx, q); err != nil {
				t.Fatal(err)
			}
		}
		refusalAfterTheGroup(t, s, s, "22000000-0000-4000-8000-000000000006", groupFailure{writerCtx: ctx,
			writerExtra: func(tx *store.Tx) error { return tx.Exec(ctx, `INSERT INTO ref_child (id, parent) VALUES (1, 999)`) }})
		// The writer's constraint left nothing open: the store goes on.
		if err := s.InTx(ctx, func(tx *store.Tx) error { return tx.Exec(ctx, `INSERT INTO ref_parent (id) VALUES (1)`) }); err != nil {
			t.Fatalf("a unit after the failed commits: %v", err)
		}
	})
}

// The same when the group's COMMIT was sent and its answer never came
// (PostgreSQL): the writer gets the error (its outcome is unknown); the
// refused unit wrote nothing, so it runs again alone, and sees what the
// commit left (here nothing: the proxy dropped the COMMIT).
func TestGroupCommitRunsARefusedUnitAgainWhenTheCommitsOutcomeIsUnknown(t *testing.T) {
	t.Parallel()
	db := dbtest.Migrated(t, dbtest.Postgres)
	direct := open(t, db)
	proxy := newCommitCutter(t, db.DatabaseURL)
	s, err := store.Open(context.Background(), store.Options{DatabaseURL: proxy.url}, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatalf("open store through the proxy: %v", err)
	}
	t.Cleanup(func() { s.Close() })
	refusalAfterTheGroup(t, s, direct, "22000000-0000-4000-8000-000000000007", groupFailure{writerCtx: context.Background(),
		beforeRelease: proxy.arm})
	if !proxy.cut.Load() {
		t.Fatal("the proxy saw no COMMIT to cut")
	}
}

// groupFailure is how a group of refusalAfterTheGroup fails to commit.
type groupFailure struct {
	writerCtx   context.Context       // the writer's request
	writerExtra func(*store.Tx) error // run by the writer after its write, if set
	breaker     func(*store.Tx) error // a third unit, if set
	// beforeRelease and afterRelease, if set, run just before and after
	// the group is let go.
	beforeRelease, afterRelease func()
}

// refusalAfterTheGroup runs (on s; direct reads and sets up) two or three
// units as one group: a writer that creates a payment (then runs
// f.writerExtra); a unit refused when that payment exists and that
// otherwise creates its own; and f.breaker. The group must not commit,
// the writer must fail (run alone, or its commit's outcome unknown), and
// the refused unit must then be accepted, its payment written and the
// writer's not.
func refusalAfterTheGroup(t *testing.T, s, direct *store.Store, customer string, f groupFailure) {
	t.Helper()
	ctx := context.Background()
	shop := identity.Customer{ID: customer, Name: "Shop", CreatedAt: t0}
	if err := direct.CreateCustomer(ctx, shop); err != nil {
		t.Fatal(err)
	}
	reserved := testPayment("47000000-0000-4000-8000-000000000001", shop.ID, "RESERVED01", t0)
	refund := testPayment("47000000-0000-4000-8000-000000000002", shop.ID, "REFUND0001", t0)
	tooHigh := errors.New("refused: the reservation leaves too little")
	units := []func() error{
		func() error {
			return s.InTx(f.writerCtx, func(tx *store.Tx) error {
				if err := tx.Payments().Create(f.writerCtx, reserved); err != nil {
					return err
				}
				if f.writerExtra != nil {
					return f.writerExtra(tx)
				}
				return nil
			})
		},
		func() error {
			return s.InTx(ctx, func(tx *store.Tx) error {
				if _, err := tx.Payments().Get(ctx, shop.ID, reserved.ID); err == nil {
					return tooHigh
				} else if !errs.Is(err, errs.NotFound) {
					return err
				}
				return tx.Payments().Create(ctx, refund)
			})
		},
	}
	if f.breaker != nil {
		units = append(units, func() error { return s.InTx(f.writerCtx, f.breaker) })
	}
	obs := &commitLog{}
	s.ObserveCommits(obs)
	results := make([]error, len(units))
	release := s.HoldGroupWorkers(ctx)
	var wg sync.WaitGroup
	for i, u := range units {
		wg.Go(func() { results[i] = u() })
		waitFor(t, func() bool { return s.QueuedUnits() == i+1 }, fmt.Sprintf("unit %d to queue", i)) // in order
	}
	if f.beforeRelease != nil {
		f.beforeRelease()
	}
	release()
	if f.afterRelease != nil {
		f.afterRelease()
	}
	wg.Wait()
	if results[0] == nil {
		t.Fatalf("the writer committed; the test needs it to fail")
	}
	if _, err := direct.Payments().Get(ctx, shop.ID, reserved.ID); !errs.Is(err, errs.NotFound) {
		t.Errorf("the writer's payment: %v; want not found (it never committed)", err)
	}
	if results[1] != nil {
		t.Errorf("the refund: %v; want it accepted (the reservation it was refused for never committed)", results[1])
	}
	if _, err := direct.Payments().Get(ctx, shop.ID, refund.ID); results[1] == nil && err != nil {
		t.Errorf("the refund was accepted but its payment is not there: %v", err)
	}
	obs.mu.Lock()
	defer obs.mu.Unlock()
	if obs.again[store.AgainGroupFailed] < 1 {
		t.Errorf("the observer was told of units run again %v; want the refused unit among group_failed", obs.again)
	}
}
