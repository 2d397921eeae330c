package metrics

import (
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// Replica reports the read replica's lag and whether reads go to it. It
// implements replica.Observer.
type Replica struct {
	lag  prometheus.Gauge
	used prometheus.Gauge
}

// NewReplica registers the replica's metrics on reg; fallbacks counts the
// reads meant for the replica that were read on the primary.
func NewReplica(reg prometheus.Registerer, fallbacks func() uint64) *Replica {
	m := &Replica{
		lag: prometheus.NewGauge(prometheus.GaugeOpts{Namespace: "bankrail", Subsystem: "replica", Name: "lag_seconds",
			Help: "The read replica's lag at its last check: how long ago the primary was at the newest WAL position the replica has replayed; -1 when unknown (the replica does not answer or has replayed nothing since the check began)."}),
		used: prometheus.NewGauge(prometheus.GaugeOpts{Namespace: "bankrail", Subsystem: "replica", Name: "used",
			Help: "1 while list pages and reports read on the replica, 0 while it is skipped (lagging beyond the bound, or down)."}),
	}
	reg.MustRegister(m.lag, m.used, prometheus.NewCounterFunc(prometheus.CounterOpts{Namespace: "bankrail", Subsystem: "replica",
		Name: "fallbacks_total", Help: "Reads meant for the replica that were read on the primary: the replica failed mid-read, or a report's wait for it to catch up ran out."},
		func() float64 { return float64(fallbacks()) }))
	m.lag.Set(-1)
	return m
}

// ReplicaLag records a check's lag (negative: unknown) and whether the
// replica is used.
func (m *Replica) ReplicaLag(lag time.Duration, used bool) {
	if lag < 0 {
		m.lag.Set(-1)
	} else {
		m.lag.Set(lag.Seconds())
	}
	if used {
		m.used.Set(1)
	} else {
		m.used.Set(0)
	}
}
