package store_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/bankrail/bankrail/internal/clock"
	"github.com/bankrail/bankrail/internal/dbtest"
	"github.com/bankrail/bankrail/internal/job"
)

// waitLease waits (real time, for the worker's heartbeat goroutine) until
// job id's lease ends after at least a third of 15 s past the wall clock's
// now: a heartbeat came after the clock's last move.
func waitLease(t *testing.T, s interface {
	JobLease(context.Context, string) (time.Time, int, error)
}, wall *clock.Fake, id string) {
	t.Helper()
	want := wall.Now().Add(5 * time.Second)
	deadline := time.Now().Add(10 * time.Second)
	for {
		until, _, err := s.JobLease(context.Background(), id)
		if err != nil {
			t.Fatal(err)
		}
		if until.After(want) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("no heartbeat: lease of %s until %s, want after %s", id, until, want)
		}
		time.Sleep(time.Millisecond) // polls the heartbeat goroutine; the lease logic runs on the fake wall clock
	}
}

// A job's lease is short by default (issue 28 item 7: it was 5 minutes, so
// a refund whose settlement job a killed instance held stayed PENDING that
// long): a live worker's heartbeat keeps a job running four times the
// default lease (60 s of the fake wall clock), unclaimed by another
// worker; when the holder stops heartbeating (its instance was killed),
// another worker runs the job once 16 s have passed since its last
// heartbeat, and the dead holder's handler stops with job.ErrLeaseLost.
func TestJobLeaseShortWithHeartbeat(t *testing.T) {
	t.Parallel()
	dbtest.Each(t, func(t *testing.T, db dbtest.DB) {
		s := open(t, db)
		ctx := context.Background()
		clk, wall := clock.NewFake(t0), clock.NewFake(t0)
		type args struct{ ID string }
		started := make(chan string, 4)
		release := make(chan struct{})
		stopped := make(chan error, 1)
		var mu sync.Mutex
		attempts := map[string]int{}
		kinds := job.NewRegistry()
		job.Register(kinds, "lease-test", func(ctx context.Context, a args) error {
			mu.Lock()
			attempts[a.ID]++
			attempt := attempts[a.ID]
			mu.Unlock()
			started <- a.ID
			switch {
			case a.ID == "live":
				select {
				case <-release:
					return nil
				case <-ctx.Done():
					return context.Cause(ctx)
				}
			case a.ID == "dies" && attempt == 1:
				<-ctx.Done()
				stopped <- context.Cause(ctx)
				return context.Cause(ctx)
			}
			return nil
		})
		cfg := job.Config{Heartbeat: 2 * time.Millisecond, LeaseClock: wall} // the default lease
		other := job.NewWorker(s.Jobs(), kinds, clk, quiet, cfg)
		enqueue := func(id string) string {
			t.Helper()
			j := newJob(t, jobID(id), "lease-test", args{ID: id}, t0)
			if err := s.Jobs().Enqueue(ctx, j); err != nil {
				t.Fatal(err)
			}
			return j.ID
		}

		// A live holder keeps its job past four default leases.
		live := enqueue("live")
		alive := job.NewWorker(s.Jobs(), kinds, clk, quiet, cfg)
		done := make(chan error, 1)
		go func() { _, err := alive.RunDue(ctx); done <- err }()
		if id := <-started; id != "live" {
			t.Fatalf("%s started", id)
		}
		for range 6 {
			wall.Advance(10 * time.Second)
			waitLease(t, s, wall, live)
			if ran, err := other.RunDue(ctx); err != nil || ran != 0 {
				t.Fatalf("another worker ran %d jobs (%v) while the holder's heartbeat beat", ran, err)
			}
		}
		close(release)
		if err := <-done; err != nil {
			t.Fatal(err)
		}
		if st, attempt, _ := jobState(t, s, live); st != "completed" || attempt != 1 {
			t.Fatalf("live job %s after %d attempts; want completed at the first", st, attempt)
		}

		// A holder that stops heartbeating loses the job within the short lease.
		dies := enqueue("dies")
		dying := &dyingQueue{Queue: s.Jobs()}
		doomed := job.NewWorker(dying, kinds, clk, quiet, cfg)
		go func() { _, err := doomed.RunDue(ctx); done <- err }()
		if id := <-started; id != "dies" {
			t.Fatalf("%s started", id)
		}
		wall.Advance(10 * time.Second)
		waitLease(t, s, wall, dies)
		dying.dead.Store(true)
		for dying.refused.Load() == 0 { // no heartbeat of before is still on its way
			time.Sleep(time.Millisecond)
		}
		wall.Advance(16 * time.Second) // past the last heartbeat's lease
		if ran, err := other.RunDue(ctx); err != nil || ran != 1 {
			t.Fatalf("16 s after its holder's last heartbeat: %d jobs run (%v), want the job", ran, err)
		}
		if cause := <-stopped; !errors.Is(cause, job.ErrLeaseLost) {
			t.Fatalf("the dead holder's handler stopped with %v, want ErrLeaseLost", cause)
		}
		// The dead worker returns: its next claim found the database gone,
		// or a claim it sent before it died answered after its job ended.
		if err := <-done; err != nil && !errors.Is(err, errDied) {
			t.Fatalf("the dead worker ended with %v", err)
		}
		if st, attempt, _ := jobState(t, s, dies); st != "completed" || attempt != 2 {
			t.Fatalf("job %s after %d attempts; want completed at the second", st, attempt)
		}
	})
}
