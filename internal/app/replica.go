package app

import (
	"github.com/prometheus/client_golang/prometheus"

	"github.com/bankrail/bankrail/internal/clock"
	"github.com/bankrail/bankrail/internal/metrics"
	"github.com/bankrail/bankrail/internal/replica"
)

// watchReplica adds the worker that measures the read replica's lag and
// lets list pages and reports read there while it is within the bound
// (--replica-url; docs/operations.md, "Read replicas"). The lag is wall
// time, whatever the sandbox's clocks say.
func (a *App) watchReplica(reg prometheus.Registerer) {
	if !a.store.HasReplica() {
		return
	}
	obs := metrics.NewReplica(reg, a.store.ReplicaFallbacks)
	a.replica = replica.NewMonitor(a.store.ReplicaPositions(), a.store, obs, clock.Real{}, a.cfg.Replica(),
		a.log.With("component", "replica"))
	a.workers = append(a.workers, a.replica)
}

// Replica is the read replica's monitor, nil without --replica-url.
func (a *App) Replica() *replica.Monitor { return a.replica }
