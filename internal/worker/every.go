package worker

import (
	"context"
	"time"
)

// EveryOptions say when Every runs its function besides its interval, and
// where its outcomes are logged.
type EveryOptions struct {
	// AtOnce runs the function at the start, before the first tick.
	AtOnce bool
	// Wake runs the function at once (after the run in progress) when it
	// receives; nil: never.
	Wake <-chan struct{}
	// Log is told each run's outcome (Outage: quiet while the database is
	// away); nil: outcomes are not logged.
	Log *Outage
}

// Every is the loop of a background worker: it runs fn at every tick of
// interval, at once when opts.Wake receives, and at once when the channel
// fn's last run returned (nil: none) is closed, until ctx ends; it
// returns then (run it on a goroutine of its own, which Stop waits for).
// The outcome of a run is given to opts.Log unless ctx ended during it.
func Every(ctx context.Context, interval time.Duration, fn func(ctx context.Context) (next <-chan struct{}, err error), opts EveryOptions) {
	t := time.NewTicker(interval)
	defer t.Stop()
	var next <-chan struct{}
	run := func() {
		var err error
		next, err = fn(ctx)
		if opts.Log != nil && ctx.Err() == nil {
			opts.Log.Observe(err)
		}
	}
	if opts.AtOnce && ctx.Err() == nil {
		run()
	}
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		case <-opts.Wake:
		case <-next:
		}
		if ctx.Err() != nil {
			return
		}
		run()
	}
}
