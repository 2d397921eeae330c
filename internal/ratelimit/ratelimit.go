// Package ratelimit bounds the API requests of each application: at most
// Limit requests in each fixed window of Window (aligned on the Unix epoch,
// so every instance agrees where a window starts), counted by a Counter
// that the instances share (a table on PostgreSQL) or that lives in the one
// instance's memory (SQLite). A request over the limit is refused with
// TOO_MANY_REQUESTS and RetryAfter until the window ends. It knows nothing of
// HTTP or SQL.
package ratelimit

import (
	"context"
	"fmt"
	"math"
	"time"

	"github.com/bankrail/bankrail/internal/clock"
	"github.com/bankrail/bankrail/internal/errs"
)

// Counter counts requests per key and window.
type Counter interface {
	// CountRequest adds one request of key to the window starting at start
	// and returns the window's count with this one, and the start of the
	// window counted into: start, or a later window another instance (its
	// clock ahead) has already opened. A counter shared by instances may
	// answer, far below the limit, the count as this instance last read
	// it plus its own requests since (store.RateLimitsFor): exact from
	// half the limit on.
	CountRequest(ctx context.Context, key string, start time.Time) (n int64, counted time.Time, err error)
}

// Config is the limit; a Limit of 0 turns limiting off.
type Config struct {
	Limit  int64         // requests per application per window
	Window time.Duration // the fixed window's length
}

// Limiter refuses an application's requests beyond the limit.
type Limiter struct {
	counter Counter
	clock   clock.Clock // the base clock: limits are the operator's, not a tenant's sandbox time
	cfg     Config
}

// New returns a Limiter counting with counter on clk.
func New(counter Counter, clk clock.Clock, cfg Config) *Limiter {
	return &Limiter{counter: counter, clock: clk, cfg: cfg}
}

// Allow counts one request of application and refuses it, with
// TOO_MANY_REQUESTS and RetryAfter the rest of the window, when the window's
// count is above the limit. A nil Limiter or a Limit of 0 allows every
// request without counting.
func (l *Limiter) Allow(ctx context.Context, application string) error {
	if l == nil || l.cfg.Limit <= 0 {
		return nil
	}
	now := l.clock.Now() // basetime: request rates are in real time, whatever a tenant's clock (as the login throttle)
	start := now.Truncate(l.cfg.Window)
	n, counted, err := l.counter.CountRequest(ctx, application, start)
	if err != nil {
		return fmt.Errorf("count a request of application %s: %w", application, err)
	}
	if n <= l.cfg.Limit {
		return nil
	}
	wait := counted.Add(l.cfg.Window).Sub(now)
	return &errs.Error{Code: errs.TooManyRequests, RetryAfter: wait, Message: fmt.Sprintf(
		"Too many requests: this application may make %d requests per %s; retry in %d seconds.",
		l.cfg.Limit, l.cfg.Window, int64(math.Ceil(wait.Seconds())))}
}
