package store

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"time"

	"github.com/bankrail/bankrail/internal/audit"
	"github.com/bankrail/bankrail/internal/auth"
	"github.com/bankrail/bankrail/internal/errs"
)

var _ auth.Store = (*Store)(nil)

// ListSigningKeys returns the unretired signing keys, oldest first.
func (s *Store) ListSigningKeys(ctx context.Context) ([]auth.SigningKey, error) {
	rows, err := s.read.QueryContext(ctx, `
		SELECT kid, algorithm, private_key, created_at FROM signing_keys
		WHERE retired_at IS NULL ORDER BY created_at, kid`)
	if err != nil {
		return nil, translate(err, "signing keys")
	}
	defer rows.Close()
	var keys []auth.SigningKey
	for rows.Next() {
		var k auth.SigningKey
		var created int64
		if err := rows.Scan(&k.KID, &k.Algorithm, &k.PrivateKey, &created); err != nil {
			return nil, translate(err, "signing keys")
		}
		k.CreatedAt = fromMicros(created)
		keys = append(keys, k)
	}
	return keys, translate(rows.Err(), "signing keys")
}

// CreateSigningKey stores a new signing key.
func (s *Store) CreateSigningKey(ctx context.Context, k auth.SigningKey) error {
	_, err := s.write.ExecContext(ctx, `
		INSERT INTO signing_keys (kid, algorithm, private_key, created_at) VALUES ($1, $2, $3, $4)`,
		k.KID, k.Algorithm, k.PrivateKey, micros(k.CreatedAt))
	return translate(err, "signing key "+k.KID)
}

// RetireSigningKeys retires every key created before createdBefore.
func (s *Store) RetireSigningKeys(ctx context.Context, createdBefore, at time.Time) (int, error) {
	res, err := s.write.ExecContext(ctx, `
		UPDATE signing_keys SET retired_at = $2 WHERE retired_at IS NULL AND created_at < $1`,
		micros(createdBefore), micros(at))
	if err != nil {
		return 0, translate(err, "retire signing keys")
	}
	n, err := res.RowsAffected()
	return int(n), err
}

// CreateRefreshToken stores the first refresh token of a family (a
// sign-in: its audit entry, pending in ctx, is written with it).
func (s *Store) CreateRefreshToken(ctx context.Context, t auth.RefreshToken) error {
	if audit.From(ctx) == nil {
		return insertRefreshToken(ctx, s.write, t)
	}
	audit.Actor(ctx, audit.ActorUser, t.UserID)
	return s.InTx(ctx, func(tx *Tx) error { return insertRefreshToken(ctx, tx.tx, t) })
}

func insertRefreshToken(ctx context.Context, q querier, t auth.RefreshToken) error {
	_, err := q.ExecContext(ctx, `
		INSERT INTO refresh_tokens (id, family_id, token_hash, user_id, application_id, created_at, expires_at)
		VALUES ($1, $2, $3, $4, $5, $6, $7)`,
		t.ID, t.FamilyID, t.TokenHash, t.UserID, t.ApplicationID, micros(t.CreatedAt), micros(t.ExpiresAt))
	return translate(err, "refresh token")
}

// GetRefreshToken finds a refresh token by its hash.
func (s *Store) GetRefreshToken(ctx context.Context, hash string) (auth.RefreshToken, error) {
	var t auth.RefreshToken
	var created, expires int64
	var used, revoked sql.NullInt64
	err := s.read.QueryRowContext(ctx, `
		SELECT id, family_id, token_hash, user_id, application_id, created_at, expires_at, used_at, revoked_at
		FROM refresh_tokens WHERE token_hash = $1`, hash).
		Scan(&t.ID, &t.FamilyID, &t.TokenHash, &t.UserID, &t.ApplicationID, &created, &expires, &used, &revoked)
	if err != nil {
		return auth.RefreshToken{}, translate(err, "refresh token")
	}
	t.CreatedAt, t.ExpiresAt = fromMicros(created), fromMicros(expires)
	t.UsedAt, t.RevokedAt = fromNullMicros(used), fromNullMicros(revoked)
	return t, nil
}

// SpendRefreshToken marks id used and stores next in one transaction. The
// conditional UPDATE makes a token usable once even under concurrent use.
func (s *Store) SpendRefreshToken(ctx context.Context, id string, at time.Time, next auth.RefreshToken) error {
	audit.Actor(ctx, audit.ActorUser, next.UserID)
	return s.InTx(ctx, func(t *Tx) error {
		tx := t.tx
		res, err := tx.ExecContext(ctx, `
			UPDATE refresh_tokens SET used_at = $2 WHERE id = $1 AND used_at IS NULL AND revoked_at IS NULL`,
			id, micros(at))
		if err != nil {
			return translate(err, "spend refresh token")
		}
		if n, err := res.RowsAffected(); err != nil || n != 1 {
			return errs.E(errs.Conflict, "The refresh token was already used.")
		}
		return insertRefreshToken(ctx, tx, next)
	})
}

// RevokeRefreshFamily revokes every unrevoked token of a family.
func (s *Store) RevokeRefreshFamily(ctx context.Context, familyID string, at time.Time) error {
	_, err := s.write.ExecContext(ctx,
		`UPDATE refresh_tokens SET revoked_at = $2 WHERE family_id = $1 AND revoked_at IS NULL`, familyID, micros(at))
	return translate(err, "revoke refresh family")
}

// RecordLoginFailure counts one failure for key in one atomic upsert: within
// the window the count grows, after it a new window starts at 1.
func (s *Store) RecordLoginFailure(ctx context.Context, key string, now time.Time, window time.Duration) (int, error) {
	var n int
	err := s.write.QueryRowContext(ctx, `
		INSERT INTO login_throttle (scope_key, failures, window_start) VALUES ($1, 1, $2)
		ON CONFLICT (scope_key) DO UPDATE SET
			failures     = CASE WHEN login_throttle.window_start > $3 THEN login_throttle.failures + 1 ELSE 1 END,
			window_start = CASE WHEN login_throttle.window_start > $3 THEN login_throttle.window_start ELSE $2 END
		RETURNING failures`, key, micros(now), micros(now.Add(-window))).Scan(&n)
	return n, translate(err, "record login failure")
}

// LockLogin locks key until the given time.
func (s *Store) LockLogin(ctx context.Context, key string, until time.Time) error {
	_, err := s.write.ExecContext(ctx, `UPDATE login_throttle SET locked_until = $2 WHERE scope_key = $1`, key, micros(until))
	return translate(err, "lock login")
}

// LoginLockedUntil returns the latest lock among keys, or the zero time.
func (s *Store) LoginLockedUntil(ctx context.Context, keys []string) (time.Time, error) {
	if len(keys) == 0 {
		return time.Time{}, nil
	}
	ph := make([]string, len(keys))
	args := make([]any, len(keys))
	for i, k := range keys {
		ph[i] = fmt.Sprintf("$%d", i+1)
		args[i] = k
	}
	var until sql.NullInt64
	err := s.read.QueryRowContext(ctx,
		`SELECT MAX(locked_until) FROM login_throttle WHERE scope_key IN (`+strings.Join(ph, ", ")+`)`, args...).Scan(&until)
	return fromNullMicros(until), translate(err, "read login throttle")
}

// ClearLoginFailures forgets the failures of key.
func (s *Store) ClearLoginFailures(ctx context.Context, key string) error {
	_, err := s.write.ExecContext(ctx, `DELETE FROM login_throttle WHERE scope_key = $1`, key)
	return translate(err, "clear login failures")
}
