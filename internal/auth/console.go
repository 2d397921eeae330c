package auth

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/bankrail/bankrail/internal/errs"
	"github.com/bankrail/bankrail/internal/identity"
)

// ConsoleSignIn is a person's sign-in at the web console (internal/dashboard):
// a username and a password, no application.
type ConsoleSignIn struct {
	Username, Password string
	RemoteAddr         string
}

// perConsoleUser is the console's own counterpart of perAppUser: what the
// console may try against one username (its key cannot collide with an
// application's, whose keys start with "app:").
func (s *Service) perConsoleUser(username string) throttleKey {
	return throttleKey{"console|user:" + strings.ToLower(username), s.cfg.MaxFailures}
}

// SignIn checks a user's username and password for the web console, under
// the throttle of the password grant: the console's key for the username
// (as an application's), the username across every way in (shared with the
// password grant, so that the console is no way around its limit) and the
// client address. Every failure answers the same UNAUTHORISED, and an
// unknown or disabled user costs the same argon2 work as a known one. It
// returns the user; the console keeps its session (see Session).
func (s *Service) SignIn(ctx context.Context, g ConsoleSignIn) (identity.User, error) {
	var v errs.Validation
	required(&v, "username", g.Username)
	required(&v, "password", g.Password)
	if err := v.Err(); err != nil {
		return identity.User{}, err
	}
	console, addr := s.perConsoleUser(g.Username), s.perAddress(g.RemoteAddr)
	if err := s.checkLock(ctx, console, addr); err != nil {
		return identity.User{}, err
	}
	user, err := s.store.GetUserByUsername(ctx, g.Username)
	eligible := err == nil && !user.Disabled()
	if err != nil && !errs.Is(err, errs.NotFound) {
		return identity.User{}, fmt.Errorf("load user: %w", err)
	}
	keys := []throttleKey{console, addr}
	hash := "" // the stand-in hash: the same cost, never a match
	if eligible {
		if err := s.checkLock(ctx, s.perUser(g.Username)); err != nil {
			return identity.User{}, err
		}
		keys, hash = append(keys, s.perUser(g.Username)), user.PasswordHash
	}
	ok, err := s.hasher.Verify(ctx, hash, g.Password)
	if !eligible || err != nil || !ok {
		return identity.User{}, s.failed(ctx, errs.E(errs.Unauthorised, "Wrong username or password."), keys...)
	}
	if err := s.succeeded(ctx, console, s.perUser(g.Username)); err != nil {
		return identity.User{}, err
	}
	return user, nil
}

// Session is a signed-in person at the web console, kept on the server
// (the browser holds only a random id whose hash is IDHash). It carries the
// user's token generation at sign-in: a change of the user's role, password
// or status ends it, as it revokes access tokens.
type Session struct {
	IDHash     string // hex SHA-256 of the cookie's random id
	UserID     string
	Username   string
	CustomerID string
	Role       identity.Role
	Generation int64
	CSRFToken  string    // the synchronizer token of its forms
	CreatedAt  time.Time // on the service clock
	SeenAt     time.Time // last request (updated at most once a minute)
	ExpiresAt  time.Time // the latest it may last, whatever its activity
}

// SessionStore keeps console sessions (the store implements it). Session
// returns RESOURCE_NOT_FOUND for an unknown hash.
type SessionStore interface {
	// CreateSession stores s; the pending audit entry of ctx's request (the
	// sign-in) is written in the same transaction.
	CreateSession(ctx context.Context, s Session) error
	Session(ctx context.Context, idHash string) (Session, error)
	// TouchSession records activity at seenAt.
	TouchSession(ctx context.Context, idHash string, seenAt time.Time) error
	// DeleteSession ends a session; the pending audit entry of ctx's
	// request (the sign-out), if any, is written with it.
	DeleteSession(ctx context.Context, idHash string) error
	// DeleteSessionsBefore deletes the sessions whose absolute end is before
	// t or that were last seen before idleSince, and returns how many.
	DeleteSessionsBefore(ctx context.Context, t, idleSince time.Time) (int, error)
}

// Principal is the principal of a console session: the same one a token of
// its user gives, without an application.
func (s Session) Principal() Principal {
	return Principal{UserID: s.UserID, Username: s.Username, CustomerID: s.CustomerID, Role: s.Role,
		Generation: s.Generation, ExpiresAt: s.ExpiresAt}
}

// CheckPrincipal refuses a principal whose user is gone, disabled, or was
// changed (role, password, status) since it was issued: the check every
// request with an access token goes through, for a console session.
func (s *Service) CheckPrincipal(ctx context.Context, p Principal) error {
	return s.checkGeneration(ctx, p)
}
