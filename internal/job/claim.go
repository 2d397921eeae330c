package job

import (
	"context"
	"sync"
	"time"

	"github.com/bankrail/bankrail/internal/clock"
	"github.com/bankrail/bankrail/internal/worker"
)

// claim is the state of the jobs of one Claim: those not yet ended, each
// with the context its handler runs in, and the lease as last renewed. Its
// heartbeat runs until its last job ends.
type claim struct {
	lease    string
	mu       sync.Mutex
	ctxs     map[string]context.Context
	stops    map[string]context.CancelCauseFunc
	until    time.Time // the lease's end as last written (lease clock)
	stopBeat func()    // ends the heartbeat; set once it started
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

// end forgets a job that ended: the heartbeat no longer extends it; after
// the claim's last job, the heartbeat stops.
func (c *claim) end(id string) {
	c.mu.Lock()
	stop, ok := c.stops[id]
	if ok {
		stop(nil)
		delete(c.stops, id)
		delete(c.ctxs, id)
	}
	last := ok && len(c.stops) == 0
	c.mu.Unlock()
	if last && c.stopBeat != nil {
		c.stopBeat()
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
	return worker.Beat(w.cfg.Heartbeat, func() bool {
		ids := c.open()
		if len(ids) == 0 {
			return true
		}
		now := clock.Base(w.cfg.LeaseClock) // basetime: leases are on the wall clock
		held, err := w.queue.Extend(ctx, c.lease, ids, now.Add(w.cfg.Lease))
		if err != nil {
			w.log.Warn("job heartbeat: lease not extended", "lease", c.lease, "jobs", len(ids), "err", err)
			if !now.Before(c.until) {
				w.log.Warn("job heartbeat: the lease ran out; its jobs stop", "lease", c.lease, "jobs", len(ids))
				c.lose(ids)
			}
			return true
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
		return true
	})
}
