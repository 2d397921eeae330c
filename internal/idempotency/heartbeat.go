package idempotency

import (
	"context"
	"sync"
	"time"

	"github.com/bankrail/bankrail/internal/clock"
)

// heartbeat renews t's lease every Config.Heartbeat (real time) until the
// returned function is called, each time to Config.Lease past the key's
// customer's clock (the clock its claim was made on). So the key stays in
// flight while its request runs, however long, and is free again at most a
// lease after its holder stopped (killed, or its database unreachable). It
// stops once the key is no longer held (completed in the work's unit of
// work, or taken over: the work's completion then fails).
func (g *Guard) heartbeat(ctx context.Context, t Ticket) (stop func()) {
	ctx = context.WithoutCancel(ctx) // the request's end is the work's, which stop follows
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		tick := time.NewTicker(g.cfg.Heartbeat)
		defer tick.Stop()
		for {
			select {
			case <-done:
				return
			case <-tick.C:
			}
			now, err := clock.For(ctx, g.clock, t.CustomerID)
			if err == nil {
				var held bool
				if held, err = g.keys.Extend(ctx, t, now.UTC().Add(g.cfg.Lease)); err == nil && !held {
					return
				}
			}
			if err != nil {
				g.cfg.Log.Warn("idempotency heartbeat: lease not renewed", "customer", t.CustomerID, "err", err)
			}
		}
	}()
	return func() { close(done); wg.Wait() }
}
