package job

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/bankrail/bankrail/internal/clock"
)

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
