package store_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/bankrail/bankrail/internal/dbtest"
	"github.com/bankrail/bankrail/internal/notify"
)

// BenchmarkClaimNothingDue measures the dispatcher's look for due work when
// nothing is (the cost of a wake after a commit that enqueued a
// notification not yet due): 200 PENDING notifications, all in the future.
//
//	go test -run '^$' -bench BenchmarkClaimNothingDue ./internal/store/
func BenchmarkClaimNothingDue(b *testing.B) {
	for _, e := range dbtest.Engines {
		b.Run(string(e), func(b *testing.B) {
			s := openBench(b, dbtest.Migrated(b, e))
			notifyFixture(b, s)
			ctx := context.Background()
			for i := range 200 {
				if _, err := s.EnqueueNotifications(ctx, t0.Add(time.Hour), msg(fmt.Sprintf("p%03d", i), `{}`)); err != nil {
					b.Fatal(err)
				}
			}
			req := notify.ClaimRequest{Due: t0, LeaseNow: t0, Lease: time.Minute, Limit: 32}
			b.ResetTimer()
			for b.Loop() {
				cs, err := s.ClaimNotifications(ctx, req)
				if err != nil || len(cs) != 0 {
					b.Fatalf("claimed %d: %v", len(cs), err)
				}
			}
		})
	}
}
