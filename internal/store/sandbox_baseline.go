package store

import (
	"context"
	"database/sql"
	"time"
)

// Baseline returns the stored baseline file.
func (s *Store) Baseline(ctx context.Context) ([]byte, bool, error) {
	var data string
	err := s.read.QueryRowContext(ctx, `SELECT data FROM sandbox_baseline WHERE id = 1`).Scan(&data)
	if err == sql.ErrNoRows {
		return nil, false, nil
	}
	return []byte(data), err == nil, translate(err, "sandbox baseline")
}

// SaveBaseline stores the baseline unless one exists (two instances
// starting at once on a new database keep the first).
func (s *Store) SaveBaseline(ctx context.Context, schemaVersion int64, data []byte, at time.Time) error {
	_, err := s.write.ExecContext(ctx, `INSERT INTO sandbox_baseline (id, schema_version, taken_at, data) VALUES (1, $1, $2, $3)
		ON CONFLICT (id) DO NOTHING`, schemaVersion, micros(at), string(data))
	return translate(err, "sandbox baseline")
}
