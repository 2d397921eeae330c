package store_test

import (
	"context"
	"testing"

	"github.com/bankrail/bankrail/internal/store"
)

// A batch's notifications (more than two: enqueueMany) are numbered after
// the ones their payments have already (the last seq of each ordering
// key, read for the batch in one statement), a key named twice in the
// batch in its order: the payment's notifications are claimed in the
// order written, across the two enqueues.
func TestNotificationBatchNumbersAfterTheStoredOnes(t *testing.T) {
	eachNotifyStore(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		for _, body := range []string{`{"b":1}`, `{"b":2}`} {
			if _, err := s.EnqueueNotifications(ctx, t0, msg("B1", body)); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := s.EnqueueNotifications(ctx, t0, msg("B1", `{"b":3}`), msg("B2", `{"c":1}`), msg("B1", `{"b":4}`),
			msg("B3", `{"d":1}`)); err != nil {
			t.Fatal(err)
		}
		for _, want := range []string{`{"b":1}`, `{"b":2}`, `{"b":3}`, `{"b":4}`} {
			cs := claim(t, s, t0)
			got := payments(cs)
			if got["B1"] != want {
				t.Fatalf("claimed %v, want B1 %s", got, want)
			}
			deliver(t, s, t0, true, cs...)
		}
	})
}
