package store

import (
	"context"
	"database/sql"
	"fmt"
)

// rateLimitsVersion is the migration of the API rate limit's table.
const rateLimitsVersion = 49

// rateLimitsUp creates api_rate_limits, the fixed window of each
// application's API requests (internal/ratelimit), counted with one atomic
// upsert per request by every instance on a PostgreSQL database (the one
// instance on SQLite counts in memory; the table stays empty). It is a Go
// migration because the table is UNLOGGED on PostgreSQL: a transaction that
// writes only unlogged tables commits without waiting for a WAL flush, so
// the row lock of a busy application's count is held for microseconds, not
// for an fsync. A crash empties it: the windows start again, as they would
// a minute later.
func rateLimitsUp(ctx context.Context, tx *sql.Tx, d Dialect) error {
	unlogged := ""
	if d == Postgres {
		unlogged = "UNLOGGED "
	}
	_, err := tx.ExecContext(ctx, `CREATE `+unlogged+`TABLE api_rate_limits (
    application  TEXT PRIMARY KEY,  -- the application's client id
    window_start BIGINT NOT NULL,   -- Unix microseconds, a multiple of the window
    requests     BIGINT NOT NULL
)`)
	if err != nil {
		return fmt.Errorf("create api_rate_limits: %w", err)
	}
	return nil
}

func rateLimitsDown(ctx context.Context, tx *sql.Tx) error {
	_, err := tx.ExecContext(ctx, `DROP TABLE api_rate_limits`)
	return err
}
