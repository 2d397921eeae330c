package job

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"sync"
	"time"

	"github.com/bankrail/bankrail/internal/clock"
)

// Config are a worker's settings.
type Config struct {
	Poll        time.Duration // how often to look for due jobs when not woken (default 1 s)
	Lease       time.Duration // how long a claim holds a job before another instance may take it (default 5 min)
	Heartbeat   time.Duration // how often (real time) a claim's lease is extended while its jobs run (default Lease/3, at most Lease/2)
	Batch       int           // jobs claimed at once (default 10)
	Concurrency int           // handlers running at once (default 4)
	// LeaseClock times leases: wall time (clock.Real when nil), never the
	// sandbox's virtual clock, whose advance would expire running jobs.
	LeaseClock clock.Clock
}

func (c Config) withDefaults() Config {
	if c.Poll <= 0 {
		c.Poll = time.Second
	}
	if c.Lease <= 0 {
		c.Lease = 5 * time.Minute
	}
	if c.Heartbeat <= 0 || c.Heartbeat > c.Lease/2 {
		c.Heartbeat = c.Lease / 3
	}
	if c.Batch <= 0 {
		c.Batch = 10
	}
	if c.Concurrency <= 0 {
		c.Concurrency = 4
	}
	if c.LeaseClock == nil {
		c.LeaseClock = clock.Real{}
	}
	return c
}

// Worker claims due jobs and runs their handlers. Several workers, in one
// process or many, may share a queue: the lease makes each attempt run
// once, and a heartbeat extends it while the claim's jobs run, so a handler
// longer than the lease is not taken over while its worker lives.
type Worker struct {
	queue Queue
	kinds *Registry
	clock clock.Clock
	log   *slog.Logger
	cfg   Config

	wake   chan struct{}
	cancel context.CancelFunc
	done   sync.WaitGroup
}

// NewWorker returns a worker over queue running the handlers of kinds, with
// time from clk.
func NewWorker(queue Queue, kinds *Registry, clk clock.Clock, log *slog.Logger, cfg Config) *Worker {
	return &Worker{queue: queue, kinds: kinds, clock: clk, log: log, cfg: cfg.withDefaults(), wake: make(chan struct{}, 1)}
}

// Wake makes the worker look for due jobs now instead of at its next poll
// (after this instance enqueued one). It never blocks.
func (w *Worker) Wake() {
	select {
	case w.wake <- struct{}{}:
	default:
	}
}

// Start begins polling. It returns at once.
func (w *Worker) Start(ctx context.Context) {
	ctx, w.cancel = context.WithCancel(ctx)
	w.done.Add(1)
	go func() {
		defer w.done.Done()
		t := time.NewTicker(w.cfg.Poll)
		defer t.Stop()
		for {
			if _, err := w.RunDue(ctx); err != nil && ctx.Err() == nil {
				w.log.Warn("job worker: claim failed", "err", err)
			}
			select {
			case <-ctx.Done():
				return
			case <-t.C:
			case <-w.wake:
			}
		}
	}()
}

// Stop ends polling and waits for the handlers in progress to return.
func (w *Worker) Stop() {
	if w.cancel != nil {
		w.cancel()
		w.done.Wait()
		w.cancel = nil
	}
}

// RunDue claims and runs due jobs, batch after batch, until none is due. It
// returns how many it ran.
func (w *Worker) RunDue(ctx context.Context) (int, error) {
	ran := 0
	for ctx.Err() == nil {
		// basetime: leases are on the wall clock; a claim is a due scan that adds each job's tenant's offset
		wall, base := clock.Base(w.cfg.LeaseClock), clock.Base(w.clock)
		lease, jobs, err := w.queue.Claim(ctx, w.kinds.Kinds(), base, wall, wall.Add(w.cfg.Lease), w.cfg.Batch)
		if err != nil {
			return ran, fmt.Errorf("claim jobs: %w", err)
		}
		if len(jobs) == 0 {
			return ran, nil
		}
		// A started attempt finishes (Stop waits for it) unless its lease is lost.
		c := newClaim(context.WithoutCancel(ctx), lease, jobs, wall.Add(w.cfg.Lease))
		stopBeat := w.heartbeat(context.WithoutCancel(ctx), c)
		sem := make(chan struct{}, w.cfg.Concurrency)
		var wg sync.WaitGroup
		for _, j := range jobs {
			sem <- struct{}{}
			wg.Add(1)
			go func() {
				defer func() { <-sem; wg.Done() }()
				w.run(context.WithoutCancel(ctx), c, j)
			}()
		}
		wg.Wait()
		stopBeat()
		ran += len(jobs)
	}
	return ran, nil
}

// run runs one claimed job of c and records its outcome. Its handler's
// context is cancelled if the claim's heartbeat loses the lease.
func (w *Worker) run(ctx context.Context, c *claim, j Job) {
	jctx := c.start(j.ID)
	if jctx.Err() != nil { // lost while it waited for its turn: another worker may have it
		c.end(j.ID)
		w.log.Warn("job not run: its lease was lost before it started", "job", j.ID, "kind", j.Kind)
		return
	}
	err := w.handle(jctx, j)
	c.end(j.ID) // the heartbeat stops extending it; Finish releases it
	lease := c.lease
	now := clock.Base(w.clock) // basetime: when it ended, the queue's bookkeeping
	due := w.tenantNow(ctx, j)
	state, runAt, text := Completed, time.Time{}, ""
	var retry retryAt
	switch {
	case err == nil:
	case isCancel(err):
		state, text = Cancelled, err.Error()
	case j.Attempt >= j.MaxAttempts:
		state, text = Failed, err.Error()
	case errors.As(err, &retry):
		state, runAt, text = Available, retry.at, err.Error()
	default:
		state, runAt, text = Available, due.Add(Backoff(j.Attempt, rand.Float64())), err.Error()
	}
	if err != nil {
		w.log.Warn("job attempt failed", "job", j.ID, "kind", j.Kind, "attempt", j.Attempt, "next", state, "err", err)
	}
	if ferr := w.queue.Finish(ctx, j.ID, lease, state, runAt, text, now); ferr != nil {
		// The lease ran out and another worker took the job: its outcome counts.
		w.log.Warn("job outcome not recorded", "job", j.ID, "kind", j.Kind, "err", ferr)
	}
}

// handle runs j's handler, turning a panic into an error.
func (w *Worker) handle(ctx context.Context, j Job) (err error) {
	h, ok := w.kinds.lookup(j.Kind)
	if !ok {
		return Cancel(fmt.Errorf("no handler for job kind %q", j.Kind))
	}
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("handler panicked: %v", p)
		}
	}()
	return h(ctx, j.Args)
}

// tenantNow is the time on the clock of j's tenant, from which a retry's
// backoff runs; the base time for a system job, or when the tenant's clock
// cannot be read (the retry then comes early on that clock, never late).
func (w *Worker) tenantNow(ctx context.Context, j Job) time.Time {
	now, err := clock.UnitTime(ctx, w.clock, j.TenantID)
	if err != nil {
		w.log.Warn("read the clock of a job's tenant", "job", j.ID, "tenant", j.TenantID, "err", err)
		return clock.Base(w.clock) // basetime: the fallback above: early, never late
	}
	return now
}

// claim is the state of one claimed batch: the jobs not yet ended, each
// with the context its handler runs in, and the lease as last renewed.
type claim struct {
	lease string
	mu    sync.Mutex
	ctxs  map[string]context.Context
	stops map[string]context.CancelCauseFunc
	until time.Time // the lease's end as last written (lease clock)
}

func newClaim(ctx context.Context, lease string, jobs []Job, until time.Time) *claim {
	c := &claim{lease: lease, ctxs: map[string]context.Context{}, stops: map[string]context.CancelCauseFunc{}, until: until}
	for _, j := range jobs {
		c.ctxs[j.ID], c.stops[j.ID] = context.WithCancelCause(ctx)
	}
	return c
}

// start returns the context job id runs in (cancelled with ErrLeaseLost
// when its lease is lost).
func (c *claim) start(id string) context.Context {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.ctxs[id]
}

// end forgets a job that ended: the heartbeat no longer extends it.
func (c *claim) end(id string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if stop, ok := c.stops[id]; ok {
		stop(nil)
		delete(c.stops, id)
		delete(c.ctxs, id)
	}
}

// open lists the jobs not yet ended.
func (c *claim) open() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	ids := make([]string, 0, len(c.stops))
	for id := range c.stops {
		ids = append(ids, id)
	}
	return ids
}

// lose cancels the jobs of ids with ErrLeaseLost.
func (c *claim) lose(ids []string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, id := range ids {
		if stop, ok := c.stops[id]; ok {
			stop(ErrLeaseLost)
		}
	}
}

// heartbeat extends c's lease every Heartbeat until the returned function
// is called. A job the queue says this lease no longer holds is lost; when
// the lease cannot be renewed before it runs out (the database is
// unreachable), every job of the claim is lost: either way another worker
// may run them, so their handlers' contexts are cancelled.
func (w *Worker) heartbeat(ctx context.Context, c *claim) (stop func()) {
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		t := time.NewTicker(w.cfg.Heartbeat)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
			}
			ids := c.open()
			if len(ids) == 0 {
				continue
			}
			now := clock.Base(w.cfg.LeaseClock) // basetime: leases are on the wall clock
			held, err := w.queue.Extend(ctx, c.lease, ids, now.Add(w.cfg.Lease))
			if err != nil {
				w.log.Warn("job heartbeat: lease not extended", "lease", c.lease, "jobs", len(ids), "err", err)
				if !now.Before(c.until) {
					w.log.Warn("job heartbeat: the lease ran out; its jobs stop", "lease", c.lease, "jobs", len(ids))
					c.lose(ids)
				}
				continue
			}
			c.until = now.Add(w.cfg.Lease)
			kept := make(map[string]bool, len(held))
			for _, id := range held {
				kept[id] = true
			}
			var lost []string
			for _, id := range ids {
				if !kept[id] {
					lost = append(lost, id)
				}
			}
			if len(lost) > 0 {
				w.log.Warn("job heartbeat: lease taken over; those jobs stop", "lease", c.lease, "jobs", lost)
				c.lose(lost)
			}
		}
	}()
	return func() { close(done); wg.Wait() }
}
