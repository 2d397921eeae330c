package auth

import (
	"context"
	"fmt"

	"github.com/google/uuid"

	"github.com/bankrail/bankrail/internal/errs"
	"github.com/bankrail/bankrail/internal/identity"
)

// Password runs the password grant. Every failure answers errInvalidLogin
// and counts towards the throttle (see throttle.go for its scopes).
func (s *Service) Password(ctx context.Context, g PasswordGrant) (TokenPair, error) {
	var v errs.Validation
	required(&v, "client_id", g.ClientID)
	required(&v, "client_secret", g.ClientSecret)
	required(&v, "username", g.Username)
	required(&v, "password", g.Password)
	if err := v.Err(); err != nil {
		return TokenPair{}, err
	}
	appUser, addr := s.perAppUser(g.ClientID, g.Username), s.addressKeys(g.RemoteAddr, g.AddrUntrusted)
	if err := s.checkLock(ctx, append([]throttleKey{appUser}, addr...)...); err != nil {
		return TokenPair{}, err
	}
	app, err := s.verifyClient(ctx, g.ClientID, g.ClientSecret)
	if err != nil {
		// Only the address counts: the client id is not proven, and counting
		// it would let anyone lock that application's users out.
		return TokenPair{}, s.failed(ctx, err, addr...)
	}
	user, eligible, err := s.eligibleUser(ctx, app, g.Username)
	if err != nil {
		return TokenPair{}, err
	}
	keys := append([]throttleKey{appUser}, addr...)
	hash := "" // unknown or foreign user: the stand-in hash, the same argon2 cost, never the user's hash
	if eligible {
		if err := s.checkLock(ctx, s.perUser(g.Username)); err != nil {
			return TokenPair{}, err
		}
		keys, hash = append(keys, s.perUser(g.Username)), user.PasswordHash
	}
	ok, err := s.hasher.Verify(ctx, hash, g.Password)
	if !eligible || err != nil || !ok {
		return TokenPair{}, s.failed(ctx, errInvalidLogin, keys...)
	}
	if err := s.succeeded(ctx, appUser, s.perUser(g.Username)); err != nil {
		return TokenPair{}, err
	}
	return s.issue(ctx, user, app, uuid.NewString(), "")
}

// eligibleUser finds the user named username and reports whether app may
// sign it in (the user is not disabled, and its customer is the
// application's or below it). A missing user is not an error: eligible is
// false.
func (s *Service) eligibleUser(ctx context.Context, app identity.Application, username string) (identity.User, bool, error) {
	user, err := s.store.GetUserByUsername(ctx, username)
	switch {
	case errs.Is(err, errs.NotFound):
		return identity.User{}, false, nil
	case err != nil:
		return identity.User{}, false, fmt.Errorf("load user: %w", err)
	}
	allowed, err := s.store.IsDescendant(ctx, app.CustomerID, user.CustomerID)
	if err != nil {
		return identity.User{}, false, fmt.Errorf("check customer tree: %w", err)
	}
	return user, allowed && !user.Disabled(), nil
}
