// Package domain is a fixture of TestBaseClockReadsAreFound: each line
// that ends in "want" is a read the lint must name; the others it must not.
package domain

import (
	"context"
	stdtime "time"

	"github.com/bankrail/bankrail/internal/clock"
)

type service struct {
	clock clock.Clock
	wall  clock.Clock
}

type reading struct{ Now stdtime.Time }

func use(func() stdtime.Time) {}

func (s *service) reads(ctx context.Context, r reading) {
	_ = stdtime.Now()        // want
	_ = stdtime.Since(r.Now) // want
	_ = stdtime.Until(r.Now) // want
	_ = s.clock.Now()        // want
	_ = s.wall.Now().UTC()   // want
	use(s.clock.Now)         // want
	_ = clock.Base(s.clock)  // want
	// basetime:
	_ = clock.Base(s.clock)  // want
	_ = clock.Base(s.clock)  // basetime: a due scan
	_ = stdtime.Since(r.Now) // basetime: a duration
	_, _ = clock.UnitTime(ctx, s.clock, "c")
	_ = r.Now
	use(func() stdtime.Time { return r.Now })
	// basetime: the line below is a due scan
	_ = clock.Base(s.clock)
}
