package store

import (
	"context"
	"time"

	"github.com/bankrail/bankrail/internal/clock"
)

var _ clock.OffsetStore = (*Store)(nil)

// ClockOffset reads the shared sandbox clock offset.
func (s *Store) ClockOffset(ctx context.Context) (time.Duration, error) {
	var us int64
	err := s.read.QueryRowContext(ctx, `SELECT offset_us FROM sandbox_clock WHERE id = 1`).Scan(&us)
	return time.Duration(us) * time.Microsecond, translate(err, "sandbox clock")
}

// AdvanceClock adds d to the shared offset in one statement and returns it.
func (s *Store) AdvanceClock(ctx context.Context, d time.Duration) (time.Duration, error) {
	var us int64
	err := s.write.QueryRowContext(ctx,
		`UPDATE sandbox_clock SET offset_us = offset_us + $1 WHERE id = 1 RETURNING offset_us`, d.Microseconds()).Scan(&us)
	return time.Duration(us) * time.Microsecond, translate(err, "sandbox clock")
}
