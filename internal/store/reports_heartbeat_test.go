package store_test

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"github.com/bankrail/bankrail/internal/bank"
	"github.com/bankrail/bankrail/internal/clock"
	"github.com/bankrail/bankrail/internal/dbtest"
	"github.com/bankrail/bankrail/internal/job"
	"github.com/bankrail/bankrail/internal/report"
	"github.com/bankrail/bankrail/internal/store"
)

// gatedData holds each AUDIT_LOG read at its first row until gate returns.
type gatedData struct {
	report.Data
	gate func(ctx context.Context) error
}

func (g gatedData) AuditLog(ctx context.Context, sc report.Scope, fn func(report.AuditRow) error) error {
	first := true
	return g.Data.AuditLog(ctx, sc, func(a report.AuditRow) error {
		if first {
			first = false
			if err := g.gate(ctx); err != nil {
				return err
			}
		}
		return fn(a)
	})
}

// dyingQueue is a worker's queue that stops reaching the database once
// dead: the worker died, as far as the other instances can tell.
type dyingQueue struct {
	job.Queue
	dead    atomic.Bool
	refused atomic.Int32 // heartbeats since it died
}

var errDied = errors.New("the worker died")

func (d *dyingQueue) Extend(ctx context.Context, lease string, ids []string, until time.Time) ([]string, error) {
	if d.dead.Load() {
		d.refused.Add(1)
		return nil, errDied
	}
	return d.Queue.Extend(ctx, lease, ids, until)
}

// Claim reaches the database only while the worker lives: a dead one
// claims nothing, also not the job its own lease lost.
func (d *dyingQueue) Claim(ctx context.Context, req job.ClaimRequest) (job.Claimed, error) {
	if d.dead.Load() {
		return job.Claimed{}, errDied
	}
	return d.Queue.Claim(ctx, req)
}

func (d *dyingQueue) Finish(ctx context.Context, id, lease string, st job.State, runAt time.Time, text string, at time.Time) error {
	if d.dead.Load() {
		return errDied
	}
	return d.Queue.Finish(ctx, id, lease, st, runAt, text, at)
}

// A generation longer than the job's lease (a minute on the fake wall
// clock, 200 s of it pass) is not taken over by another worker while its
// heartbeat extends the lease, and is generated once. When its worker dies
// (no heartbeat reaches the database) another worker takes the report over
// once the lease ran out, and the dead one's handler is stopped with
// job.ErrLeaseLost: the file is the new attempt's, each row once.
func TestReportGenerationHeartbeat(t *testing.T) {
	t.Parallel()
	dbtest.EachMigrated(t, func(t *testing.T, db dbtest.DB) {
		const n = 500
		s, _, clk := reportFixture(t, db, n, nil)
		wall := clock.NewFake(t0) // leases are wall time
		ctx := adminContext()
		svcOf := func(gate func(context.Context) error) *report.Service {
			return report.NewService(report.Deps{Reports: s.Reports(), InTx: store.Transactor[report.Repos](s),
				Data: gatedData{Data: s.ReportData(), gate: gate}, Hierarchy: s, Banks: bank.Default(),
				Clock: clk, Log: quiet, ChunkSize: 1024})
		}
		var calls atomic.Int32
		started := make(chan int32, 8)
		release := make(chan struct{})
		stopped := make(chan error, 1)
		svc := svcOf(func(ctx context.Context) error {
			k := calls.Add(1)
			started <- k
			switch k {
			case 1: // the long generation: until released
				select {
				case <-release:
					return nil
				case <-ctx.Done():
					return context.Cause(ctx)
				}
			case 2: // the generation whose worker dies: until its lease is lost
				select {
				case <-ctx.Done():
					stopped <- context.Cause(ctx)
					return context.Cause(ctx)
				case <-time.After(30 * time.Second):
					stopped <- errors.New("not stopped")
					return errors.New("not stopped")
				}
			}
			return nil
		})
		kinds := job.NewRegistry()
		job.Register(kinds, report.KindGenerate, svc.Generate)
		cfg := job.Config{Lease: time.Minute, Heartbeat: 5 * time.Millisecond, LeaseClock: wall}
		other := job.NewWorker(s.Jobs(), kinds, clk, quiet, cfg)
		ask := func() (report.Report, string) {
			t.Helper()
			r, err := svc.Create(ctx, report.Input{Type: report.AuditLog, ViewerID: reportCustomer, ClientID: "reports-client",
				StartDate: strp(t0.Format(time.RFC3339)), EndDate: strp(t0.Add(time.Hour).Format(time.RFC3339))})
			if err != nil {
				t.Fatal(err)
			}
			ids, err := s.JobsOfKind(ctx, report.KindGenerate)
			if err != nil || len(ids) == 0 {
				t.Fatalf("jobs %v %v", ids, err)
			}
			return r, ids[len(ids)-1]
		}
		// beats waits for a heartbeat after the wall clock's last move.
		beats := func(id string) {
			t.Helper()
			want := wall.Now().Add(time.Minute)
			deadline := time.Now().Add(10 * time.Second)
			for {
				until, _, err := s.JobLease(ctx, id)
				if err != nil {
					t.Fatal(err)
				}
				if !until.Before(want) {
					return
				}
				if time.Now().After(deadline) {
					t.Fatalf("no heartbeat: lease until %s, want %s", until, want)
				}
				time.Sleep(2 * time.Millisecond)
			}
		}
		wantReport := func(id string, attempt int) {
			t.Helper()
			got, err := s.Reports().Get(ctx, reportCustomer, id)
			if err != nil || got.Status != report.Available || got.Attempt != attempt || got.Rows != int64(n) {
				t.Fatalf("report %+v %v; want AVAILABLE after attempt %d with %d rows", got, err, attempt, n)
			}
			if rows := readReport(t, svc, id); len(rows) != n+1 {
				t.Fatalf("file of %d rows, want %d", len(rows)-1, n)
			}
		}

		// A long generation under a live heartbeat.
		r1, job1 := ask()
		alive := job.NewWorker(s.Jobs(), kinds, clk, quiet, cfg)
		done := make(chan error, 1)
		go func() { _, err := alive.RunDue(ctx); done <- err }()
		if k := <-started; k != 1 {
			t.Fatalf("generation %d started first", k)
		}
		for range 5 {
			wall.Advance(40 * time.Second) // 200 s in all: the lease of a minute ran out three times over
			beats(job1)
			if ran, err := other.RunDue(ctx); err != nil || ran != 0 {
				t.Fatalf("another worker ran %d jobs (%v) while the heartbeat beat", ran, err)
			}
		}
		close(release)
		if err := <-done; err != nil {
			t.Fatal(err)
		}
		wantReport(r1.ID, 1)
		if st, attempt, _ := jobState(t, s, job1); st != "completed" || attempt != 1 || calls.Load() != 1 {
			t.Fatalf("job %s after %d attempts, %d generations; want completed once", st, attempt, calls.Load())
		}

		// A worker that dies mid-generation.
		r2, job2 := ask()
		dying := &dyingQueue{Queue: s.Jobs()}
		doomed := job.NewWorker(dying, kinds, clk, quiet, cfg)
		go func() { _, err := doomed.RunDue(ctx); done <- err }()
		if k := <-started; k != 2 {
			t.Fatalf("generation %d started second", k)
		}
		wall.Advance(40 * time.Second)
		beats(job2)
		if ran, _ := other.RunDue(ctx); ran != 0 {
			t.Fatal("taken over while its worker lived")
		}
		dying.dead.Store(true)
		for dying.refused.Load() == 0 { // no heartbeat of before is still on its way
			time.Sleep(time.Millisecond)
		}
		wall.Advance(70 * time.Second) // a minute after its last heartbeat, and 10 s: its lease ran out
		if ran, err := other.RunDue(ctx); err != nil || ran != 1 {
			t.Fatalf("after the worker died: %d jobs run (%v), want the report's", ran, err)
		}
		if cause := <-stopped; !errors.Is(cause, job.ErrLeaseLost) {
			t.Fatalf("the dead worker's generation stopped with %v, want ErrLeaseLost", cause)
		}
		if err := <-done; !errors.Is(err, errDied) { // its next claim found the database gone
			t.Fatalf("the dead worker ended with %v", err)
		}
		wantReport(r2.ID, 2)
		if st, attempt, _ := jobState(t, s, job2); st != "completed" || attempt != 2 || calls.Load() != 3 {
			t.Fatalf("job %s after %d attempts, %d generations", st, attempt, calls.Load())
		}
	})
}
