package store

import (
	"context"
	"database/sql"
	"errors"
)

// instanceModeSetting names the recorded mode in instance_settings.
const instanceModeSetting = "mode"

// InstanceMode is the mode (sandbox or production) recorded in the database,
// or "" when none is yet (a new database, or one migrated from before the
// mode was recorded).
func (s *Store) InstanceMode(ctx context.Context) (string, error) {
	var mode string
	err := s.write.QueryRowContext(ctx, `SELECT value FROM instance_settings WHERE name = $1`, instanceModeSetting).Scan(&mode)
	if errors.Is(err, sql.ErrNoRows) {
		return "", nil
	}
	return mode, translate(err, "read the instance's mode")
}

// RecordInstanceMode records mode unless a mode is recorded already, and
// returns the recorded one: mode, or the one that was there (of two
// instances starting at once on a new database, one wins and the other sees
// its mode).
func (s *Store) RecordInstanceMode(ctx context.Context, mode string) (string, error) {
	var recorded string
	err := s.inTx(ctx, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, `INSERT INTO instance_settings (name, value) VALUES ($1, $2)
			ON CONFLICT (name) DO NOTHING`, instanceModeSetting, mode); err != nil {
			return translate(err, "record the instance's mode")
		}
		return translate(tx.QueryRowContext(ctx, `SELECT value FROM instance_settings WHERE name = $1`,
			instanceModeSetting).Scan(&recorded), "read the instance's mode")
	})
	return recorded, err
}

// ConvertInstanceMode records mode in place of the recorded one (a
// deliberate conversion, bankrail migrate --convert-to) and returns the one
// it replaced ("" when none was recorded).
func (s *Store) ConvertInstanceMode(ctx context.Context, mode string) (previous string, err error) {
	err = s.inTx(ctx, func(tx *sql.Tx) error {
		err := tx.QueryRowContext(ctx, `SELECT value FROM instance_settings WHERE name = $1`+s.forUpdate(),
			instanceModeSetting).Scan(&previous)
		if err != nil && !errors.Is(err, sql.ErrNoRows) {
			return translate(err, "read the instance's mode")
		}
		_, err = tx.ExecContext(ctx, `INSERT INTO instance_settings (name, value) VALUES ($1, $2)
			ON CONFLICT (name) DO UPDATE SET value = excluded.value`, instanceModeSetting, mode)
		return translate(err, "convert the instance's mode")
	})
	return previous, err
}
