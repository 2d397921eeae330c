// Package worker holds the small building blocks of bankrail's background
// workers: each has Start(ctx) and Stop(), and Stop waits for the work in
// progress to end.
package worker

import (
	"context"
	"log/slog"
	"sync"
	"time"
)

// Periodic runs a function at a fixed interval until stopped, and at once
// when woken.
type Periodic struct {
	name     string
	interval time.Duration
	fn       func(ctx context.Context) error
	outage   *Outage       // its failures, logged quietly while the database is away
	wake     chan struct{} // one pending wake at most

	cancel context.CancelFunc
	done   sync.WaitGroup
}

// NewPeriodic returns a worker that calls fn every interval; errors are
// logged under name (Outage: quietly while the database is away) and the
// next tick tries again.
func NewPeriodic(name string, interval time.Duration, log *slog.Logger, fn func(ctx context.Context) error) *Periodic {
	return &Periodic{name: name, interval: interval, fn: fn, outage: NewOutage(log, name, nil), wake: make(chan struct{}, 1)}
}

// Wake makes the worker call fn at once (after the call in progress, if
// any) instead of at its next tick: for what an event made due, such as a
// clock's advance. It never blocks; wakes that come while one is pending
// make one call.
func (p *Periodic) Wake() {
	select {
	case p.wake <- struct{}{}:
	default:
	}
}

// Start begins the ticks (and answers wakes). It returns at once.
func (p *Periodic) Start(ctx context.Context) {
	ctx, p.cancel = context.WithCancel(ctx)
	p.done.Add(1)
	go func() {
		defer p.done.Done()
		Every(ctx, p.interval, func(ctx context.Context) (<-chan struct{}, error) { return nil, p.fn(ctx) },
			EveryOptions{Wake: p.wake, Log: p.outage})
	}()
}

// Stop ends the ticks and waits for a call in progress to return.
func (p *Periodic) Stop() {
	if p.cancel != nil {
		p.cancel()
		p.done.Wait()
		p.cancel = nil
	}
}
