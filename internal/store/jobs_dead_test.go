package store_test

import (
	"bytes"
	"context"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/bankrail/bankrail/internal/clock"
	"github.com/bankrail/bankrail/internal/dbtest"
	"github.com/bankrail/bankrail/internal/job"
)

// deadCounter is a job.Observer.
type deadCounter struct {
	mu   sync.Mutex
	dead map[string]int
}

func (d *deadCounter) JobDead(kind string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.dead[kind]++
}

func (d *deadCounter) count(kind string) int {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.dead[kind]
}

// lockedBuffer is a log's output shared by goroutines.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// A job whose lease runs out again and again (it crashes every instance
// that runs it) is tried MaxLeaseExpiries times, then dead: logged at
// ERROR, counted once, listed, never claimed again nor purged; the jobs
// beside it still run.
func TestJobDeadAfterLeaseExpiries(t *testing.T) {
	t.Parallel()
	dbtest.EachMigrated(t, func(t *testing.T, db dbtest.DB) {
		s := open(t, db)
		ctx := context.Background()
		clk, wall := clock.NewFake(t0), clock.NewFake(t0) // service time, lease time
		var ran atomic.Int32
		kinds := job.NewRegistry()
		count := func(context.Context, string) error { ran.Add(1); return nil }
		job.Register(kinds, "crash", count)
		job.Register(kinds, "fine", count)
		enqueue(t, s, "crash", "x")
		crash := jobID("crashx")

		// Three instances claim it and die: no heartbeat, no outcome.
		for i := 1; i <= 3; i++ {
			got, err := s.Jobs().Claim(ctx, job.ClaimRequest{Slots: map[string]int{"crash": 1}, Now: clk.Now(),
				LeaseNow: wall.Now(), LeaseUntil: wall.Now().Add(time.Minute), MaxLeaseExpiries: 3})
			if err != nil || len(got.Jobs) != 1 || len(got.Dead) != 0 {
				t.Fatalf("claim %d: %+v %v", i, got, err)
			}
			if j := got.Jobs[0]; j.ID != crash || j.Attempt != i || j.LeaseExpiries != i-1 {
				t.Fatalf("claim %d: job %s attempt %d after %d expiries", i, j.ID, j.Attempt, j.LeaseExpiries)
			}
			wall.Advance(time.Minute)
		}

		// Its lease ran out a third time: the next claim buries it.
		enqueue(t, s, "fine", "y")
		logs := &lockedBuffer{}
		dead := &deadCounter{dead: map[string]int{}}
		w := job.NewWorker(s.Jobs(), kinds, clk, slog.New(slog.NewTextHandler(logs, nil)),
			job.Config{Lease: time.Minute, LeaseClock: wall, MaxLeaseExpiries: 3, Observer: dead})
		if n, err := w.RunDue(ctx); err != nil || n != 1 || ran.Load() != 1 {
			t.Fatalf("ran %d jobs (%d handlers), %v; want the fine one only", n, ran.Load(), err)
		}
		if st, n, _ := jobState(t, s, crash); st != "dead" || n != 3 {
			t.Fatalf("job %s after %d attempts, want dead after 3", st, n)
		}
		if dead.count("crash") != 1 {
			t.Fatalf("dead jobs counted: %v", dead.dead)
		}
		if l := logs.String(); !strings.Contains(l, "level=ERROR") || !strings.Contains(l, crash) {
			t.Fatalf("the dead job was not logged at ERROR:\n%s", l)
		}
		listed, err := s.DeadJobs(ctx, 10)
		if err != nil || len(listed) != 1 || listed[0].ID != crash || listed[0].LeaseExpiries != 3 ||
			!strings.Contains(listed[0].LastError, "lease ran out 3 times") || listed[0].FinishedAt.IsZero() {
			t.Fatalf("dead jobs listed: %+v %v", listed, err)
		}
		if counts, err := s.DeadJobCounts(ctx); err != nil || len(counts) != 1 || counts["crash"] != 1 {
			t.Fatalf("dead jobs by kind: %v %v", counts, err)
		}

		// Never claimed again, never purged, counted once.
		clk.Advance(30 * 24 * time.Hour)
		wall.Advance(30 * 24 * time.Hour)
		if n, err := w.RunDue(ctx); err != nil || n != 0 {
			t.Fatalf("ran %d jobs after it died, %v", n, err)
		}
		if _, err := s.PurgeFinishedJobs(ctx, clk.Now()); err != nil {
			t.Fatal(err)
		}
		if st, _, _ := jobState(t, s, crash); st != "dead" || dead.count("crash") != 1 || ran.Load() != 1 {
			t.Fatalf("a month later: %s, counted %d, %d handlers ran", st, dead.count("crash"), ran.Load())
		}
	})
}
