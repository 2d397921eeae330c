// Package job is bankrail's one mechanism for durable background work:
// report generation, alias issuance, payout processing, reconciliation
// timers. A job is enqueued in the same transaction as the change that asks
// for it (so it exists if and only if that change does), runs once across
// any number of instances (a lease claim), is retried with backoff, and is
// due on the service clock, so the sandbox's virtual clock makes jobs due.
// A worker runs each kind in slots of its own (Concurrency), refilled as
// they free, so one slow kind never holds another; a job whose lease keeps
// running out (it crashes or hangs its instance) ends Dead.
// It knows nothing of SQL: the store implements Enqueuer and Queue.
package job

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// State is where a job is in its life.
type State string

// States.
const (
	Available State = "available" // waiting for RunAt
	Running   State = "running"   // claimed by a worker under a lease
	Completed State = "completed" // its handler returned nil
	Failed    State = "failed"    // its last attempt failed and no attempt is left
	Cancelled State = "cancelled" // its handler said retrying is pointless (Cancel)
	// Dead: its lease ran out Config.MaxLeaseExpiries times (its handler
	// crashes the instance that runs it, or hangs where no heartbeat
	// reaches the database). It is never claimed again, never purged, and
	// counted in bankrail_jobs_dead: an operator looks at it.
	Dead State = "dead"
)

// Job is one unit of background work.
type Job struct {
	ID        string    // uuid v7
	Kind      string    // names the handler (Register)
	Args      []byte    // JSON of the handler's argument
	TenantID  string    // the top-level customer whose clock the job is due on; "" for system jobs
	UniqueKey string    // when set, at most one available job has it (a second enqueue is a no-op)
	RunAt     time.Time // due time on the service clock
	// Later says the job is due after the worker's next poll: enqueuing
	// it wakes no worker (a poll claims it, or its tenant's clock
	// advancing wakes the worker), which saves a claim that finds nothing.
	Later       bool
	Attempt     int // attempts started so far (1 while the first runs)
	MaxAttempts int
	// LeaseExpiries counts the claims that found this job's lease run out
	// (its holder died or hung).
	LeaseExpiries int
	State         State
	LastError     string
	CreatedAt     time.Time
	FinishedAt    time.Time // when it ended (zero while it waits or runs)
}

// DefaultMaxAttempts is how often a job is tried when its enqueuer does not
// say.
const DefaultMaxAttempts = 10

// Enqueuer writes jobs inside the unit of work of the change that asks for
// them (the store's transaction implements it). A job whose UniqueKey is
// already held by an available job is skipped.
type Enqueuer interface {
	Enqueue(ctx context.Context, jobs ...Job) error
}

// Queue is the worker's side of the store: each call is a transaction of
// its own.
type Queue interface {
	Enqueuer
	// Claim is one round of a worker, in one transaction: it buries (state
	// Dead) the jobs of the request's kinds whose lease ran out at
	// LeaseNow for the MaxLeaseExpiries-th time, then takes, per kind, up
	// to Slots[kind] jobs: first those running under a lease that ran out
	// (their holder died), then those available and due at Now on the
	// service clock. It marks them running under a new lease until
	// LeaseUntil and counts the attempt. Leases are wall time, due times
	// service time: advancing the sandbox clock must not expire the lease
	// of a running job.
	Claim(ctx context.Context, req ClaimRequest) (Claimed, error)
	// Finish records a claimed job's outcome, only while this lease holds
	// it: Completed, Cancelled or Failed with errText; or, with
	// state Available, a retry at runAt.
	Finish(ctx context.Context, id, leaseID string, state State, runAt time.Time, errText string, at time.Time) error
	// Extend is the heartbeat of a claim: it moves the lease of those of
	// ids that leaseID still holds (running, not taken over) to until
	// (wall time) and returns their ids; the others were lost.
	Extend(ctx context.Context, leaseID string, ids []string, until time.Time) (held []string, err error)
}

// ClaimRequest is what a worker asks of the queue in one round.
type ClaimRequest struct {
	// Slots are the free slots of each kind the worker runs: at most that
	// many jobs of the kind are claimed. A kind at 0 is not claimed, but
	// its dead jobs are buried.
	Slots map[string]int
	Now   time.Time // the base time of the service clock (each job's tenant's offset is added to it)
	// LeaseNow and LeaseUntil are wall time: a lease that ended before
	// LeaseNow ran out; a claim's lease lasts until LeaseUntil.
	LeaseNow, LeaseUntil time.Time
	// MaxLeaseExpiries: a job whose lease ran out this many times is Dead
	// instead of claimed again.
	MaxLeaseExpiries int
}

// Claimed is the outcome of one Claim.
type Claimed struct {
	Lease string // the lease the claimed jobs run under
	Jobs  []Job  // claimed, state Running
	Dead  []Job  // buried by this claim, state Dead
}

// ErrLeaseLost is the cause of the cancellation of a handler's context
// when its claim's heartbeat found the lease taken over by another worker,
// or could not renew it before it ran out: another worker may run the job,
// so this attempt should stop.
var ErrLeaseLost = errors.New("job: the lease ran out or was taken over; another worker may run the job")

// New builds a job of kind with args encoded as JSON, due at runAt.
func New(kind string, args any, runAt time.Time) (Job, error) {
	b, err := encodeArgs(args)
	if err != nil {
		return Job{}, fmt.Errorf("job %s: %w", kind, err)
	}
	return Job{Kind: kind, Args: b, RunAt: runAt, MaxAttempts: DefaultMaxAttempts, State: Available}, nil
}

// retryAt asks for the next attempt at a given time.
type retryAt struct {
	at  time.Time
	err error
}

func (r retryAt) Error() string {
	return fmt.Sprintf("retry at %s: %v", r.at.Format(time.RFC3339), r.err)
}
func (r retryAt) Unwrap() error { return r.err }

// RetryAt is a handler's error that asks for the next attempt at t instead
// of the backoff's time (say, a bank that said "not before").
func RetryAt(t time.Time, err error) error { return retryAt{at: t, err: err} }

// cancel marks an error that retrying cannot mend.
type cancel struct{ err error }

func (c cancel) Error() string { return "cancelled: " + c.err.Error() }
func (c cancel) Unwrap() error { return c.err }

// Cancel is a handler's error that ends the job as Cancelled at once (bad
// arguments, a subject that no longer exists).
func Cancel(err error) error { return cancel{err: err} }

// isCancel reports whether err asks to cancel.
func isCancel(err error) bool {
	var c cancel
	return errors.As(err, &c)
}

// Backoff is the wait before attempt n+1 after attempt n failed:
// 2^n seconds (1 s, 2 s, 4 s, ...) capped at an hour, plus up to a tenth of
// that drawn from jitter (a number in [0, 1)), so that many jobs failing at
// once do not come back at once.
func Backoff(attempt int, jitter float64) time.Duration {
	d := time.Hour
	if attempt < 12 {
		d = min(time.Duration(1<<attempt)*time.Second, time.Hour)
	}
	return d + time.Duration(float64(d)/10*jitter)
}
