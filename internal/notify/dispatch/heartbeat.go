package dispatch

import (
	"context"
	"slices"

	"github.com/bankrail/bankrail/internal/clock"
	"github.com/bankrail/bankrail/internal/worker"
)

// heartbeat renews the leases of the claims in flight (claimed and not yet
// recorded) every Options.Heartbeat (real time) to Options.Lease past the
// wall clock, until the returned function is called: a delivery keeps its
// notification however long it takes, and a killed instance's claims are
// free again a lease after its last heartbeat. A renewal that fails is
// logged; the leases then run out and the notifications are delivered
// again (at least once).
func (d *Dispatcher) heartbeat(ctx context.Context) (stop func()) {
	return worker.Beat(d.opts.Heartbeat, func() bool {
		leases := d.held()
		if len(leases) == 0 {
			return true
		}
		until := clock.Base(d.opts.Wall).Add(d.opts.Lease) // basetime: leases are on the wall clock
		if err := d.store.ExtendNotificationLeases(ctx, leases, until); err != nil {
			d.log.Warn("notification heartbeat: leases not renewed", "leases", len(leases), "err", err)
		}
		return true
	})
}

// held lists the lease ids with claims in flight.
func (d *Dispatcher) held() []string {
	d.mu.Lock()
	defer d.mu.Unlock()
	leases := make([]string, 0, len(d.leases))
	for id := range d.leases {
		leases = append(leases, id)
	}
	slices.Sort(leases)
	return leases
}

// recorded takes the claims of batch out of the heartbeat.
func (d *Dispatcher) recorded(batch []result) {
	d.mu.Lock()
	defer d.mu.Unlock()
	for _, r := range batch {
		if d.leases[r.claim.LeaseID]--; d.leases[r.claim.LeaseID] <= 0 {
			delete(d.leases, r.claim.LeaseID)
		}
	}
}
