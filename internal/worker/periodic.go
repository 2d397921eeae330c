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

// Periodic runs a function at a fixed interval until stopped.
type Periodic struct {
	name     string
	interval time.Duration
	fn       func(ctx context.Context) error
	log      *slog.Logger

	cancel context.CancelFunc
	done   sync.WaitGroup
}

// NewPeriodic returns a worker that calls fn every interval; errors are
// logged under name and the next tick tries again.
func NewPeriodic(name string, interval time.Duration, log *slog.Logger, fn func(ctx context.Context) error) *Periodic {
	return &Periodic{name: name, interval: interval, fn: fn, log: log}
}

// Start begins the ticks. It returns at once.
func (p *Periodic) Start(ctx context.Context) {
	ctx, p.cancel = context.WithCancel(ctx)
	p.done.Add(1)
	go func() {
		defer p.done.Done()
		t := time.NewTicker(p.interval)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
				if err := p.fn(ctx); err != nil && ctx.Err() == nil {
					p.log.Warn("background task failed", "task", p.name, "err", err)
				}
			}
		}
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
