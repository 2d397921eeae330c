package dispatch

import (
	"context"

	"github.com/bankrail/bankrail/internal/notify"
)

// deliver makes the attempt of one claim, with its application's sandbox
// chaos: a notification chaos holds back is deferred without a request; a
// success chaos duplicates is sent once more at once (the same id and
// body, signed again), both attempts recorded.
func (d *Dispatcher) deliver(ctx context.Context, c notify.Claim) result {
	if !d.opts.Chaos {
		c.Chaos = notify.Chaos{} // chaos is a sandbox setting
	}
	plan := notify.PlanChaos(c, d.now(ctx, c.CustomerID))
	if plan.Defer {
		return result{claim: c, outcome: notify.Deferred(c, plan, d.now(ctx, c.CustomerID))}
	}
	a, aborted := d.attempt(ctx, c)
	if aborted {
		return result{claim: c, aborted: true}
	}
	var dup *notify.Attempt
	if plan.Duplicate && a.Success {
		second, aborted := d.attempt(ctx, c)
		if !aborted {
			second.Chaos = notify.ChaosDuplicate
			dup = &second
		}
	}
	o := notify.Settle(c, a, d.now(ctx, c.CustomerID))
	o.Duplicate = dup
	if a.Success && (c.Chaos.ReorderPercent > 0 || c.Chaos.CompletedAfterReceivedPercent > 0) {
		o.Releases, o.Payment, o.Type, o.Key = true, c.PaymentID, c.Type, c.PaymentID
		if o.Key == "" {
			o.Key = c.ID
		}
	}
	return result{claim: c, outcome: o}
}
