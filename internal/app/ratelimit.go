package app

import (
	"github.com/bankrail/bankrail/internal/clock"
	"github.com/bankrail/bankrail/internal/ratelimit"
)

// rateLimiter is the API rate limit on the base clock (an operator's limit,
// not a tenant's sandbox time): counted in the database on PostgreSQL, so
// that the instances sharing it share each application's count, and in
// memory on SQLite, whose one instance would otherwise put a write on its
// one writer connection for every read.
func (a *App) rateLimiter(base clock.Clock) *ratelimit.Limiter {
	var counter ratelimit.Counter = ratelimit.NewMemory()
	if a.cfg.UsesPostgres() {
		counter = a.store.RateLimitsFor(a.cfg.APIRateLimit)
	}
	return ratelimit.New(counter, base, ratelimit.Config{Limit: a.cfg.APIRateLimit, Window: a.cfg.APIRateWindow})
}
