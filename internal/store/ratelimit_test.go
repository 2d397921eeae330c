package store_test

import (
	"context"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/bankrail/bankrail/internal/dbtest"
)

// TestRateLimitCounter: the API rate limit's shared counter counts one
// window per application atomically (concurrent requests get distinct
// counts), starts again at 1 in a later window, and counts a request
// stamped with an earlier window (an instance whose clock is behind) into
// the later one; on both engines.
func TestRateLimitCounter(t *testing.T) {
	t.Parallel()
	dbtest.EachMigrated(t, func(t *testing.T, db dbtest.DB) {
		c := open(t, db).RateLimits()
		ctx := context.Background()
		w1, w2 := t0.Truncate(time.Minute), t0.Truncate(time.Minute).Add(time.Minute)
		const parallel = 8
		counts := make([]int64, parallel)
		var wg sync.WaitGroup
		for i := range parallel {
			wg.Go(func() {
				n, at, err := c.CountRequest(ctx, "shop-client", w1)
				if err != nil || !at.Equal(w1) {
					t.Errorf("count: %d %s %v", n, at, err)
				}
				counts[i] = n
			})
		}
		wg.Wait()
		slices.Sort(counts)
		if want := []int64{1, 2, 3, 4, 5, 6, 7, 8}; !slices.Equal(counts, want) {
			t.Fatalf("concurrent counts %v, want %v", counts, want)
		}
		if n, at, err := c.CountRequest(ctx, "other-client", w1); n != 1 || !at.Equal(w1) || err != nil {
			t.Fatalf("another application: %d %s %v", n, at, err)
		}
		if n, at, err := c.CountRequest(ctx, "shop-client", w2); n != 1 || !at.Equal(w2) || err != nil {
			t.Fatalf("next window: %d %s %v", n, at, err)
		}
		if n, at, err := c.CountRequest(ctx, "shop-client", w1); n != 2 || !at.Equal(w2) || err != nil {
			t.Fatalf("a clock behind: %d %s %v, want 2 in the window of %s", n, at, err, w2)
		}
	})
}
