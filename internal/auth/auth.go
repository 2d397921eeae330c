// Package auth issues and checks bankrail's OAuth tokens: the password and
// refresh_token grants, EdDSA-signed JWT access tokens with rotatable keys,
// single-use refresh tokens grouped in families, and the throttle on failed
// logins. It knows nothing of HTTP or SQL.
package auth

import (
	"context"
	"time"

	"github.com/bankrail/bankrail/internal/identity"
)

// SigningKey is one Ed25519 key used to sign access tokens.
type SigningKey struct {
	KID        string
	Algorithm  string // "EdDSA"
	PrivateKey string // base64 of the 32-byte Ed25519 seed
	CreatedAt  time.Time
	RetiredAt  time.Time // zero while published
}

// RefreshToken is the stored form of a refresh token: only its hash.
type RefreshToken struct {
	ID            string
	FamilyID      string
	TokenHash     string
	UserID        string
	ApplicationID string
	CreatedAt     time.Time
	ExpiresAt     time.Time
	UsedAt        time.Time // zero until used
	RevokedAt     time.Time // zero unless revoked
}

// Store persists keys, refresh tokens and login counters.
type Store interface {
	identity.Store

	ListSigningKeys(ctx context.Context) ([]SigningKey, error) // unretired keys, oldest first
	CreateSigningKey(ctx context.Context, k SigningKey) error
	RetireSigningKeys(ctx context.Context, createdBefore, at time.Time) (int, error)

	CreateRefreshToken(ctx context.Context, t RefreshToken) error
	GetRefreshToken(ctx context.Context, hash string) (RefreshToken, error)
	// SpendRefreshToken marks id used and stores next, atomically; it fails
	// with errs.Conflict when id was already used or revoked.
	SpendRefreshToken(ctx context.Context, id string, at time.Time, next RefreshToken) error
	RevokeRefreshFamily(ctx context.Context, familyID string, at time.Time) error

	// RecordLoginFailure counts a failure for key within window and returns
	// the count in the current window.
	RecordLoginFailure(ctx context.Context, key string, now time.Time, window time.Duration) (int, error)
	LockLogin(ctx context.Context, key string, until time.Time) error
	// LoginLockedUntil returns the latest lock among keys (zero if none).
	LoginLockedUntil(ctx context.Context, keys []string) (time.Time, error)
	ClearLoginFailures(ctx context.Context, key string) error

	// RememberConsoleDevice records idHash as a known console device of
	// userID until until.
	RememberConsoleDevice(ctx context.Context, idHash, userID string, at, until time.Time) error
	// ConsoleDeviceUser is the user whose known device idHash is at now
	// (RESOURCE_NOT_FOUND when none's).
	ConsoleDeviceUser(ctx context.Context, idHash string, now time.Time) (string, error)
}

// Principal is who a request acts for, taken from a verified access token
// (identity.Principal: the services check it at their entry).
type Principal = identity.Principal

// WithPrincipal returns ctx carrying p.
func WithPrincipal(ctx context.Context, p Principal) context.Context {
	return identity.WithPrincipal(ctx, p)
}

// PrincipalFrom returns the principal in ctx, if any.
func PrincipalFrom(ctx context.Context) (Principal, bool) { return identity.PrincipalFrom(ctx) }

// TokenPair is the answer of a successful grant.
type TokenPair struct {
	AccessToken  string
	RefreshToken string
	ExpiresIn    int // seconds
}
