package auth

import (
	"sync"
	"time"
)

// Verified tokens are remembered for at most this long, so that a client
// that reuses its access token (as it should) is not re-verified (an Ed25519
// signature check) on every request. Retiring a signing key therefore takes
// up to this long to reach tokens already seen.
const (
	tokenCacheTTL     = time.Minute
	tokenCacheEntries = 10_000
)

// tokenCache maps an access token to the principal it was verified as.
type tokenCache struct {
	mu      sync.Mutex
	entries map[string]cachedToken
}

type cachedToken struct {
	principal Principal
	until     time.Time // the earlier of the token's expiry and the cache TTL
}

// get returns the principal of a token verified before and still valid at now.
func (c *tokenCache) get(token string, now time.Time) (Principal, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.entries[token]
	if !ok || !now.Before(e.until) {
		return Principal{}, false
	}
	return e.principal, true
}

// put remembers a verified token. A full cache starts afresh: simple, and
// the cost is one verification per live token.
func (c *tokenCache) put(token string, p Principal, now time.Time) {
	until := now.Add(tokenCacheTTL)
	if p.ExpiresAt.Before(until) {
		until = p.ExpiresAt
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.entries == nil || len(c.entries) >= tokenCacheEntries {
		c.entries = make(map[string]cachedToken, 64)
	}
	c.entries[token] = cachedToken{principal: p, until: until}
}
