// Package metrics holds bankrail's Prometheus metrics of HTTP requests and
// payments (the notification metrics live with their dispatcher, in
// internal/notify/dispatch). Each is registered on the registry it is given,
// so that several instances in one test process do not collide. The list of
// metrics and what to alert on is docs/operations.md.
package metrics

import (
	"net/http"
	"strconv"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/bankrail/bankrail/internal/payment"
)

// HTTP counts and times the requests the server answers, by method, route
// pattern (never the raw path, which would make one series per payment) and
// status code.
type HTTP struct {
	requests *prometheus.CounterVec
	duration *prometheus.HistogramVec
}

// NewHTTP registers the HTTP metrics on reg.
func NewHTTP(reg prometheus.Registerer) *HTTP {
	labels := []string{"method", "route", "code"}
	m := &HTTP{
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: "bankrail", Subsystem: "http", Name: "requests_total",
			Help: "HTTP requests answered, by method, route pattern (unmatched: no route) and status code."}, labels),
		duration: prometheus.NewHistogramVec(prometheus.HistogramOpts{Namespace: "bankrail", Subsystem: "http", Name: "request_duration_seconds",
			Help: "Time to answer an HTTP request, by method, route pattern and status code.", Buckets: prometheus.DefBuckets}, labels),
	}
	reg.MustRegister(m.requests, m.duration)
	return m
}

// methods are the methods counted by name; any other is OTHER, so that a
// client cannot create series at will.
var methods = map[string]bool{http.MethodGet: true, http.MethodHead: true, http.MethodPost: true, http.MethodPut: true,
	http.MethodPatch: true, http.MethodDelete: true, http.MethodOptions: true}

// ObserveRequest records one answered request. route is the pattern that
// served it ("/payments/{id}"), empty when none matched.
func (m *HTTP) ObserveRequest(method, route string, status int, d time.Duration) {
	if !methods[method] {
		method = "OTHER"
	}
	if route == "" {
		route = "unmatched"
	}
	code := strconv.Itoa(status)
	m.requests.WithLabelValues(method, route, code).Inc()
	m.duration.WithLabelValues(method, route, code).Observe(d.Seconds())
}

// Payments counts payments created, by payment system and channel, and the
// moves of payments, by the status reached. It implements payment.Observer.
type Payments struct {
	created *prometheus.CounterVec
	moved   *prometheus.CounterVec
}

var _ payment.Observer = (*Payments)(nil)

// NewPayments registers the payment metrics on reg.
func NewPayments(reg prometheus.Registerer) *Payments {
	m := &Payments{
		created: prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: "bankrail", Subsystem: "payments", Name: "created_total",
			Help: "Payments created by this instance (replays excluded), by payment system and initiation channel."},
			[]string{"payment_system", "channel"}),
		moved: prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: "bankrail", Subsystem: "payments", Name: "moved_total",
			Help: "Payment status moves made by this instance, by the status reached."}, []string{"status"}),
	}
	reg.MustRegister(m.created, m.moved)
	for _, st := range payment.Statuses { // every status from 0, so that rates and ratios exist before the first move
		m.moved.WithLabelValues(string(st))
	}
	return m
}

// PaymentCreated counts a new payment.
func (m *Payments) PaymentCreated(p payment.Payment) {
	m.created.WithLabelValues(string(p.System()), string(p.Channel)).Inc()
}

// PaymentMoved counts one move.
func (m *Payments) PaymentMoved(_ payment.Payment, _, to payment.Status) {
	m.moved.WithLabelValues(string(to)).Inc()
}

// Commits observes the store's transactions of units of work (group
// commit): how many units each committed transaction carried and how long
// it took, by how it ran, and the commits whose outcome was lost. It
// implements store.CommitObserver.
type Commits struct {
	units   *prometheus.HistogramVec
	seconds *prometheus.HistogramVec
	cpu     *prometheus.CounterVec
	unknown prometheus.Counter
	again   *prometheus.CounterVec
}

// NewCommits registers the commit metrics on reg.
func NewCommits(reg prometheus.Registerer) *Commits {
	labels := []string{"pass"}
	m := &Commits{
		units: prometheus.NewHistogramVec(prometheus.HistogramOpts{Namespace: "bankrail", Subsystem: "store", Name: "transaction_units",
			Help:    "Units of work (use cases' writes) per committed transaction, by pass: alone, together (a group, nothing between its units) or savepoints (a group after a unit failed).",
			Buckets: []float64{1, 2, 4, 8, 16, 32, 64}}, labels),
		seconds: prometheus.NewHistogramVec(prometheus.HistogramOpts{Namespace: "bankrail", Subsystem: "store", Name: "transaction_seconds",
			Help:    "Time from a committed transaction's start to its commit, by pass.",
			Buckets: []float64{0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1}}, labels),
		cpu: prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: "bankrail", Subsystem: "store", Name: "transaction_cpu_seconds_total",
			Help: "CPU time of this process's writer (the goroutine that ran them, locked to its thread) in committed transactions, start to commit, by pass; 0 where a thread's CPU time cannot be read (not Linux) and on PostgreSQL (its writer waits on the network and is not locked to a thread; the server's work would not be in it anyway). On SQLite the engine's work is all in it."}, labels),
		unknown: prometheus.NewCounter(prometheus.CounterOpts{Namespace: "bankrail", Subsystem: "store", Name: "commit_outcome_unknown_units_total",
			Help: "Units of work answered with an error because the connection was lost after their COMMIT was sent: each may have committed."}),
	}
	m.again = prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: "bankrail", Subsystem: "store", Name: "units_run_again_total",
		Help: "Units of work of a group run again alone, by why: lost_to_another (a deadlock, serialisation failure or lock not had, PostgreSQL) or group_failed (the group did not commit, or may not have)."},
		[]string{"why"})
	reg.MustRegister(m.units, m.seconds, m.cpu, m.unknown, m.again)
	for _, why := range []string{"lost_to_another", "group_failed"} { // store.AgainLostToAnother and AgainGroupFailed, from 0 so that rates exist before the first
		m.again.WithLabelValues(why)
	}
	return m
}

// Committed records one committed transaction.
func (m *Commits) Committed(pass string, units int, took, cpu time.Duration) {
	m.units.WithLabelValues(pass).Observe(float64(units))
	m.seconds.WithLabelValues(pass).Observe(took.Seconds())
	m.cpu.WithLabelValues(pass).Add(cpu.Seconds())
}

// CommitOutcomeUnknown counts the units of a commit whose outcome was lost.
func (m *Commits) CommitOutcomeUnknown(units int) { m.unknown.Add(float64(units)) }

// RanAgain counts a unit of a group run again alone.
func (m *Commits) RanAgain(why string) { m.again.WithLabelValues(why).Inc() }
