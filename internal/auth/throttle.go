package auth

import (
	"context"
	"fmt"
	"math"

	"bankrail/internal/errs"
)

// checkLock refuses a login attempt while any of keys is locked.
func (s *Service) checkLock(ctx context.Context, keys ...string) error {
	until, err := s.store.LoginLockedUntil(ctx, keys)
	if err != nil {
		return fmt.Errorf("read login throttle: %w", err)
	}
	now := s.clock.Now()
	if until.After(now) {
		wait := until.Sub(now)
		return &errs.Error{Code: errs.TooManyRequests, RetryAfter: wait,
			Message: fmt.Sprintf("Too many failed sign-in attempts; try again in %d seconds.", int(math.Ceil(wait.Seconds())))}
	}
	return nil
}

// failed counts a failed attempt against keys, locks any key that reached its
// limit, and returns cause (the error the client sees).
func (s *Service) failed(ctx context.Context, cause error, keys ...string) error {
	now := s.clock.Now()
	for _, key := range keys {
		n, err := s.store.RecordLoginFailure(ctx, key, now, s.cfg.FailureWindow)
		if err != nil {
			return fmt.Errorf("record login failure: %w", err)
		}
		limit := s.cfg.MaxFailures
		if key[:5] == "addr:" {
			limit = s.cfg.MaxFailuresPerClient
		}
		if n >= limit {
			s.log.Warn("sign-in locked after repeated failures", "key", key, "failures", n, "for", s.cfg.FailureWindow)
			if err := s.store.LockLogin(ctx, key, now.Add(s.cfg.FailureWindow)); err != nil {
				return fmt.Errorf("lock login: %w", err)
			}
		}
	}
	return cause
}
