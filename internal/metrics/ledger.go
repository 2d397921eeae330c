package metrics

import (
	"github.com/prometheus/client_golang/prometheus"

	"github.com/bankrail/bankrail/internal/ledger"
)

// Ledger holds the outcome of the periodic verification of the books
// (ledger.Checker): the discrepancies the last one found, when it ran, and
// how the runs ended. It implements ledger.VerifyObserver.
type Ledger struct {
	discrepancies *prometheus.GaugeVec
	lastRun       prometheus.Gauge
	runs          *prometheus.CounterVec
}

var _ ledger.VerifyObserver = (*Ledger)(nil)

// Outcomes of a verification (the outcome label).
const (
	outcomeBalanced   = "balanced"
	outcomeUnbalanced = "unbalanced"
	outcomeFailed     = "failed"
)

// NewLedger registers the ledger metrics on reg.
func NewLedger(reg prometheus.Registerer) *Ledger {
	m := &Ledger{
		discrepancies: prometheus.NewGaugeVec(prometheus.GaugeOpts{Namespace: "bankrail", Subsystem: "ledger", Name: "discrepancies",
			Help: "Discrepancies the last verification of the books found, by kind: balance (a cached balance is not the sum of its postings) or entry (an entry's postings do not sum to zero)."},
			[]string{"kind"}),
		lastRun: prometheus.NewGauge(prometheus.GaugeOpts{Namespace: "bankrail", Subsystem: "ledger", Name: "last_verification_timestamp_seconds",
			Help: "When the last verification that read the whole books ran (Unix seconds, service clock); 0 before the first."}),
		runs: prometheus.NewCounterVec(prometheus.CounterOpts{Namespace: "bankrail", Subsystem: "ledger", Name: "verifications_total",
			Help: "Verifications of the books run by this instance, by outcome: balanced, unbalanced or failed (the books could not be read)."},
			[]string{"outcome"}),
	}
	reg.MustRegister(m.discrepancies, m.lastRun, m.runs)
	for _, o := range []string{outcomeBalanced, outcomeUnbalanced, outcomeFailed} {
		m.runs.WithLabelValues(o)
	}
	m.discrepancies.WithLabelValues("balance")
	m.discrepancies.WithLabelValues("entry")
	return m
}

// BooksVerified records a verification that read the whole books.
func (m *Ledger) BooksVerified(r ledger.Report) {
	m.discrepancies.WithLabelValues("balance").Set(float64(r.BalanceDiscrepancies))
	m.discrepancies.WithLabelValues("entry").Set(float64(r.EntryDiscrepancies))
	m.lastRun.Set(float64(r.CheckedAt.UnixNano()) / 1e9)
	outcome := outcomeBalanced
	if !r.Balanced() {
		outcome = outcomeUnbalanced
	}
	m.runs.WithLabelValues(outcome).Inc()
}

// BooksVerificationFailed counts a verification that could not read the books.
func (m *Ledger) BooksVerificationFailed() { m.runs.WithLabelValues(outcomeFailed).Inc() }
