package job

import (
	"context"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/bankrail/bankrail/internal/clock"
	"github.com/bankrail/bankrail/internal/worker"
)

// Config are a worker's settings.
type Config struct {
	Poll      time.Duration // how often to look for due jobs when not woken (default 1 s)
	Lease     time.Duration // how long a claim holds a job after its last heartbeat before another instance may take it (default DefaultLease)
	Heartbeat time.Duration // how often (real time) a claim's lease is extended while its jobs run (default Lease/3, at most Lease/2)
	// Concurrency is how many jobs of one kind run at once, for the kinds
	// registered without job.Concurrency (default 4). Each kind has its own
	// slots.
	Concurrency int
	// MaxLeaseExpiries is how often a job's lease may run out (its
	// instance died or it hung) before the job is Dead instead of claimed
	// again (default 3).
	MaxLeaseExpiries int
	// LeaseClock times leases: wall time (clock.Real when nil), never the
	// sandbox's virtual clock, whose advance would expire running jobs.
	LeaseClock clock.Clock
	// Observer is told of the jobs this worker declared dead; nil: none.
	Observer Observer
}

// Observer counts what operators alert on (internal/metrics implements
// it).
type Observer interface {
	// JobDead is called once for each job this worker declared Dead.
	JobDead(kind string)
}

// DefaultLease is Config.Lease when unset: short, because the heartbeat
// renews it every third of it while the job runs, however long; a job whose
// instance was killed runs again elsewhere at most a lease (and a poll)
// after the instance's last heartbeat (issue 28: it was 5 minutes).
const DefaultLease = 15 * time.Second

// DefaultMaxLeaseExpiries is Config.MaxLeaseExpiries when unset.
const DefaultMaxLeaseExpiries = 3

func (c Config) withDefaults() Config {
	if c.Poll <= 0 {
		c.Poll = time.Second
	}
	if c.Lease <= 0 {
		c.Lease = DefaultLease
	}
	if c.Heartbeat <= 0 || c.Heartbeat > c.Lease/2 {
		c.Heartbeat = c.Lease / 3
	}
	if c.Concurrency <= 0 {
		c.Concurrency = 4
	}
	if c.MaxLeaseExpiries <= 0 {
		c.MaxLeaseExpiries = DefaultMaxLeaseExpiries
	}
	if c.LeaseClock == nil {
		c.LeaseClock = clock.Real{}
	}
	return c
}

// Worker claims due jobs and runs their handlers. Each kind has slots of
// its own (Concurrency); a slot that frees is refilled at once, so a slow
// job holds its own slot and no other. Several workers, in one process or
// many, may share a queue: the lease makes each attempt run once, and a
// heartbeat extends it while the claim's jobs run, so a handler longer than
// the lease is not taken over while its worker lives.
type Worker struct {
	queue Queue
	kinds *Registry
	clock clock.Clock
	log   *slog.Logger
	cfg   Config
	// outage logs the claims' failures, quietly while the database is away.
	outage *worker.Outage

	wake   chan struct{}
	cancel context.CancelFunc
	done   sync.WaitGroup // the polling loop
	jobs   sync.WaitGroup // every running handler

	claiming sync.Mutex // one Claim at a time, so that two never fill the same free slots
	mu       sync.Mutex
	running  map[string]int // kind -> jobs running
	ended    chan struct{}  // closed (and replaced) when a job ends: its slot is free
}

// NewWorker returns a worker over queue running the handlers of kinds, with
// time from clk.
func NewWorker(queue Queue, kinds *Registry, clk clock.Clock, log *slog.Logger, cfg Config) *Worker {
	return &Worker{queue: queue, kinds: kinds, clock: clk, log: log, cfg: cfg.withDefaults(), wake: make(chan struct{}, 1),
		outage:  worker.NewOutage(log, "job worker: claim jobs", nil),
		running: map[string]int{}, ended: make(chan struct{})}
}

// Wake makes the worker look for due jobs now instead of at its next poll
// (after this instance enqueued one). It never blocks.
func (w *Worker) Wake() {
	select {
	case w.wake <- struct{}{}:
	default:
	}
}

// Start begins polling: at every poll, wake and freed slot, it claims due
// jobs for the free slots. It returns at once.
func (w *Worker) Start(ctx context.Context) {
	ctx, w.cancel = context.WithCancel(ctx)
	w.done.Add(1)
	go func() {
		defer w.done.Done()
		worker.Every(ctx, w.cfg.Poll, func(ctx context.Context) (<-chan struct{}, error) {
			ended := w.slotFreed() // before the claim: a job that ends during it is not missed
			_, err := w.fill(ctx)
			return ended, err
		}, worker.EveryOptions{AtOnce: true, Wake: w.wake, Log: w.outage})
	}()
}

// Stop ends polling and waits for the handlers in progress to return.
func (w *Worker) Stop() {
	if w.cancel != nil {
		w.cancel()
		w.done.Wait()
		w.jobs.Wait()
		w.cancel = nil
	}
}

// RunDue claims and runs due jobs, refilling slots as they free, until
// none is due and none runs. It returns how many it started, and the first
// claim's error (after the jobs running have ended).
func (w *Worker) RunDue(ctx context.Context) (int, error) {
	ran := 0
	for {
		ended := w.slotFreed()
		if ctx.Err() == nil {
			n, err := w.fill(ctx)
			ran += n
			if err != nil {
				w.jobs.Wait()
				return ran, err
			}
			if n > 0 {
				continue
			}
		}
		if w.idle() {
			return ran, nil
		}
		<-ended // a started attempt finishes (Stop waits for it) unless its lease is lost
	}
}

// slotFreed is closed when a running job next ends.
func (w *Worker) slotFreed() <-chan struct{} {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.ended
}

// idle reports whether no job runs.
func (w *Worker) idle() bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, n := range w.running {
		if n > 0 {
			return false
		}
	}
	return true
}

// free is the free slots of each kind.
func (w *Worker) free() map[string]int {
	limits := w.kinds.concurrency(w.cfg.Concurrency)
	w.mu.Lock()
	defer w.mu.Unlock()
	for k, n := range limits {
		limits[k] = max(n-w.running[k], 0)
	}
	return limits
}

// fill claims due jobs for the free slots of every kind and starts them;
// it returns how many. Jobs the claim declared dead are logged and counted.
func (w *Worker) fill(ctx context.Context) (int, error) {
	w.claiming.Lock()
	defer w.claiming.Unlock()
	slots := w.free()
	open := 0
	for _, n := range slots {
		open += n
	}
	if open == 0 {
		return 0, nil
	}
	// basetime: leases are on the wall clock; a claim is a due scan that adds each job's tenant's offset
	wall, base := clock.Base(w.cfg.LeaseClock), clock.Base(w.clock)
	got, err := w.queue.Claim(ctx, ClaimRequest{Slots: slots, Now: base, LeaseNow: wall, LeaseUntil: wall.Add(w.cfg.Lease),
		MaxLeaseExpiries: w.cfg.MaxLeaseExpiries})
	if err != nil {
		return 0, fmt.Errorf("claim jobs: %w", err)
	}
	for _, j := range got.Dead {
		w.log.Error("job is dead: its lease ran out too often (its instance died or it hung); it will not run again",
			"job", j.ID, "kind", j.Kind, "attempt", j.Attempt, "lease_expiries", j.LeaseExpiries, "tenant", j.TenantID,
			"last_error", j.LastError)
		if w.cfg.Observer != nil {
			w.cfg.Observer.JobDead(j.Kind)
		}
	}
	if len(got.Jobs) == 0 {
		return 0, nil
	}
	w.mu.Lock()
	for _, j := range got.Jobs {
		w.running[j.Kind]++
	}
	w.mu.Unlock()
	// A started attempt finishes (Stop waits for it) unless its lease is lost.
	keep := context.WithoutCancel(ctx)
	c := newClaim(keep, got.Lease, got.Jobs, wall.Add(w.cfg.Lease))
	c.stopBeat = w.heartbeat(keep, c)
	w.jobs.Add(len(got.Jobs))
	for _, j := range got.Jobs {
		go func() {
			defer w.jobs.Done()
			w.run(keep, c, j)
			w.release(j.Kind)
		}()
	}
	return len(got.Jobs), nil
}

// release frees the slot of a job of kind that ended (its outcome
// recorded) and tells whoever waits for one.
func (w *Worker) release(kind string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.running[kind]--
	close(w.ended)
	w.ended = make(chan struct{})
}
