package store

import (
	"context"
	"time"

	"github.com/bankrail/bankrail/internal/ratelimit"
)

// RateLimits is the API rate limit's counter shared by the instances on
// this database (table api_rate_limits).
func (s *Store) RateLimits() ratelimit.Counter { return rateLimits{s: s} }

type rateLimits struct{ s *Store }

// CountRequest counts one API request of application in the window
// starting at start, in one atomic upsert: the same window's count grows; a
// later window starts again at 1; an instance whose clock is behind counts
// into the later window another instance opened.
func (r rateLimits) CountRequest(ctx context.Context, application string, start time.Time) (int64, time.Time, error) {
	var n, counted int64
	err := r.s.write.QueryRowContext(ctx, `
		INSERT INTO api_rate_limits (application, window_start, requests) VALUES ($1, $2, 1)
		ON CONFLICT (application) DO UPDATE SET
			requests     = CASE WHEN api_rate_limits.window_start >= $2 THEN api_rate_limits.requests + 1 ELSE 1 END,
			window_start = CASE WHEN api_rate_limits.window_start >= $2 THEN api_rate_limits.window_start ELSE $2 END
		RETURNING requests, window_start`, application, micros(start)).Scan(&n, &counted)
	return n, fromMicros(counted), translate(err, "count an API request")
}
