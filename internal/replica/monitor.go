package replica

import (
	"context"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/bankrail/bankrail/internal/clock"
	"github.com/bankrail/bankrail/internal/worker"
)

// Monitor measures the replica's lag every Config.Interval and tells its
// Switch whether the replica may serve reads: only while it answers and
// lags no more than Config.MaxLag. Until its first check shows that, the
// replica is not used.
type Monitor struct {
	pos   Positions
	sw    Switch
	obs   Observer
	clock clock.Clock
	cfg   Config
	log   *slog.Logger
	// outage logs the checks' failures (the primary's position unread),
	// quietly while the database is away.
	outage *worker.Outage

	mu    sync.Mutex // one check at a time
	meter Lagometer
	used  bool

	cancel context.CancelFunc
	done   sync.WaitGroup
}

// NewMonitor returns a monitor of the replica whose positions pos reads;
// obs may be nil. cfg's zero fields take the defaults.
func NewMonitor(pos Positions, sw Switch, obs Observer, clk clock.Clock, cfg Config, log *slog.Logger) *Monitor {
	return &Monitor{pos: pos, sw: sw, obs: obs, clock: clk, cfg: cfg.WithDefaults(), log: log,
		outage: worker.NewOutage(log, "replica lag", nil)}
}

// Check measures the lag once and switches the replica on or off. Its
// error says why the replica is skipped when it does not answer.
func (m *Monitor) Check(ctx context.Context) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	primary, err := m.pos.Primary(ctx)
	if err != nil {
		m.meter.Forget()
		m.set(false, -1, "the primary's position is unknown", "err", err)
		return fmt.Errorf("replica check: the primary's WAL position: %w", err)
	}
	replayed, err := m.pos.Replayed(ctx)
	if err != nil {
		m.meter.Forget()
		m.set(false, -1, "the replica does not answer", "err", err)
		return nil
	}
	lag, known := m.meter.Observe(m.clock.Now(), primary, replayed) // basetime: replication lag is the database servers' real time
	switch {
	case !known:
		m.set(false, -1, "the replica has not yet replayed the primary's position")
	case lag > m.cfg.MaxLag:
		m.set(false, lag, "the replica lags more than the bound", "lag", lag, "max_lag", m.cfg.MaxLag)
	default:
		m.set(true, lag, "the replica is within the bound", "lag", lag, "max_lag", m.cfg.MaxLag)
	}
	return nil
}

// set switches the replica and reports the lag; a change is logged.
func (m *Monitor) set(use bool, lag time.Duration, why string, attrs ...any) {
	if use != m.used {
		if use {
			m.log.Info("reads go to the replica again: "+why, attrs...)
		} else {
			m.log.Warn("reads skip the replica: "+why, attrs...)
		}
	}
	m.used = use
	m.sw.UseReplica(use)
	if m.obs != nil {
		m.obs.ReplicaLag(lag, use)
	}
}

// Used reports whether the last check let the replica serve reads.
func (m *Monitor) Used() bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.used
}

// Start checks at once and then every interval, until Stop.
func (m *Monitor) Start(ctx context.Context) {
	ctx, m.cancel = context.WithCancel(ctx)
	m.done.Add(1)
	go func() {
		defer m.done.Done()
		worker.Every(ctx, m.cfg.Interval, func(ctx context.Context) (<-chan struct{}, error) {
			check, cancel := context.WithTimeout(ctx, m.cfg.MaxLag)
			defer cancel()
			return nil, m.Check(check)
		}, worker.EveryOptions{AtOnce: true, Log: m.outage})
	}()
}

// Stop ends the checks (waiting for the one in progress) and stops using
// the replica.
func (m *Monitor) Stop() {
	if m.cancel == nil {
		return
	}
	m.cancel()
	m.done.Wait()
	m.cancel = nil
	m.sw.UseReplica(false)
}
