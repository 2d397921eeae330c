package store_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/bankrail/bankrail/internal/clock"
	"github.com/bankrail/bankrail/internal/dbtest"
	"github.com/bankrail/bankrail/internal/job"
	"github.com/bankrail/bankrail/internal/store"
)

// jobGuard is a guard against a test that would hang: the event must come,
// and comes at once on a correct worker.
const jobGuard = 10 * time.Second

// startedWorker is a worker over s, woken by each enqueue and polling only
// once an hour (so what runs was woken, never polled). At cleanup g
// releases every handler and the worker stops.
func startedWorker(t *testing.T, s *store.Store, kinds *job.Registry, cfg job.Config, g *gate) *job.Worker {
	t.Helper()
	cfg.Poll = time.Hour
	w := job.NewWorker(s.Jobs(), kinds, clock.NewFake(t0), quiet, cfg)
	s.OnJobsEnqueued(w.Wake)
	w.Start(context.Background())
	t.Cleanup(func() { g.freeAll(); w.Stop() })
	return w
}

// gate holds each job's handler until its id is released. At the test's
// end every handler is released (before the worker stops), also when the
// test failed.
type gate struct {
	mu       sync.Mutex
	started  chan string
	releases map[string]chan struct{}
	freed    map[string]bool
	all      bool // every handler, also those to come, is released
}

func newGate() *gate {
	return &gate{started: make(chan string, 64), releases: map[string]chan struct{}{}, freed: map[string]bool{}}
}

// wait is the channel id's handler waits on.
func (g *gate) wait(id string) <-chan struct{} {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.releases[id] == nil {
		g.releases[id] = make(chan struct{})
		if g.all {
			close(g.releases[id])
			g.freed[id] = true
		}
	}
	return g.releases[id]
}

// free releases id's handler.
func (g *gate) free(id string) {
	g.wait(id)
	g.mu.Lock()
	defer g.mu.Unlock()
	if !g.freed[id] {
		close(g.releases[id])
		g.freed[id] = true
	}
}

// freeAll releases every handler.
func (g *gate) freeAll() {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.all = true
	for id, ch := range g.releases {
		if !g.freed[id] {
			close(ch)
			g.freed[id] = true
		}
	}
}

// handle announces id and waits for its release.
func (g *gate) handle(_ context.Context, id string) error {
	g.started <- id
	<-g.wait(id)
	return nil
}

// expect waits for id to start.
func (g *gate) expect(t *testing.T, id, why string) {
	t.Helper()
	select {
	case got := <-g.started:
		if got != id {
			t.Fatalf("job %s started, want %s", got, id)
		}
	case <-time.After(jobGuard):
		t.Fatalf("job %s did not start: %s", id, why)
	}
}

// enqueue writes jobs of kind, one per id, due now.
func enqueue(t *testing.T, s *store.Store, kind string, ids ...string) {
	t.Helper()
	js := make([]job.Job, len(ids))
	for i, id := range ids {
		js[i] = newJob(t, jobID(kind+id), kind, id, t0)
	}
	if err := s.Jobs().Enqueue(context.Background(), js...); err != nil {
		t.Fatal(err)
	}
}

// A job of one kind that does not end (a long report) does not delay a job
// of another kind (a refund's settlement) enqueued after it on the same
// worker.
func TestJobKindsDoNotBlockEachOther(t *testing.T) {
	t.Parallel()
	dbtest.EachMigrated(t, func(t *testing.T, db dbtest.DB) {
		s := open(t, db)
		g := newGate()
		kinds := job.NewRegistry()
		job.Register(kinds, "report", g.handle)
		job.Register(kinds, "settle", g.handle)
		startedWorker(t, s, kinds, job.Config{}, g)
		enqueue(t, s, "report", "long")
		g.expect(t, "long", "woken by the enqueue")
		enqueue(t, s, "settle", "quick")
		g.free("quick")
		g.expect(t, "quick", "a settlement waited for a report that runs")
		g.free("long")
	})
}

// A slot that frees is refilled at once, while the other jobs claimed with
// its job still run; a kind never runs more jobs than its slots.
func TestJobSlotsRefillAsTheyFree(t *testing.T) {
	t.Parallel()
	dbtest.EachMigrated(t, func(t *testing.T, db dbtest.DB) {
		s := open(t, db)
		g := newGate()
		kinds := job.NewRegistry()
		job.Register(kinds, "work", g.handle)
		startedWorker(t, s, kinds, job.Config{Concurrency: 2}, g)
		enqueue(t, s, "work", "1", "2")
		first, second := <-g.started, <-g.started
		if first+second != "12" && first+second != "21" {
			t.Fatalf("started %s and %s", first, second)
		}
		enqueue(t, s, "work", "3") // no slot free: it waits
		g.free("2")
		g.expect(t, "3", "the slot of job 2 was not refilled while job 1 ran")
		g.free("1")
		g.free("3")
	})
}

// Each kind runs at most its registered concurrency at once, and uses all
// of it; a freed slot is refilled with a job of its own kind.
func TestJobConcurrencyPerKind(t *testing.T) {
	t.Parallel()
	dbtest.EachMigrated(t, func(t *testing.T, db dbtest.DB) {
		s := open(t, db)
		g := newGate()
		var mu sync.Mutex
		inFlight, most := map[string]int{}, map[string]int{}
		counted := func(kind string) func(context.Context, string) error {
			return func(ctx context.Context, id string) error {
				mu.Lock()
				inFlight[kind]++
				most[kind] = max(most[kind], inFlight[kind])
				mu.Unlock()
				defer func() { mu.Lock(); inFlight[kind]--; mu.Unlock() }()
				return g.handle(ctx, id)
			}
		}
		kinds := job.NewRegistry()
		job.Register(kinds, "a", counted("a"), job.Concurrency(1))
		job.Register(kinds, "b", counted("b"), job.Concurrency(3))
		startedWorker(t, s, kinds, job.Config{Concurrency: 8}, g)
		enqueue(t, s, "a", "a1", "a2", "a3")
		enqueue(t, s, "b", "b1", "b2", "b3", "b4", "b5")
		var running []string
		next := func(why string) string {
			t.Helper()
			select {
			case id := <-g.started:
				running = append(running, id)
				return id
			case <-time.After(jobGuard):
				t.Fatalf("no job started: %s", why)
				return ""
			}
		}
		for range 4 {
			next("the first slots")
		}
		left := map[byte]int{'a': 2, 'b': 2}
		for len(running) > 0 {
			id := running[0]
			running = running[1:]
			g.free(id)
			if left[id[0]] > 0 {
				left[id[0]]--
				if got := next("a freed slot was not refilled"); got[0] != id[0] {
					t.Fatalf("the slot of %s went to %s", id, got)
				}
			}
		}
		mu.Lock()
		defer mu.Unlock()
		if most["a"] != 1 || most["b"] != 3 {
			t.Fatalf("at most %d jobs of a and %d of b ran at once; want 1 and 3", most["a"], most["b"])
		}
	})
}

// A claim takes at most each kind's free slots, and none of a kind without
// (on PostgreSQL a limit of 1 claimed every due job while the pick was a
// lone subquery, scanned again for each row the UPDATE visited).
func TestJobClaimTakesTheFreeSlotsOnly(t *testing.T) {
	t.Parallel()
	dbtest.EachMigrated(t, func(t *testing.T, db dbtest.DB) {
		s := open(t, db)
		ctx := context.Background()
		enqueue(t, s, "a", "1", "2", "3", "4")
		enqueue(t, s, "b", "1", "2")
		claim := func(slots map[string]int) map[string]int {
			t.Helper()
			got, err := s.Jobs().Claim(ctx, job.ClaimRequest{Slots: slots, Now: t0, LeaseNow: t0, LeaseUntil: t0.Add(time.Hour),
				MaxLeaseExpiries: job.DefaultMaxLeaseExpiries})
			if err != nil {
				t.Fatal(err)
			}
			n := map[string]int{}
			for _, j := range got.Jobs {
				n[j.Kind]++
			}
			return n
		}
		if n := claim(map[string]int{"a": 1, "b": 0}); n["a"] != 1 || n["b"] != 0 {
			t.Fatalf("claimed %v with one slot of a and none of b", n)
		}
		if n := claim(map[string]int{"a": 2, "b": 5}); n["a"] != 2 || n["b"] != 2 {
			t.Fatalf("claimed %v with two slots of a and five of b; want 2 and the 2 due", n)
		}
	})
}
