package store_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/bankrail/bankrail/internal/bank"
	"github.com/bankrail/bankrail/internal/errs"
	"github.com/bankrail/bankrail/internal/notify"
	"github.com/bankrail/bankrail/internal/payment"
	"github.com/bankrail/bankrail/internal/store"
)

// A move is saved with its notifications only while the payment is still
// where the move starts: of concurrent moves from one status, exactly one
// is applied and writes its notifications; the others change nothing.
func TestMovePaymentOnce(t *testing.T) {
	eachNotifyStore(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		life := payment.NewLifecycle(bank.Default())
		p := testPayment("50000000-0000-4000-8000-000000000001", nChild, "MOVE000001", t0)
		p.ClientID = "n-client"
		p.Next = &payment.TimedMove{To: payment.StatusAbandonedByUser, At: t0.Add(payment.AbandonAfter)}
		if err := s.Payments().Create(ctx, p); err != nil {
			t.Fatal(err)
		}
		due, err := s.Payments().Due(ctx, t0.Add(payment.AbandonAfter), 10)
		if err != nil || len(due) != 1 || due[0] != p.ID {
			t.Fatalf("due payments %v %v", due, err)
		}
		if early, _ := s.Payments().Due(ctx, t0.Add(payment.AbandonAfter-time.Microsecond), 10); len(early) != 0 {
			t.Fatalf("due early: %v", early)
		}

		outcomes := []string{"COMPLETED", "CANCELLED_BY_USER", "REFUSED_BY_BANK", "ERROR_AT_BANK", "ABANDONED_BY_USER", "REFUSED_BY_RISK"}
		var wg sync.WaitGroup
		results := make([]error, len(outcomes))
		for i, name := range outcomes {
			o, _ := payment.ParseOutcome(name)
			c, err := life.Apply(p, payment.Event{Outcome: o}, t0.Add(time.Minute))
			if err != nil {
				t.Fatal(err)
			}
			wg.Add(1)
			go func() { defer wg.Done(); results[i] = movePayment(ctx, s, c) }()
		}
		wg.Wait()
		won := -1
		for i, err := range results {
			switch {
			case err == nil && won >= 0:
				t.Fatalf("both %s and %s were applied", outcomes[won], outcomes[i])
			case err == nil:
				won = i
			case !errs.Is(err, errs.Conflict):
				t.Fatalf("%s: %v, want CONFLICT", outcomes[i], err)
			}
		}
		if won < 0 {
			t.Fatal("no move was applied")
		}
		got, err := s.Payments().GetByID(ctx, p.ID)
		if err != nil || string(got.Status) != outcomes[won] || got.Next != nil {
			t.Fatalf("stored %s (next %+v), want %s: %v", got.Status, got.Next, outcomes[won], err)
		}
		if due, _ := s.Payments().Due(ctx, t0.Add(time.Hour), 10); len(due) != 0 {
			t.Fatalf("an ended payment is still due: %v", due)
		}
		claims := claim(t, s, t0.Add(time.Hour))
		for len(claims) > 0 { // notifications of one payment come out one at a time, in order
			deliver(t, s, t0.Add(time.Hour), true, claims...)
			for _, c := range claims {
				if c.PaymentID != p.ID {
					t.Fatalf("notification of %s", c.PaymentID)
				}
			}
			claims = claim(t, s, t0.Add(time.Hour))
		}
		page, err := s.ListNotifications(ctx, nCustomer, notify.Filter{PaymentID: p.ID, Page: 1, Limit: 100})
		if err != nil {
			t.Fatal(err)
		}
		want := len(got.History) - 1 // every move after NEW_PAYMENT in these outcomes notifies, but AUTHORISED_BY_USER
		if outcomes[won] == "COMPLETED" {
			want--
		}
		if page.TotalItems != want {
			t.Fatalf("%d notifications for %s, want %d", page.TotalItems, outcomes[won], want)
		}
	})
}

// movePayment saves c with its notifications in one unit of work, as the
// payment service does.
func movePayment(ctx context.Context, s *store.Store, c payment.Change) error {
	return s.InTx(ctx, func(tx *store.Tx) error {
		if err := tx.Payments().Move(ctx, c); err != nil {
			return err
		}
		return tx.Outbox().Enqueue(ctx, c.Payment.UpdatedAt, c.Messages...)
	})
}
