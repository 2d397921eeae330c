package client

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/bankrail/bankrail/api"
)

// fakeGrant is POST /oauth for the token source's unit tests: it counts the
// grants, can be slowed down or made to fail, and issues tokens that live
// lifetime.
type fakeGrant struct {
	password, refresh atomic.Int64
	lifetime          time.Duration
	gate              chan struct{} // when set, each grant waits for a value
	failRefresh       atomic.Bool
	n                 atomic.Int64
}

func (g *fakeGrant) grant(ctx context.Context, req api.TokenRequest, _ bool) (*api.TokenResponse, error) {
	if g.gate != nil {
		select {
		case <-g.gate:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	switch req.GrantType {
	case "password":
		g.password.Add(1)
	case "refresh_token":
		g.refresh.Add(1)
		if g.failRefresh.Load() {
			return nil, errors.New("refresh token spent")
		}
	}
	n := g.n.Add(1)
	return &api.TokenResponse{AccessToken: "access-" + string(rune('0'+n)), RefreshToken: "refresh", ExpiresIn: api.TokenResponseExpiresIn(g.lifetime / time.Second)}, nil
}

// fakeClock is a clock the test moves.
type fakeClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *fakeClock) now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *fakeClock) advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

func newTestTokens(g *fakeGrant, clk *fakeClock) *tokens {
	return &tokens{creds: Credentials{ClientID: "c", ClientSecret: "s", Username: "u", Password: "p"},
		grant: g.grant, now: clk.now, margin: refreshMargin}
}

// waitIdle waits until no sign-in is running.
func waitIdle(t *testing.T, s *tokens) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		s.mu.Lock()
		idle := s.flight == nil
		s.mu.Unlock()
		if idle {
			return
		}
		if time.Now().After(deadline) {
			t.Fatal("the sign-in did not end")
		}
		time.Sleep(time.Millisecond)
	}
}

// TestTokenIsRefreshedBeforeItExpires: a token is kept until a tenth of its
// life is left; then it is still handed out while one refresh (refresh
// token grant) runs in the background; a token past its expiry is never
// handed out; a failed refresh falls back to the password.
func TestTokenIsRefreshedBeforeItExpires(t *testing.T) {
	g := &fakeGrant{lifetime: 1000 * time.Second}
	clk := &fakeClock{t: time.Date(2026, 6, 1, 9, 0, 0, 0, time.UTC)}
	s := newTestTokens(g, clk)
	ctx := context.Background()
	first, err := s.Token(ctx)
	if err != nil || first != "access-1" || g.password.Load() != 1 {
		t.Fatalf("first: %q %v, %d password grants", first, err, g.password.Load())
	}
	clk.advance(899 * time.Second)
	if tok, _ := s.Token(ctx); tok != first || g.refresh.Load() != 0 {
		t.Fatalf("before the margin: %q, %d refreshes", tok, g.refresh.Load())
	}
	clk.advance(2 * time.Second) // 99 s left, less than a tenth
	if tok, _ := s.Token(ctx); tok != first {
		t.Fatalf("in the margin the current token is still handed out, got %q", tok)
	}
	waitIdle(t, s)
	if tok, _ := s.Token(ctx); tok != "access-2" || g.refresh.Load() != 1 || g.password.Load() != 1 {
		t.Fatalf("after the refresh: %q, %d refreshes, %d password grants", tok, g.refresh.Load(), g.password.Load())
	}
	// Expired, and the refresh token no longer works: the password.
	g.failRefresh.Store(true)
	clk.advance(2000 * time.Second)
	if tok, err := s.Token(ctx); err != nil || tok != "access-3" || g.password.Load() != 2 || g.refresh.Load() != 2 {
		t.Fatalf("after expiry: %q %v, %d refreshes, %d password grants", tok, err, g.refresh.Load(), g.password.Load())
	}
	// A token the server refused is dropped with its refresh token.
	s.Invalidate("access-3")
	if tok, _ := s.Token(ctx); tok != "access-4" || g.password.Load() != 3 || g.refresh.Load() != 2 {
		t.Fatalf("after a refusal: %q, %d refreshes, %d password grants", tok, g.refresh.Load(), g.password.Load())
	}
	s.Invalidate("an older token") // not the cached one: nothing changes
	if tok, _ := s.Token(ctx); tok != "access-4" {
		t.Fatalf("an older token's refusal dropped the current one: %q", tok)
	}
}

// TestOneSignInForConcurrentCallers: callers that need a token while none
// is valid share one sign-in; a caller whose context ends stops waiting
// without cancelling it for the others.
func TestOneSignInForConcurrentCallers(t *testing.T) {
	g := &fakeGrant{lifetime: time.Hour, gate: make(chan struct{})}
	s := newTestTokens(g, &fakeClock{t: time.Now()})
	impatient, cancel := context.WithCancel(context.Background())
	gave := make(chan error, 1)
	go func() { _, err := s.Token(impatient); gave <- err }()
	var wg sync.WaitGroup
	got := make(chan string, 100)
	for range 100 {
		wg.Go(func() {
			tok, err := s.Token(context.Background())
			if err != nil {
				t.Error(err)
			}
			got <- tok
		})
	}
	time.Sleep(20 * time.Millisecond)
	cancel()
	if err := <-gave; !errors.Is(err, context.Canceled) {
		t.Fatalf("the impatient caller got %v", err)
	}
	g.gate <- struct{}{}
	wg.Wait()
	close(got)
	for tok := range got {
		if tok != "access-1" {
			t.Fatalf("a caller got %q", tok)
		}
	}
	if n := g.password.Load(); n != 1 {
		t.Fatalf("%d sign-ins for 101 callers", n)
	}
}

// TestBackoffIsCappedAndJittered: each wait is random within the doubling
// ceiling, which stops at MaxDelay.
func TestBackoffIsCappedAndJittered(t *testing.T) {
	p := RetryPolicy{BaseDelay: 100 * time.Millisecond, MaxDelay: time.Second}.withDefaults()
	for n, ceiling := range map[int]time.Duration{1: 100 * time.Millisecond, 2: 200 * time.Millisecond, 3: 400 * time.Millisecond,
		4: 800 * time.Millisecond, 5: time.Second, 30: time.Second} {
		seen := map[time.Duration]bool{}
		for range 200 {
			d := p.backoff(n)
			if d < 0 || d > ceiling {
				t.Fatalf("retry %d waited %v, ceiling %v", n, d, ceiling)
			}
			seen[d] = true
		}
		if len(seen) < 50 {
			t.Errorf("retry %d: only %d distinct waits in 200: no jitter", n, len(seen))
		}
	}
}
