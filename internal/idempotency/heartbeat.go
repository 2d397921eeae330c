package idempotency

import (
	"context"

	"github.com/bankrail/bankrail/internal/clock"
	"github.com/bankrail/bankrail/internal/worker"
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
	return worker.Beat(g.cfg.Heartbeat, func() bool {
		now, err := clock.For(ctx, g.clock, t.CustomerID)
		if err == nil {
			var held bool
			if held, err = g.keys.Extend(ctx, t, now.UTC().Add(g.cfg.Lease)); err == nil && !held {
				return false
			}
		}
		if err != nil {
			g.cfg.Log.Warn("idempotency heartbeat: lease not renewed", "customer", t.CustomerID, "err", err)
		}
		return true
	})
}
