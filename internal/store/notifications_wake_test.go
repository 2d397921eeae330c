package store_test

import (
	"context"
	"sync/atomic"
	"testing"

	"github.com/bankrail/bankrail/internal/store"
)

// A unit of work wakes the dispatcher after its commit only when it
// enqueued a notification: one that enqueues nothing (a keyed create
// passes its empty list) costs the dispatcher no look for due work.
func TestOnlyAnEnqueueWakesTheDispatcher(t *testing.T) {
	eachNotifyStore(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		var wakes atomic.Int32
		s.OnNotificationsDue(func() { wakes.Add(1) })
		if err := s.InTx(ctx, func(tx *store.Tx) error { return tx.Outbox().Enqueue(ctx, t0) }); err != nil {
			t.Fatal(err)
		}
		if n := wakes.Load(); n != 0 {
			t.Fatalf("an empty enqueue woke the dispatcher %d times", n)
		}
		if err := s.InTx(ctx, func(tx *store.Tx) error { return tx.Outbox().Enqueue(ctx, t0, msg("w1", `{"w":1}`)) }); err != nil {
			t.Fatal(err)
		}
		if n := wakes.Load(); n != 1 {
			t.Fatalf("an enqueue woke the dispatcher %d times, want 1", n)
		}
	})
}
