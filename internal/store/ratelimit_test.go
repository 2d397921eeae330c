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

// TestRateLimitCountsCoalesce: the requests of an application that come
// while its upsert is on its way (held here by a transaction holding its
// row) are counted by one upsert after it, each with the count it would
// have had alone (together 1..n), and the row holds them all.
func TestRateLimitCountsCoalesce(t *testing.T) {
	t.Parallel()
	dbtest.EachMigrated(t, func(t *testing.T, db dbtest.DB) {
		s := open(t, db)
		c := s.RateLimits()
		ctx := context.Background()
		w := t0.Truncate(time.Minute)
		if _, _, err := c.CountRequest(ctx, "busy-client", w); err != nil {
			t.Fatal(err)
		}
		write, _ := s.Pools()
		hold, err := write.BeginTx(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := hold.ExecContext(ctx, `UPDATE api_rate_limits SET requests = requests WHERE application = 'busy-client'`); err != nil {
			t.Fatal(err)
		}
		sentBefore, _ := s.RateLimitStatements("busy-client")
		const n = 12
		counts := make([]int64, n)
		var wg sync.WaitGroup
		for i := range n {
			wg.Go(func() {
				got, at, err := c.CountRequest(ctx, "busy-client", w)
				if err != nil || !at.Equal(w) {
					t.Errorf("count: %d %s %v", got, at, err)
				}
				counts[i] = got
			})
		}
		waitFor(t, func() bool {
			sent, waiting := s.RateLimitStatements("busy-client")
			return sent == sentBefore+1 && waiting == n-1
		}, "one upsert on its way and the other requests waiting for the next")
		if err := hold.Commit(); err != nil {
			t.Fatal(err)
		}
		wg.Wait()
		slices.Sort(counts)
		want := make([]int64, n)
		for i := range want {
			want[i] = int64(i + 2) // the first request before the hold counted 1
		}
		if !slices.Equal(counts, want) {
			t.Errorf("counts %v, want %v", counts, want)
		}
		if sent, _ := s.RateLimitStatements("busy-client"); sent != sentBefore+2 {
			t.Errorf("%d upserts for %d requests; want 2 (the first, then the others together)", sent-sentBefore, n)
		}
		if got, _, err := c.CountRequest(ctx, "busy-client", w); got != n+2 || err != nil {
			t.Errorf("the next request counted %d (%v); want %d", got, err, n+2)
		}
	})
}

// TestRateLimitCountsWrittenBehind: with a limit (RateLimitsFor), an
// application's first request of a window waits for its exact count; while
// the count this instance knows is below half the limit the next ones are
// answered at once, one more each, and far fewer upserts than requests
// count them in the row soon after; from half the limit on each request
// waits for its exact count again, which includes another instance's
// requests. On both engines.
func TestRateLimitCountsWrittenBehind(t *testing.T) {
	t.Parallel()
	dbtest.EachMigrated(t, func(t *testing.T, db dbtest.DB) {
		s := open(t, db)
		c := s.RateLimitsFor(20) // answered at once below 10
		other := open(t, db).RateLimits()
		ctx := context.Background()
		w := t0.Truncate(time.Minute)
		row := func() int64 {
			write, _ := s.Pools()
			var n int64
			if err := write.QueryRowContext(ctx, `SELECT requests FROM api_rate_limits WHERE application = 'behind-client'`).Scan(&n); err != nil {
				t.Fatal(err)
			}
			return n
		}
		sent0, _ := s.RateLimitStatements("behind-client")
		if n, at, err := c.CountRequest(ctx, "behind-client", w); n != 1 || !at.Equal(w) || err != nil {
			t.Fatalf("first request: %d %s %v, want 1", n, at, err)
		}
		if sent, _ := s.RateLimitStatements("behind-client"); sent != sent0+1 || row() != 1 {
			t.Fatalf("the first request of a window: %d upserts, row %d; want 1 and 1", sent-sent0, row())
		}
		for want := int64(2); want <= 10; want++ {
			if n, at, err := c.CountRequest(ctx, "behind-client", w); n != want || !at.Equal(w) || err != nil {
				t.Fatalf("request %d: %d %s %v", want, n, at, err)
			}
		}
		waitFor(t, func() bool { return row() == 10 }, "the requests answered at once counted in the row")
		if sent, _ := s.RateLimitStatements("behind-client"); sent-sent0 >= 10 {
			t.Errorf("%d upserts for 10 requests; want fewer (written behind together)", sent-sent0)
		}
		for want := int64(11); want <= 15; want++ { // another instance
			if n, _, err := other.CountRequest(ctx, "behind-client", w); n != want || err != nil {
				t.Fatalf("other instance: %d %v, want %d", n, err, want)
			}
		}
		sent1, _ := s.RateLimitStatements("behind-client")
		if n, _, err := c.CountRequest(ctx, "behind-client", w); n != 16 || err != nil {
			t.Fatalf("at half the limit: %d %v; want the exact 16", n, err)
		}
		if sent, _ := s.RateLimitStatements("behind-client"); sent != sent1+1 || row() != 16 {
			t.Errorf("at half the limit: %d upserts, row %d; want 1 and 16", sent-sent1, row())
		}
		if n, at, err := c.CountRequest(ctx, "behind-client", w.Add(time.Minute)); n != 1 || !at.Equal(w.Add(time.Minute)) || err != nil {
			t.Errorf("next window: %d %s %v; want 1, exact", n, at, err)
		}
	})
}
