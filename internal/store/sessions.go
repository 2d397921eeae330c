package store

import (
	"context"
	"database/sql"
	"time"

	"github.com/bankrail/bankrail/internal/auth"
	"github.com/bankrail/bankrail/internal/identity"
)

var _ auth.SessionStore = (*Store)(nil)

// CreateSession stores a console session; the pending audit entry of the
// request (the sign-in) is written in the same transaction.
func (s *Store) CreateSession(ctx context.Context, se auth.Session) error {
	return s.auditedTx(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `
			INSERT INTO dashboard_sessions (id_hash, user_id, token_generation, csrf_token, created_at, seen_at, expires_at)
			VALUES ($1, $2, $3, $4, $5, $6, $7)`,
			se.IDHash, se.UserID, se.Generation, se.CSRFToken, micros(se.CreatedAt), micros(se.SeenAt), micros(se.ExpiresAt))
		return translate(err, "console session")
	})
}

// Session reads a console session with its user's name, customer and role
// as they are now.
func (s *Store) Session(ctx context.Context, idHash string) (auth.Session, error) {
	var se auth.Session
	var role string
	var created, seen, expires int64
	err := s.read.QueryRowContext(ctx, `
		SELECT ds.id_hash, ds.user_id, u.username, u.customer_id, u.role, ds.token_generation, ds.csrf_token,
			ds.created_at, ds.seen_at, ds.expires_at
		FROM dashboard_sessions ds JOIN users u ON u.id = ds.user_id
		WHERE ds.id_hash = $1`, idHash).Scan(&se.IDHash, &se.UserID, &se.Username, &se.CustomerID, &role,
		&se.Generation, &se.CSRFToken, &created, &seen, &expires)
	if err != nil {
		return auth.Session{}, translate(err, "console session")
	}
	se.Role = identity.Role(role)
	se.CreatedAt, se.SeenAt, se.ExpiresAt = fromMicros(created), fromMicros(seen), fromMicros(expires)
	return se, nil
}

// TouchSession records activity; it never moves seen_at back.
func (s *Store) TouchSession(ctx context.Context, idHash string, seenAt time.Time) error {
	_, err := s.write.ExecContext(ctx, `UPDATE dashboard_sessions SET seen_at = $2 WHERE id_hash = $1 AND seen_at < $2`,
		idHash, micros(seenAt))
	return translate(err, "console session")
}

// DeleteSession ends a session; the pending audit entry of the request
// (the sign-out), if any, is written with it.
func (s *Store) DeleteSession(ctx context.Context, idHash string) error {
	return s.auditedTx(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `DELETE FROM dashboard_sessions WHERE id_hash = $1`, idHash)
		return translate(err, "console session")
	})
}

// DeleteSessionsBefore deletes the sessions past their absolute end (before
// t) or idle since before idleSince.
func (s *Store) DeleteSessionsBefore(ctx context.Context, t, idleSince time.Time) (int, error) {
	res, err := s.write.ExecContext(ctx, `DELETE FROM dashboard_sessions WHERE expires_at < $1 OR seen_at < $2`,
		micros(t), micros(idleSince))
	if err != nil {
		return 0, translate(err, "expired console sessions")
	}
	n, err := res.RowsAffected()
	return int(n), err
}
