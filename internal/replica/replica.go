// Package replica decides whether a PostgreSQL read replica may serve the
// reads that tolerate a bounded staleness (docs/decisions.md, "Read
// replicas and their freshness"). A Monitor samples the primary's WAL
// position and the replica's replayed position every Config.Interval; the
// replica's lag is how long ago the primary was at the newest position the
// replica has replayed. A replica that lags more than Config.MaxLag, or
// does not answer, is skipped: the reads go to the primary until it is
// back within the bound. The package knows no SQL: the positions come from
// a Positions (the store's).
package replica

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// Positions reads WAL positions (log sequence numbers as integers).
type Positions interface {
	// Primary is the primary's current WAL write position.
	Primary(ctx context.Context) (uint64, error)
	// Replayed is the position up to which the replica has replayed the
	// WAL. A server that is not a standby is an error: its data is not
	// the primary's.
	Replayed(ctx context.Context) (uint64, error)
}

// Switch is told whether the replica may serve reads.
type Switch interface {
	UseReplica(fresh bool)
}

// Observer is told each measured lag (for the metrics); lag is negative
// when it is unknown (the replica is down or has replayed no sample yet).
type Observer interface {
	ReplicaLag(lag time.Duration, used bool)
}

// Config says how fresh a replica must be and how often it is measured.
type Config struct {
	MaxLag   time.Duration // a replica further behind is skipped (default DefaultMaxLag)
	Interval time.Duration // how often the lag is measured (default DefaultInterval)
}

// Defaults.
const (
	DefaultMaxLag   = 5 * time.Second
	DefaultInterval = time.Second
)

// maxSamples bounds the primary's positions kept while the replica is
// behind: at one a second, over an hour.
const maxSamples = 4096

// WithDefaults fills the zero fields.
func (c Config) WithDefaults() Config {
	if c.MaxLag == 0 {
		c.MaxLag = DefaultMaxLag
	}
	if c.Interval == 0 {
		c.Interval = DefaultInterval
	}
	return c
}

// Validate checks c (after WithDefaults).
func (c Config) Validate() error {
	var errs []error
	if c.MaxLag < 100*time.Millisecond {
		errs = append(errs, fmt.Errorf("--replica-max-lag must be at least 100ms, got %s", c.MaxLag))
	}
	if c.Interval < 10*time.Millisecond || c.Interval > c.MaxLag {
		errs = append(errs, fmt.Errorf("--replica-check-interval must be between 10ms and --replica-max-lag (%s), got %s", c.MaxLag, c.Interval))
	}
	return errors.Join(errs...)
}

// sample is the primary's WAL position at a time.
type sample struct {
	pos uint64
	at  time.Time
}

// Lagometer turns the positions read at each check into the replica's
// lag. It is not safe for concurrent use (the Monitor's loop owns it).
type Lagometer struct {
	samples []sample // the primary's positions not yet replayed, oldest first
	anchor  *sample  // the newest sample the replica has replayed
}

// Observe records the primary's position primary read at now and the
// replica's replayed position, and returns the replica's lag: now minus
// the time of the newest sample it has replayed (0 when it has replayed
// the one just taken). ok is false when it has replayed none yet.
func (l *Lagometer) Observe(now time.Time, primary, replayed uint64) (lag time.Duration, ok bool) {
	l.samples = append(l.samples, sample{pos: primary, at: now})
	for len(l.samples) > 0 && l.samples[0].pos <= replayed {
		s := l.samples[0]
		l.anchor = &s
		l.samples = l.samples[1:]
	}
	if len(l.samples) > maxSamples {
		l.samples = l.samples[len(l.samples)-maxSamples:]
	}
	if l.anchor == nil {
		return 0, false
	}
	return now.Sub(l.anchor.at), true
}

// Forget drops what is known (after the replica was down: it may be
// another server now).
func (l *Lagometer) Forget() { l.samples, l.anchor = nil, nil }
