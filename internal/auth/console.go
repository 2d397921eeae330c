package auth

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/bankrail/bankrail/internal/clock"
	"github.com/bankrail/bankrail/internal/errs"
	"github.com/bankrail/bankrail/internal/identity"
)

// ConsoleSignIn is a person's sign-in at the web console (internal/dashboard):
// a username and a password, no application.
type ConsoleSignIn struct {
	Username, Password string
	RemoteAddr         string
	// AddrUntrusted says that RemoteAddr may be shared by many people (a
	// proxy the instance was not told to trust sent the request): it is
	// then counted against nobody.
	AddrUntrusted bool
	// Device is the hash of the browser's known-device cookie, if any.
	Device string
}

// KnownDeviceLifetime is how long a browser stays a user's known device
// after its last successful sign-in (on the service clock).
const KnownDeviceLifetime = 90 * 24 * time.Hour

// The console's throttle keys never collide with the API's (which start
// with "app:", "user:" or "addr:"): the console is a door anyone can knock
// at, with no application secret, so what strangers do there must lock
// neither the API's sign-ins nor the user's own known devices.
//
//   - consoleSource: one user from one trustworthy address (as the API's
//     application and user): a stranger elsewhere locks only itself.
//   - consoleUser: one user from every unknown device together, the bound
//     on guessing from many addresses; strangers can reach it, so a known
//     device does not count against it nor wait for it.
//   - consoleDevice: one user from one of its known devices; only who holds
//     the device's cookie (who signed in there) reaches it.
//   - consoleAddr: one trustworthy address whatever it tries at the console
//     (the API's address key is separate).
func (s *Service) consoleSource(username, addr string) throttleKey {
	return throttleKey{"console|user:" + strings.ToLower(username) + "|addr:" + addr, s.cfg.MaxFailures}
}

func (s *Service) consoleUser(username string) throttleKey {
	return throttleKey{"console|user:" + strings.ToLower(username), s.cfg.MaxFailuresPerUser}
}

func (s *Service) consoleDevice(username, device string) throttleKey {
	return throttleKey{"console|user:" + strings.ToLower(username) + "|device:" + device, s.cfg.MaxFailures}
}

func (s *Service) consoleAddr(addr string) throttleKey {
	return throttleKey{"console|addr:" + addr, s.cfg.MaxFailuresPerClient}
}

// consoleKeys are the throttle keys of a console sign-in: the device's
// alone from the user's known device, else the source's, the user's
// unknown devices' and the address's (the two by address only when the
// address is trustworthy).
func (s *Service) consoleKeys(ctx context.Context, g ConsoleSignIn, user identity.User, found bool) ([]throttleKey, error) {
	if g.Device != "" && found {
		owner, err := s.store.ConsoleDeviceUser(ctx, g.Device, clock.Base(s.clock)) // basetime: a device's life is real time
		switch {
		case err == nil && owner == user.ID:
			return []throttleKey{s.consoleDevice(g.Username, g.Device)}, nil
		case err != nil && !errs.Is(err, errs.NotFound):
			return nil, fmt.Errorf("read console device: %w", err)
		}
	}
	keys := []throttleKey{s.consoleUser(g.Username)}
	if !g.AddrUntrusted && g.RemoteAddr != "" {
		keys = append(keys, s.consoleSource(g.Username, g.RemoteAddr), s.consoleAddr(g.RemoteAddr))
	}
	return keys, nil
}

// SignIn checks a user's username and password for the web console under
// the console's own throttle (consoleKeys): failures there never count
// against the API's keys, and a user's known device (Device) is throttled
// on its own, so that nobody without it can lock the user out of it. Every
// failure answers the same UNAUTHORISED, and an unknown or disabled user
// costs the same argon2 work as a known one. It returns the user; the
// console keeps its session (see Session) and remembers the device
// (RememberDevice).
func (s *Service) SignIn(ctx context.Context, g ConsoleSignIn) (identity.User, error) {
	var v errs.Validation
	required(&v, "username", g.Username)
	required(&v, "password", g.Password)
	if err := v.Err(); err != nil {
		return identity.User{}, err
	}
	user, err := s.store.GetUserByUsername(ctx, g.Username)
	found := err == nil
	if err != nil && !errs.Is(err, errs.NotFound) {
		return identity.User{}, fmt.Errorf("load user: %w", err)
	}
	keys, err := s.consoleKeys(ctx, g, user, found)
	if err != nil {
		return identity.User{}, err
	}
	if err := s.checkLock(ctx, keys...); err != nil {
		return identity.User{}, err
	}
	hash := "" // the stand-in hash: the same cost, never a match
	if found && !user.Disabled() {
		hash = user.PasswordHash
	}
	ok, err := s.hasher.Verify(ctx, hash, g.Password)
	if hash == "" || err != nil || !ok {
		return identity.User{}, s.failed(ctx, errs.E(errs.Unauthorised, "Wrong username or password."), keys...)
	}
	// The address's count stays: it bounds a source whatever it tries.
	if err := s.succeeded(ctx, slices.DeleteFunc(keys, func(k throttleKey) bool { return strings.HasPrefix(k.name, "console|addr:") })...); err != nil {
		return identity.User{}, err
	}
	return user, nil
}

// RememberDevice makes the browser whose known-device cookie hashes to
// device a known device of userID for KnownDeviceLifetime from now.
func (s *Service) RememberDevice(ctx context.Context, userID, device string) error {
	now := clock.Base(s.clock) // basetime: as in consoleKeys
	if err := s.store.RememberConsoleDevice(ctx, device, userID, now, now.Add(KnownDeviceLifetime)); err != nil {
		return fmt.Errorf("remember console device: %w", err)
	}
	return nil
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
	// ForgetConsoleDevicesBefore deletes the known devices that expired
	// before t, and returns how many.
	ForgetConsoleDevicesBefore(ctx context.Context, t time.Time) (int, error)
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
