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

// generationCache remembers users' current token generations. One read of
// a user's generation is on its way at a time: the requests that find it
// expired while it is (every request of a busy user, once a period) wait
// for it instead of each reading the same row.
type generationCache struct {
	mu      sync.Mutex
	entries map[string]generationEntry
	reading map[string]*generationRead // by user
	// reads counts the reads sent (tests).
	reads int64
}

type generationEntry struct {
	generation int64
	active     bool // the user exists and is not disabled
	until      time.Time
}

// generationRead is a read of one user's generation on its way.
type generationRead struct {
	done  chan struct{} // closed once entry and err are set
	entry generationEntry
	err   error
}

const generationCacheEntries = 10_000

// errRevoked is the answer to a token whose user changed since it was issued.
var errRevoked = errs.E(errs.Unauthorised,
	"The access token was revoked (the user's role, password or status changed); obtain a new one at POST /oauth.")

// ForgetUser drops what this instance cached of userID's token generation
// and status, so that its next request reads them afresh: the instance that
// changes a user's role, password or status calls it at once (through
// identity.Service.OnUserChanged), and the change holds here from the next
// request; other instances still see it within GenerationTTL. A read of
// the user's generation on its way (perhaps from before the change) is
// not kept.
func (s *Service) ForgetUser(userID string) {
	c := &s.generations
	c.mu.Lock()
	delete(c.entries, userID)
	delete(c.reading, userID)
	c.mu.Unlock()
}

// checkGeneration refuses a principal whose user is gone, disabled, or has a
// newer token generation than the token carries.
func (s *Service) checkGeneration(ctx context.Context, p Principal) error {
	now := clock.Base(s.clock) // basetime: this instance's cache expires in real time
	c := &s.generations
	c.mu.Lock()
	e, ok := c.entries[p.UserID]
	if ok && now.Before(e.until) {
		c.mu.Unlock()
	} else {
		r := c.reading[p.UserID]
		if r == nil {
			r = &generationRead{done: make(chan struct{})}
			if c.reading == nil {
				c.reading = map[string]*generationRead{}
			}
			c.reading[p.UserID] = r
			c.reads++
			c.mu.Unlock()
			s.readGeneration(ctx, p.UserID, now, r)
		} else {
			c.mu.Unlock()
			select {
			case <-r.done:
			case <-ctx.Done():
				return fmt.Errorf("read token generation: %w", ctx.Err())
			}
		}
		if r.err != nil {
			return fmt.Errorf("read token generation: %w", r.err)
		}
		e = r.entry
	}
	if !e.active || e.generation != p.Generation {
		return errRevoked
	}
	return nil
}

// readGeneration reads userID's generation and status into r, remembers
// them for GenerationTTL from now unless ForgetUser came meanwhile, and
// answers the requests waiting for r. The requests that wait for it are
// not this one's: its cancellation does not end the read.
func (s *Service) readGeneration(ctx context.Context, userID string, now time.Time, r *generationRead) {
	user, err := s.store.GetUser(context.WithoutCancel(ctx), userID)
	switch {
	case errs.Is(err, errs.NotFound):
	case err != nil:
		r.err = err
	default:
		r.entry = generationEntry{generation: user.TokenGeneration, active: !user.Disabled()}
	}
	r.entry.until = now.Add(GenerationTTL)
	c := &s.generations
	c.mu.Lock()
	if c.reading[userID] == r {
		delete(c.reading, userID)
		if r.err == nil {
			if c.entries == nil || len(c.entries) >= generationCacheEntries {
				c.entries = make(map[string]generationEntry, 64)
			}
			c.entries[userID] = r.entry
		}
	}
	c.mu.Unlock()
	close(r.done)
}
