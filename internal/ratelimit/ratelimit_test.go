package ratelimit_test

import (
	"context"
	"testing"
	"time"

	"github.com/bankrail/bankrail/internal/clock"
	"github.com/bankrail/bankrail/internal/errs"
	"github.com/bankrail/bankrail/internal/ratelimit"
)

var epoch = time.Date(2026, 6, 1, 9, 0, 0, 0, time.UTC)

// allowed fails the test unless application's next request is let through.
func allowed(t *testing.T, l *ratelimit.Limiter, application string) {
	t.Helper()
	if err := l.Allow(context.Background(), application); err != nil {
		t.Fatalf("%s refused: %v", application, err)
	}
}

// refused fails the test unless application's next request is refused with
// TOO_MANY_REQUESTS and a Retry-After of wait.
func refused(t *testing.T, l *ratelimit.Limiter, application string, wait time.Duration) {
	t.Helper()
	err := l.Allow(context.Background(), application)
	e, ok := err.(*errs.Error)
	if !ok || e.Code != errs.TooManyRequests || e.RetryAfter != wait || e.Message == "" {
		t.Fatalf("%s: got %v, want TOO_MANY_REQUESTS retrying after %s", application, err, wait)
	}
}

// TestLimiter: at most Limit requests per application and fixed window; the
// next window allows again; applications do not share a count.
func TestLimiter(t *testing.T) {
	t.Parallel()
	clk := clock.NewFake(epoch.Add(20 * time.Second))
	l := ratelimit.New(ratelimit.NewMemory(), clk, ratelimit.Config{Limit: 3, Window: time.Minute})
	for range 3 {
		allowed(t, l, "shop")
	}
	refused(t, l, "shop", 40*time.Second) // the window started at 09:00:00
	allowed(t, l, "other")
	clk.Advance(39 * time.Second)
	refused(t, l, "shop", time.Second)
	clk.Advance(time.Second) // 09:01:00: a new window
	for range 3 {
		allowed(t, l, "shop")
	}
	refused(t, l, "shop", time.Minute)
}

// TestLimiterOff: a zero limit, or no limiter, counts nothing and refuses
// nothing.
func TestLimiterOff(t *testing.T) {
	t.Parallel()
	clk := clock.NewFake(epoch)
	for _, l := range []*ratelimit.Limiter{nil, ratelimit.New(ratelimit.NewMemory(), clk, ratelimit.Config{Window: time.Minute})} {
		for range 100 {
			allowed(t, l, "shop")
		}
	}
}

// TestMemoryCountsIntoALaterWindow: a request stamped with an earlier window
// than the one open (a clock behind) counts into the open one.
func TestMemoryCountsIntoALaterWindow(t *testing.T) {
	t.Parallel()
	m := ratelimit.NewMemory()
	ctx := context.Background()
	later := epoch.Add(time.Minute)
	if n, at, err := m.CountRequest(ctx, "shop", later); n != 1 || !at.Equal(later) || err != nil {
		t.Fatalf("first: %d %s %v", n, at, err)
	}
	if n, at, err := m.CountRequest(ctx, "shop", epoch); n != 2 || !at.Equal(later) || err != nil {
		t.Fatalf("behind: %d %s %v", n, at, err)
	}
}
