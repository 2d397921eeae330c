package dispatch

import (
	"context"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/bankrail/bankrail/internal/notify"
)

// Stats counts what every instance shares: PENDING notifications and
// paused applications (internal/store).
type Stats func(ctx context.Context) (pending, paused int, err error)

// Metrics are the dispatcher's Prometheus metrics. A nil *Metrics records
// nothing.
type Metrics struct {
	delivered, attemptsFailed, gaveUp, pauses, resumes prometheus.Counter
	latency, endToEnd                                  prometheus.Histogram
}

// NewMetrics registers the notification metrics on reg. The gauges of
// queued notifications and paused applications are read from stats at each
// scrape, so they agree across instances.
func NewMetrics(reg prometheus.Registerer, stats Stats) *Metrics {
	counter := func(name, help string) prometheus.Counter {
		c := prometheus.NewCounter(prometheus.CounterOpts{Namespace: "bankrail", Subsystem: "notifications", Name: name, Help: help})
		reg.MustRegister(c)
		return c
	}
	histogram := func(name, help string, buckets []float64) prometheus.Histogram {
		h := prometheus.NewHistogram(prometheus.HistogramOpts{Namespace: "bankrail", Subsystem: "notifications", Name: name, Help: help, Buckets: buckets})
		reg.MustRegister(h)
		return h
	}
	m := &Metrics{
		delivered:      counter("delivered_total", "Notifications delivered (a 2xx answer) by this instance."),
		attemptsFailed: counter("attempts_failed_total", "Delivery attempts that failed (no 2xx within the timeout) in this instance."),
		gaveUp:         counter("failed_total", "Notifications that failed every retry (status FAILED) in this instance."),
		pauses:         counter("pauses_total", "Applications paused after consecutive failures, by this instance."),
		resumes:        counter("resumes_total", "Applications resumed by a successful test notification, by this instance."),
		latency: histogram("delivery_latency_seconds", "Time from sending a notification to the receiver's answer.",
			[]float64{.005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10}),
		endToEnd: histogram("delivered_after_seconds", "Time from creation to delivery of a notification (clock time; includes retries).",
			[]float64{.01, .05, .1, .5, 1, 5, 30, 60, 300, 1800, 3600}),
	}
	gauge := func(name, help string, pick func(pending, paused int) int) {
		reg.MustRegister(prometheus.NewGaugeFunc(prometheus.GaugeOpts{Namespace: "bankrail", Subsystem: "notifications", Name: name, Help: help},
			func() float64 {
				ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
				defer cancel()
				pending, paused, err := stats(ctx)
				if err != nil {
					return -1
				}
				return float64(pick(pending, paused))
			}))
	}
	gauge("queued", "Notifications waiting for delivery (PENDING), across every instance.", func(p, _ int) int { return p })
	gauge("paused_applications", "Applications whose notifications are paused, across every instance.", func(_, p int) int { return p })
	return m
}

// attempted records one attempt.
func (m *Metrics) attempted(a notify.Attempt) {
	if m == nil {
		return
	}
	m.latency.Observe(a.Latency.Seconds())
	if !a.Success {
		m.attemptsFailed.Inc()
	}
}

// recorded counts recorded outcomes; created[i] is when outcomes[i]'s
// notification was created.
func (m *Metrics) recorded(outcomes []notify.Outcome, created []time.Time, paused []string) {
	if m == nil {
		return
	}
	for i, o := range outcomes {
		switch o.Status {
		case notify.Delivered:
			m.delivered.Inc()
			m.endToEnd.Observe(o.At.Sub(created[i]).Seconds())
		case notify.Failed:
			m.gaveUp.Inc()
		}
	}
	m.pauses.Add(float64(len(paused)))
}

// resumed counts a resume.
func (m *Metrics) resumed() {
	if m != nil {
		m.resumes.Inc()
	}
}
