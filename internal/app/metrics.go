package app

import (
	"net/http"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/bankrail/bankrail/internal/metrics"
	"github.com/bankrail/bankrail/internal/store"
)

var _ store.CommitObserver = (*metrics.Commits)(nil)

// newRegistry is the Prometheus registry of one App (with the Go runtime
// and process collectors). Each App has its own, so that several instances
// in one test process do not collide.
func newRegistry() *prometheus.Registry {
	reg := prometheus.NewRegistry()
	reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return reg
}

// metricsHandler serves reg at GET /metrics.
func metricsHandler(reg *prometheus.Registry) http.Handler {
	return promhttp.HandlerFor(reg, promhttp.HandlerOpts{})
}

// registerStoreMetrics registers st's commit metrics and its connection
// pools' statistics (go_sql_*, db_name "write" and "read" on SQLite, whose
// one writer has a pool of its own; "postgres", one pool, on PostgreSQL,
// and "replica", the read replica's, when there is one).
func registerStoreMetrics(reg prometheus.Registerer, st *store.Store) {
	st.ObserveCommits(metrics.NewCommits(reg))
	write, read := st.Pools()
	if r := st.ReplicaPool(); r != nil {
		reg.MustRegister(collectors.NewDBStatsCollector(r, "replica"))
	}
	if write == read {
		reg.MustRegister(collectors.NewDBStatsCollector(write, "postgres"))
		return
	}
	reg.MustRegister(collectors.NewDBStatsCollector(write, "write"), collectors.NewDBStatsCollector(read, "read"))
}
