package auth

import (
	"context"
	"fmt"
	"math"
	"strings"

	"github.com/bankrail/bankrail/internal/clock"
	"github.com/bankrail/bankrail/internal/errs"
)

// A throttle key counts failed sign-ins of one scope; reaching its limit
// within the failure window locks the scope for the window. The scopes:
//
//   - an application and a username: what one application may try against
//     one user. A foreign application can only lock itself out.
//   - a username, counted only through applications that may sign that user
//     in (the user's customer or a customer above it): bounds brute force of
//     one user through many applications, and only parties the user's
//     customer trusts can reach it.
//   - a client address, only when it is trustworthy: bounds one source
//     whatever it tries.
//
// The console has keys of its own (console.go).
type throttleKey struct {
	name  string
	limit int
}

func (s *Service) perAppUser(clientID, username string) throttleKey {
	return throttleKey{"app:" + clientID + "|user:" + strings.ToLower(username), s.cfg.MaxFailures}
}

func (s *Service) perUser(username string) throttleKey {
	return throttleKey{"user:" + strings.ToLower(username), s.cfg.MaxFailuresPerUser}
}

// addressKeys is the API's key of a client address, none when the address
// is not trustworthy (untrusted: many people may share it, and one of them
// would lock them all).
func (s *Service) addressKeys(addr string, untrusted bool) []throttleKey {
	if untrusted || addr == "" {
		return nil
	}
	return []throttleKey{{"addr:" + addr, s.cfg.MaxFailuresPerClient}}
}

// checkLock refuses a login attempt while any of keys is locked.
func (s *Service) checkLock(ctx context.Context, keys ...throttleKey) error {
	until, err := s.store.LoginLockedUntil(ctx, names(keys))
	if err != nil {
		return fmt.Errorf("read login throttle: %w", err)
	}
	now := clock.Base(s.clock) // basetime: the throttle is against attempts in real time, whatever a tenant's clock
	if until.After(now) {
		wait := until.Sub(now)
		return &errs.Error{Code: errs.TooManyRequests, RetryAfter: wait,
			Message: fmt.Sprintf("Too many failed sign-in attempts; try again in %d seconds.", int(math.Ceil(wait.Seconds())))}
	}
	return nil
}

// failed counts a failed attempt against keys, locks any key that reached its
// limit, and returns cause (the error the client sees).
func (s *Service) failed(ctx context.Context, cause error, keys ...throttleKey) error {
	now := clock.Base(s.clock) // basetime: as in checkLock
	for _, key := range keys {
		n, err := s.store.RecordLoginFailure(ctx, key.name, now, s.cfg.FailureWindow)
		if err != nil {
			return fmt.Errorf("record login failure: %w", err)
		}
		if n >= key.limit {
			s.log.Warn("sign-in locked after repeated failures", "key", key.name, "failures", n, "for", s.cfg.FailureWindow)
			if err := s.store.LockLogin(ctx, key.name, now.Add(s.cfg.FailureWindow)); err != nil {
				return fmt.Errorf("lock login: %w", err)
			}
		}
	}
	return cause
}

// succeeded forgets the failures of keys after a successful sign-in.
func (s *Service) succeeded(ctx context.Context, keys ...throttleKey) error {
	for _, key := range keys {
		if err := s.store.ClearLoginFailures(ctx, key.name); err != nil {
			return fmt.Errorf("clear login failures: %w", err)
		}
	}
	return nil
}

func names(keys []throttleKey) []string {
	out := make([]string, len(keys))
	for i, k := range keys {
		out[i] = k.name
	}
	return out
}
