package worker

import (
	"log/slog"
	"sync"
	"time"

	"github.com/bankrail/bankrail/internal/errs"
)

// Outage keeps a background task's log quiet while the database is away
// (a failover, a network partition): the task's first SERVICE_UNAVAILABLE
// failure is logged (WARN), the ones after it only at DEBUG, and its first
// success after them is logged (INFO "database reachable again") with the
// outage's length and the failures it counted. Any other error is logged
// (WARN) each time: it is not an outage but a fault to see. It is safe
// for concurrent use.
type Outage struct {
	log  *slog.Logger
	task string
	now  func() time.Time

	mu       sync.Mutex
	since    time.Time // when the outage began; zero: none
	failures int       // failures since
}

// NewOutage returns the quiet log of task on log; now is the real time
// (time.Now when nil), which the outage's length is measured on.
func NewOutage(log *slog.Logger, task string, now func() time.Time) *Outage {
	if now == nil {
		now = time.Now // basetime: an outage's length is real time, for the log
	}
	return &Outage{log: log, task: task, now: now}
}

// Observe logs err, the outcome of one run of the task, as the type says.
func (o *Outage) Observe(err error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	switch {
	case err != nil && errs.Is(err, errs.Unavailable):
		if o.since.IsZero() {
			o.since, o.failures = o.now(), 1
			o.log.Warn("database unreachable: the task tries again quietly and logs when it is back", "task", o.task, "err", err)
			return
		}
		o.failures++
		o.log.Debug("database still unreachable", "task", o.task, "failures", o.failures, "err", err)
	case err != nil:
		o.recovered()
		o.log.Warn("background task failed", "task", o.task, "err", err)
	default:
		o.recovered()
	}
}

// recovered ends an outage in progress, logging its length.
func (o *Outage) recovered() {
	if o.since.IsZero() {
		return
	}
	o.log.Info("database reachable again", "task", o.task, "outage", o.now().Sub(o.since).Round(time.Millisecond), "failures", o.failures)
	o.since, o.failures = time.Time{}, 0
}
