package auth

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/bankrail/bankrail/internal/clock"
	"github.com/bankrail/bankrail/internal/errs"
)

// GenerationTTL is how long an instance trusts what it read of a user's
// token generation and status. A change of role, password or status (which
// bumps the generation in the database) reaches every instance within it,
// and an active user costs each instance at most one read per period instead
// of one per request.
const GenerationTTL = time.Second

// generationCache remembers users' current token generations.
type generationCache struct {
	mu      sync.Mutex
	entries map[string]generationEntry
}

type generationEntry struct {
	generation int64
	active     bool // the user exists and is not disabled
	until      time.Time
}

const generationCacheEntries = 10_000

// errRevoked is the answer to a token whose user changed since it was issued.
var errRevoked = errs.E(errs.Unauthorised,
	"The access token was revoked (the user's role, password or status changed); obtain a new one at POST /oauth.")

// ForgetUser drops what this instance cached of userID's token generation
// and status, so that its next request reads them afresh: the instance that
// changes a user's role, password or status calls it at once (through
// identity.Service.OnUserChanged), and the change holds here from the next
// request; other instances still see it within GenerationTTL.
func (s *Service) ForgetUser(userID string) {
	c := &s.generations
	c.mu.Lock()
	delete(c.entries, userID)
	c.mu.Unlock()
}

// checkGeneration refuses a principal whose user is gone, disabled, or has a
// newer token generation than the token carries.
func (s *Service) checkGeneration(ctx context.Context, p Principal) error {
	now := clock.Base(s.clock) // basetime: this instance's cache expires in real time
	c := &s.generations
	c.mu.Lock()
	e, ok := c.entries[p.UserID]
	c.mu.Unlock()
	if !ok || !now.Before(e.until) {
		user, err := s.store.GetUser(ctx, p.UserID)
		switch {
		case errs.Is(err, errs.NotFound):
			e = generationEntry{}
		case err != nil:
			return fmt.Errorf("read token generation: %w", err)
		default:
			e = generationEntry{generation: user.TokenGeneration, active: !user.Disabled()}
		}
		e.until = now.Add(GenerationTTL)
		c.mu.Lock()
		if c.entries == nil || len(c.entries) >= generationCacheEntries {
			c.entries = make(map[string]generationEntry, 64)
		}
		c.entries[p.UserID] = e
		c.mu.Unlock()
	}
	if !e.active || e.generation != p.Generation {
		return errRevoked
	}
	return nil
}
