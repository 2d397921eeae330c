package store

import (
	"context"
	"time"
)

// RememberConsoleDevice records the browser whose cookie id hashes to
// idHash as a known device of userID until until (a second sign-in from it
// extends it).
func (s *Store) RememberConsoleDevice(ctx context.Context, idHash, userID string, at, until time.Time) error {
	_, err := s.write.ExecContext(ctx, `INSERT INTO console_devices (id_hash, user_id, created_at, expires_at) VALUES ($1, $2, $3, $4)
		ON CONFLICT (id_hash) DO UPDATE SET expires_at = excluded.expires_at`, idHash, userID, micros(at), micros(until))
	return translate(err, "console device")
}

// ConsoleDeviceUser is the user whose known device idHash is at now;
// RESOURCE_NOT_FOUND when it is none's (unknown or expired).
func (s *Store) ConsoleDeviceUser(ctx context.Context, idHash string, now time.Time) (string, error) {
	var userID string
	err := s.read.QueryRowContext(ctx, `SELECT user_id FROM console_devices WHERE id_hash = $1 AND expires_at > $2`,
		idHash, micros(now)).Scan(&userID)
	return userID, translate(err, "console device")
}

// ForgetConsoleDevicesBefore deletes the known devices that expired before
// t and returns how many.
func (s *Store) ForgetConsoleDevicesBefore(ctx context.Context, t time.Time) (int, error) {
	res, err := s.write.ExecContext(ctx, `DELETE FROM console_devices WHERE expires_at < $1`, micros(t))
	if err != nil {
		return 0, translate(err, "expired console devices")
	}
	n, err := res.RowsAffected()
	return int(n), err
}
