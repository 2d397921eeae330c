package auth

import (
	"testing"
	"time"
)

func TestTokenCache(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 6, 1, 9, 0, 0, 0, time.UTC)
	var c tokenCache
	if _, ok := c.get("t1", now); ok {
		t.Fatal("empty cache hit")
	}
	c.put("t1", Principal{UserID: "u1", ExpiresAt: now.Add(time.Hour)}, now)
	if p, ok := c.get("t1", now.Add(59*time.Second)); !ok || p.UserID != "u1" {
		t.Fatalf("hit within the TTL: %v %v", p, ok)
	}
	if _, ok := c.get("t1", now.Add(tokenCacheTTL)); ok {
		t.Fatal("entries live at most the TTL")
	}
	// A token expiring before the TTL is forgotten at its expiry.
	c.put("t2", Principal{UserID: "u2", ExpiresAt: now.Add(10 * time.Second)}, now)
	if _, ok := c.get("t2", now.Add(10*time.Second)); ok {
		t.Fatal("an expired token must not be served from the cache")
	}
	// A full cache starts afresh.
	for i := range tokenCacheEntries {
		c.put(string(rune(i+0x100)), Principal{ExpiresAt: now.Add(time.Hour)}, now)
	}
	if len(c.entries) > tokenCacheEntries {
		t.Fatalf("%d entries", len(c.entries))
	}
}
