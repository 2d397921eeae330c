package store_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/bankrail/bankrail/internal/errs"
	"github.com/bankrail/bankrail/internal/payment"
	"github.com/bankrail/bankrail/internal/store"
)

// moved is p moved to status at, as a change from p's status.
func moved(p payment.Payment, status payment.Status, at time.Time) payment.Change {
	c := payment.Change{From: p.Status, Stored: len(p.History)}
	p.History = append(append([]payment.StatusUpdate(nil), p.History...), payment.StatusUpdate{Status: status, CreatedAt: at})
	p.Status, p.UpdatedAt = status, at
	c.Payment = p
	return c
}

// MoveAll moves the payments of a batch in UPDATEs of many rows (more
// than one statement's part here): each stored as its last change, two
// changes of one payment as one row with both moves in its history; a
// payment no longer in its From status fails the whole unit with
// CONFLICT and moves nothing.
func TestMoveAllMovesEachPaymentOnce(t *testing.T) {
	eachNotifyStore(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		const n = 150 // more than one UPDATE's rows (moveRows, 100)
		var ps []payment.Payment
		for i := range n {
			p := testPayment(fmt.Sprintf("60000000-0000-4000-8000-%012d", i), nChild, fmt.Sprintf("MALL%06d", i), t0)
			if err := s.Payments().Create(ctx, p); err != nil {
				t.Fatal(err)
			}
			ps = append(ps, p)
		}
		at := t0.Add(time.Minute)
		var cs []payment.Change
		for _, p := range ps {
			cs = append(cs, moved(p, payment.StatusBankRedirect, at))
		}
		cs = append(cs, moved(cs[3].Payment, payment.StatusCompleted, at.Add(time.Second))) // a chain: payment 3 twice
		if err := s.InTx(ctx, func(tx *store.Tx) error { return tx.Payments().MoveAll(ctx, cs) }); err != nil {
			t.Fatal(err)
		}
		for i, p := range ps {
			want, hist := payment.StatusBankRedirect, 2
			if i == 3 {
				want, hist = payment.StatusCompleted, 3
			}
			got, err := s.Payments().GetByID(ctx, p.ID)
			if err != nil || got.Status != want || len(got.History) != hist || !got.UpdatedAt.Equal(got.History[hist-1].CreatedAt) {
				t.Fatalf("payment %d: %s with %d moves (%+v), want %s with %d: %v", i, got.Status, len(got.History), got.History, want, hist, err)
			}
		}

		// Payment 5 moved meanwhile: its change from NEW_PAYMENT is stale.
		stale := []payment.Change{moved(cs[7].Payment, payment.StatusCompleted, at.Add(time.Hour)), moved(ps[5], payment.StatusCompleted, at.Add(time.Hour))}
		err := s.InTx(ctx, func(tx *store.Tx) error { return tx.Payments().MoveAll(ctx, stale) })
		if !errs.Is(err, errs.Conflict) {
			t.Fatalf("a stale move: %v, want CONFLICT", err)
		}
		if got, err := s.Payments().GetByID(ctx, ps[7].ID); err != nil || got.Status != payment.StatusBankRedirect || len(got.History) != 2 {
			t.Fatalf("the unit that failed moved payment 7: %s, %d moves, %v", got.Status, len(got.History), err)
		}
		broken := []payment.Change{moved(cs[9].Payment, payment.StatusCompleted, at.Add(time.Hour)), moved(cs[9].Payment, payment.StatusCompleted, at.Add(time.Hour))}
		if err := s.InTx(ctx, func(tx *store.Tx) error { return tx.Payments().MoveAll(ctx, broken) }); !errs.Is(err, errs.Conflict) {
			t.Fatalf("two moves of one payment from one status: %v, want CONFLICT", err)
		}
	})
}
