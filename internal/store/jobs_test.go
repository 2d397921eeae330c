package store_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/bankrail/bankrail/internal/clock"
	"github.com/bankrail/bankrail/internal/dbtest"
	"github.com/bankrail/bankrail/internal/job"
	"github.com/bankrail/bankrail/internal/store"
)

var quiet = slog.New(slog.NewTextHandler(io.Discard, nil))

// newJob is a job of kind due at at, with a known id.
func newJob(t *testing.T, id, kind string, args any, at time.Time) job.Job {
	t.Helper()
	j, err := job.New(kind, args, at)
	if err != nil {
		t.Fatal(err)
	}
	j.ID = id
	return j
}

func jobState(t *testing.T, s *store.Store, id string) (string, int, time.Time) {
	t.Helper()
	st, n, at, err := s.JobState(context.Background(), id)
	if err != nil {
		t.Fatalf("job %s: %v", id, err)
	}
	return st, n, at
}

// The queue's rules on each engine, driven by a fake clock: a job exists
// iff its transaction commits, is due on the clock, retries with backoff,
// fails after its last attempt, is cancelled when its handler says so, runs
// again when its holder's lease runs out, and a unique key is held once.
func TestJobQueue(t *testing.T) {
	t.Parallel()
	dbtest.EachMigrated(t, func(t *testing.T, db dbtest.DB) {
		s := open(t, db)
		ctx := context.Background()
		clk := clock.NewFake(t0)
		kinds := job.NewRegistry()
		var runs sync.Map // id -> count
		fails := map[string]int{"retry-then-ok": 2, "always-fails": 99}
		type args struct{ ID string }
		job.Register(kinds, "test", func(_ context.Context, a args) error {
			v, _ := runs.LoadOrStore(a.ID, new(atomic.Int32))
			n := v.(*atomic.Int32).Add(1)
			switch {
			case a.ID == "cancel":
				return job.Cancel(errors.New("the subject is gone"))
			case int(n) <= fails[a.ID]:
				return fmt.Errorf("attempt %d of %s fails", n, a.ID)
			}
			return nil
		})
		wall := clock.NewFake(t0) // leases are wall time
		w := job.NewWorker(s.Jobs(), kinds, clk, quiet, job.Config{Lease: time.Minute, LeaseClock: wall})
		mk := func(id string, at time.Time) job.Job { return newJob(t, jobID(id), "test", args{ID: id}, at) }

		// Enqueued in a unit of work that rolls back: no job.
		boom := errors.New("the change failed")
		if err := s.InTx(ctx, func(tx *store.Tx) error {
			if err := tx.Jobs().Enqueue(ctx, mk("rolled-back", t0)); err != nil {
				return err
			}
			return boom
		}); !errors.Is(err, boom) {
			t.Fatal(err)
		}
		if _, _, _, err := s.JobState(ctx, jobID("rolled-back")); err == nil {
			t.Fatal("a job of a rolled back transaction exists")
		}

		later := mk("later", t0.Add(time.Hour))
		retry := mk("retry-then-ok", t0)
		failing := mk("always-fails", t0)
		failing.MaxAttempts = 3
		if err := s.InTx(ctx, func(tx *store.Tx) error {
			return tx.Jobs().Enqueue(ctx, later, retry, failing, mk("cancel", t0), mk("unknown-kind", t0))
		}); err != nil {
			t.Fatal(err)
		}
		other, _ := job.New("nobody-handles-this", nil, t0)
		other.ID = jobID("unknown")
		if err := s.Jobs().Enqueue(ctx, other); err != nil {
			t.Fatal(err)
		}

		if n, err := w.RunDue(ctx); err != nil || n != 4 {
			t.Fatalf("first run: %d jobs, %v; want the 4 due of a known kind", n, err)
		}
		if st, _, _ := jobState(t, s, later.ID); st != "available" {
			t.Fatalf("a job due in an hour ran now: %s", st)
		}
		if st, _, _ := jobState(t, s, jobID("cancel")); st != "cancelled" {
			t.Fatalf("cancelled job: %s", st)
		}
		if st, n, _ := jobState(t, s, other.ID); st != "available" || n != 0 {
			t.Fatalf("a job of a kind this worker does not know was claimed: %s, %d attempts", st, n)
		}
		st, n, at := jobState(t, s, retry.ID)
		if st != "available" || n != 1 || at.Before(t0.Add(2*time.Second)) || at.After(t0.Add(2200*time.Millisecond)) {
			t.Fatalf("after a failure: %s attempt %d due %s; want a retry 2 s (+10%%) later", st, n, at)
		}
		if n, _ := w.RunDue(ctx); n != 0 {
			t.Fatalf("a retry ran before its backoff: %d", n)
		}
		for range 4 {
			clk.Advance(time.Minute)
			if _, err := w.RunDue(ctx); err != nil {
				t.Fatal(err)
			}
		}
		if st, n, _ := jobState(t, s, retry.ID); st != "completed" || n != 3 {
			t.Fatalf("retried job: %s after %d attempts, want completed after 3", st, n)
		}
		if st, n, _ := jobState(t, s, failing.ID); st != "failed" || n != 3 {
			t.Fatalf("failing job: %s after %d attempts, want failed after 3", st, n)
		}

		// The virtual clock makes the later job due.
		clk.Set(t0.Add(time.Hour))
		if _, err := w.RunDue(ctx); err != nil {
			t.Fatal(err)
		}
		if st, _, _ := jobState(t, s, later.ID); st != "completed" {
			t.Fatalf("the job due at +1 h after the clock reached it: %s", st)
		}

		// A holder that died: its lease runs out and the job runs again.
		crashed := mk("crashed", clk.Now())
		if err := s.Jobs().Enqueue(ctx, crashed); err != nil {
			t.Fatal(err)
		}
		got, err := s.Jobs().Claim(ctx, job.ClaimRequest{Slots: map[string]int{"test": 10}, Now: clk.Now(),
			LeaseNow: wall.Now(), LeaseUntil: wall.Now().Add(time.Minute), MaxLeaseExpiries: job.DefaultMaxLeaseExpiries})
		if err != nil || len(got.Jobs) != 1 || got.Jobs[0].ID != crashed.ID {
			t.Fatalf("claim: %v %v", got.Jobs, err)
		}
		lease := got.Lease
		if n, _ := w.RunDue(ctx); n != 0 {
			t.Fatal("a job under a live lease was claimed again")
		}
		clk.Advance(24 * time.Hour) // the sandbox clock's advance does not expire a lease
		if n, _ := w.RunDue(ctx); n != 0 {
			t.Fatal("advancing the service clock expired a running job's lease")
		}
		wall.Advance(time.Minute)
		if n, _ := w.RunDue(ctx); n != 1 {
			t.Fatalf("after the lease ran out: %d runs, want 1", n)
		}
		if st, n, _ := jobState(t, s, crashed.ID); st != "completed" || n != 2 {
			t.Fatalf("crashed job: %s after %d attempts", st, n)
		}
		if err := s.Jobs().Finish(ctx, crashed.ID, lease, job.Completed, time.Time{}, "", clk.Now()); err == nil {
			t.Fatal("the dead holder's lease still recorded an outcome")
		}

		// One waiting job per unique key; a running one does not count.
		u1, u2 := mk("u1", clk.Now().Add(time.Hour)), mk("u2", clk.Now().Add(time.Hour))
		u1.UniqueKey, u2.UniqueKey = "timer:p1", "timer:p1"
		if err := s.Jobs().Enqueue(ctx, u1); err != nil {
			t.Fatal(err)
		}
		if err := s.Jobs().Enqueue(ctx, u2); err != nil {
			t.Fatal(err)
		}
		if _, _, _, err := s.JobState(ctx, u2.ID); err == nil {
			t.Fatal("a second waiting job of one unique key was kept")
		}

		// Ended jobs are purged after their retention; waiting ones stay.
		if n, err := s.PurgeFinishedJobs(ctx, clk.Now().Add(time.Second)); err != nil || n != 6 {
			t.Fatalf("purged %d ended jobs, %v; want 6", n, err)
		}
		for _, id := range []string{u1.ID, other.ID} {
			if st, _, _ := jobState(t, s, id); st != "available" {
				t.Fatalf("waiting job %s: %s", id, st)
			}
		}
	})
}

// jobID makes a stable uuid for a test job name.
func jobID(name string) string {
	var h uint32 = 2166136261
	for _, c := range []byte(name) {
		h = (h ^ uint32(c)) * 16777619
	}
	return fmt.Sprintf("70000000-0000-4000-8000-%012x", h)
}

// Jobs run once however many workers and instances claim them: two stores
// on one PostgreSQL database stand for two instances (on SQLite, two
// workers share the one store).
func TestJobsRunOnceAcrossWorkers(t *testing.T) {
	t.Parallel()
	dbtest.EachMigrated(t, func(t *testing.T, db dbtest.DB) {
		a := open(t, db)
		b := a
		if db.Engine == dbtest.Postgres {
			b = open(t, db)
		}
		ctx := context.Background()
		clk := clock.NewFake(t0)
		var mu sync.Mutex
		runs := map[int]int{}
		kinds := job.NewRegistry()
		job.Register(kinds, "count", func(_ context.Context, n int) error {
			mu.Lock()
			runs[n]++
			mu.Unlock()
			return nil
		})
		const total = 200
		js := make([]job.Job, total)
		for i := range js {
			js[i] = newJob(t, fmt.Sprintf("71000000-0000-4000-8000-%012d", i), "count", i, t0)
		}
		if err := a.Jobs().Enqueue(ctx, js...); err != nil {
			t.Fatal(err)
		}
		var wg sync.WaitGroup
		for _, s := range []*store.Store{a, b, a, b} {
			w := job.NewWorker(s.Jobs(), kinds, clk, quiet, job.Config{Concurrency: 3})
			wg.Add(1)
			go func() {
				defer wg.Done()
				if _, err := w.RunDue(ctx); err != nil {
					t.Error(err)
				}
			}()
		}
		wg.Wait()
		for i := range total {
			if runs[i] != 1 {
				t.Fatalf("job %d ran %d times", i, runs[i])
			}
		}
	})
}

// Stop waits for a handler that is running; a started worker runs what is
// enqueued without being asked (woken by the commit).
func TestJobWorkerStartStop(t *testing.T) {
	t.Parallel()
	dbtest.EachMigrated(t, func(t *testing.T, db dbtest.DB) {
		s := open(t, db)
		ctx := context.Background()
		clk := clock.NewFake(t0)
		started, release := make(chan struct{}), make(chan struct{})
		var finished atomic.Bool
		kinds := job.NewRegistry()
		job.Register(kinds, "slow", func(context.Context, struct{}) error {
			close(started)
			<-release
			finished.Store(true)
			return nil
		})
		w := job.NewWorker(s.Jobs(), kinds, clk, quiet, job.Config{Poll: time.Hour})
		s.OnJobsEnqueued(w.Wake)
		w.Start(ctx)
		if err := s.Jobs().Enqueue(ctx, newJob(t, jobID("slow"), "slow", nil, t0)); err != nil {
			t.Fatal(err)
		}
		select {
		case <-started: // woken by the enqueue, not by the hour-long poll
		case <-time.After(10 * time.Second):
			t.Fatal("the worker did not wake for the enqueued job")
		}
		stopped := make(chan struct{})
		go func() { w.Stop(); close(stopped) }()
		select {
		case <-stopped:
			t.Fatal("Stop returned while a handler was running")
		case <-time.After(50 * time.Millisecond):
		}
		close(release)
		<-stopped
		if !finished.Load() {
			t.Fatal("the handler did not finish")
		}
		if st, _, _ := jobState(t, s, jobID("slow")); st != "completed" {
			t.Fatalf("state after Stop: %s", st)
		}
	})
}
