package metrics

import (
	"context"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/bankrail/bankrail/internal/job"
)

var _ job.Observer = (*Jobs)(nil)

// DeadJobCounts counts the dead jobs of each kind across every instance
// (internal/store).
type DeadJobCounts func(ctx context.Context) (map[string]int, error)

// Jobs are the job queue's metrics: the jobs this instance declared dead
// (a counter, by kind), and the dead jobs in the database (a gauge by kind,
// read at each scrape, the same on every instance). It implements
// job.Observer.
type Jobs struct {
	dead *prometheus.CounterVec
}

// NewJobs registers the job metrics on reg; the gauge reads counts. Both
// are present from 0 for each of kinds.
func NewJobs(reg prometheus.Registerer, counts DeadJobCounts, kinds ...string) *Jobs {
	m := &Jobs{dead: prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: "bankrail", Subsystem: "jobs", Name: "dead_total",
		Help: "Jobs this instance declared dead (their lease ran out too often: they crash or hang their instance), by kind."},
		[]string{"kind"})}
	for _, k := range kinds {
		m.dead.WithLabelValues(k)
	}
	reg.MustRegister(m.dead, deadGauge{counts: counts, kinds: kinds})
	return m
}

// JobDead counts one job of kind declared dead.
func (m *Jobs) JobDead(kind string) { m.dead.WithLabelValues(kind).Inc() }

// deadGauge collects bankrail_jobs_dead from the database at each scrape.
type deadGauge struct {
	counts DeadJobCounts
	kinds  []string // present at 0 when none is dead
}

var deadDesc = prometheus.NewDesc("bankrail_jobs_dead", "Dead jobs in the database (never run again until an operator acts), by kind, across every instance.",
	[]string{"kind"}, nil)

// Describe sends the gauge's description.
func (g deadGauge) Describe(ch chan<- *prometheus.Desc) { ch <- deadDesc }

// Collect reads the counts; when the database does not answer, the gauge
// is absent from the scrape (an alert on it then sees no data).
func (g deadGauge) Collect(ch chan<- prometheus.Metric) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	counts, err := g.counts(ctx)
	if err != nil {
		return
	}
	for _, k := range g.kinds {
		if _, ok := counts[k]; !ok {
			counts[k] = 0
		}
	}
	for kind, n := range counts {
		ch <- prometheus.MustNewConstMetric(deadDesc, prometheus.GaugeValue, float64(n), kind)
	}
}
