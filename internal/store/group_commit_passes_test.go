package store_test

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/bankrail/bankrail/internal/dbtest"
	"github.com/bankrail/bankrail/internal/errs"
	"github.com/bankrail/bankrail/internal/identity"
	"github.com/bankrail/bankrail/internal/store"
)

// A group runs its units without savepoints while they succeed; when one
// fails, the group runs again with savepoints (the failing unit gets its
// error and leaves nothing, the others commit), and so do the next groups
// for a while.
func TestGroupCommitRunsUnitsTogetherUntilOneFails(t *testing.T) {
	t.Parallel()
	dbtest.EachMigrated(t, func(t *testing.T, db dbtest.DB) {
		s := open(t, db)
		ctx := context.Background()
		shop := identity.Customer{ID: "22000000-0000-4000-8000-000000000002", Name: "Shop", CreatedAt: t0}
		if err := s.CreateCustomer(ctx, shop); err != nil {
			t.Fatal(err)
		}
		own := errors.New("the unit's own failure")
		const n = 10
		// group runs n units as one group; unit failing (if 0 <= failing < n)
		// writes its payment and then fails.
		group := func(round, failing int) []error {
			t.Helper()
			results := asOneGroup(t, ctx, s, n, func(i int, tx *store.Tx) error {
				p := testPayment(fmt.Sprintf("44000000-0000-4000-8000-%06d%06d", round, i), shop.ID,
					fmt.Sprintf("P%02d%07d", round, i), t0)
				if err := tx.Payments().Create(ctx, p); err != nil {
					return err
				}
				if i == failing {
					return own
				}
				return nil
			})
			for i, err := range results {
				_, getErr := s.Payments().Get(ctx, shop.ID, fmt.Sprintf("44000000-0000-4000-8000-%06d%06d", round, i))
				if i == failing {
					if !errors.Is(err, own) || !errs.Is(getErr, errs.NotFound) {
						t.Errorf("round %d, unit %d: %v, read %v; want its own error and nothing written", round, i, err, getErr)
					}
				} else if err != nil || getErr != nil {
					t.Errorf("round %d, unit %d: %v, read %v; want it committed", round, i, err, getErr)
				}
			}
			return results
		}
		passes := func(want [2]int64, what string) {
			t.Helper()
			together, withSavepoints := s.GroupPasses()
			if got := [2]int64{together, withSavepoints}; got != want {
				t.Fatalf("%s: %d passes without savepoints, %d with; want %d and %d", what, got[0], got[1], want[0], want[1])
			}
		}
		obs := &commitLog{}
		s.ObserveCommits(obs)
		// committed checks what the observer was told of the last group
		// (the workers' holding units are transactions of their own).
		committed := func(want string) {
			t.Helper()
			if got := obs.groups(); len(got) == 0 || got[len(got)-1] != want {
				t.Fatalf("committed groups %v; want the last to be %s", got, want)
			}
		}
		passes([2]int64{0, 0}, "before")
		group(1, -1)
		passes([2]int64{1, 0}, "a group of units that all succeed")
		committed("together 10")
		group(2, 4)
		passes([2]int64{2, 1}, "a group with a failing unit")
		committed("savepoints 9")
		group(3, -1)
		passes([2]int64{2, 2}, "the group after a failure")
		committed("savepoints 10")
		if got := obs.alone(); got < 3*s.GroupWorkers() {
			t.Errorf("%d transactions of one unit; want at least the %d holding units", got, 3*s.GroupWorkers())
		}
		if odd := obs.oddities(); len(odd) > 0 {
			t.Errorf("observations that cannot be: %v", odd)
		}
		// The writer's CPU is read from its thread's clock on Linux, on
		// SQLite; on PostgreSQL the writer is not locked to a thread and
		// its CPU is not measured (store.lockWriter).
		switch cpu := obs.writerCPU(); {
		case runtime.GOOS == "linux" && db.Engine != dbtest.Postgres && cpu <= 0:
			t.Error("no CPU time of the writer observed (its thread's clock is read on Linux)")
		case db.Engine == dbtest.Postgres && cpu != 0:
			t.Errorf("CPU time of the writer observed on PostgreSQL (%v): its writer is not locked to a thread", cpu)
		}
	})
}

// commitLog is a store.CommitObserver that keeps what it is told.
type commitLog struct {
	mu        sync.Mutex
	committed []string // "pass units" of each group (not PassAlone)
	single    int      // transactions of PassAlone
	unknown   []int
	again     map[string]int // units run again alone, by why
	odd       []string       // observations that cannot be: no time taken, a group of one, one alone of many, more CPU than time
	cpu       time.Duration  // the writers' CPU time, summed
}

func (l *commitLog) Committed(pass string, units int, took, cpu time.Duration) {
	l.mu.Lock()
	defer l.mu.Unlock()
	// One thread cannot use more CPU than the time that passed (a
	// millisecond of slack for the two clocks' readings).
	if took <= 0 || (pass == store.PassAlone) != (units == 1) || cpu < 0 || cpu > took+time.Millisecond {
		l.odd = append(l.odd, fmt.Sprintf("%s %d in %v, %v of CPU", pass, units, took, cpu))
	}
	l.cpu += cpu
	if pass == store.PassAlone {
		l.single++
		return
	}
	l.committed = append(l.committed, fmt.Sprintf("%s %d", pass, units))
}

func (l *commitLog) CommitOutcomeUnknown(units int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.unknown = append(l.unknown, units)
}

func (l *commitLog) RanAgain(why string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.again == nil {
		l.again = map[string]int{}
	}
	l.again[why]++
}

func (l *commitLog) groups() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.committed)
}

func (l *commitLog) alone() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.single
}

func (l *commitLog) writerCPU() time.Duration {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.cpu
}

func (l *commitLog) oddities() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.odd)
}

// waitFor polls cond until it holds, failing the test after 30 s.
func waitFor(t *testing.T, cond func() bool, what string) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(time.Millisecond)
	}
}

// asOneGroup runs n units of work (unit(i, tx) the i-th) as one group:
// they queue while the group workers are held, then run together. It
// returns each unit's outcome.
func asOneGroup(t *testing.T, ctx context.Context, s *store.Store, n int, unit func(i int, tx *store.Tx) error) []error {
	t.Helper()
	release := s.HoldGroupWorkers(ctx)
	results := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() { results[i] = s.InTx(ctx, func(tx *store.Tx) error { return unit(i, tx) }) })
	}
	waitFor(t, func() bool { return s.QueuedUnits() == n }, "the units to queue")
	release()
	wg.Wait()
	return results
}
