package store

import (
	"context"
	"database/sql"
	"time"
)

// JobLease reads a running job's lease: its end (wall time) and the
// attempt (for tests of the heartbeat).
func (s *Store) JobLease(ctx context.Context, id string) (until time.Time, attempt int, err error) {
	var at sql.NullInt64
	err = s.read.QueryRowContext(ctx, `SELECT locked_until, attempt FROM jobs WHERE id = $1`, id).Scan(&at, &attempt)
	return fromNullMicros(at), attempt, err
}

// JobsOfKind lists the ids of the jobs of kind.
func (s *Store) JobsOfKind(ctx context.Context, kind string) ([]string, error) {
	rows, err := s.read.QueryContext(ctx, `SELECT id FROM jobs WHERE kind = $1 ORDER BY created_at, id`, kind)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var ids []string
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			return nil, err
		}
		ids = append(ids, id)
	}
	return ids, rows.Err()
}
