package store_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/bankrail/bankrail/internal/dbtest"
	"github.com/bankrail/bankrail/internal/errs"
	"github.com/bankrail/bankrail/internal/ledger"
	"github.com/bankrail/bankrail/internal/refund"
	"github.com/bankrail/bankrail/internal/store"
)

// The refund repository: the refunded total never passes the limit, a
// failed refund gives its amount back, reads follow the hierarchy.
func TestRefundRepository(t *testing.T) {
	t.Parallel()
	dbtest.EachMigrated(t, func(t *testing.T, db dbtest.DB) {
		s := open(t, db)
		ctx := context.Background()
		psp, shop, other := ledgerCustomers(t, s)
		a := testAccount(t, s, shop, "EUR", 1)
		p := testPayment("70000000-0000-4000-8000-0000000000a1", shop, "REFUND0001", t0)
		if err := s.Payments().Create(ctx, p); err != nil {
			t.Fatal(err)
		}
		if err := record(ctx, s, ledgerTx(a, ledger.Incoming, ledger.TxCompleted, 1000)); err != nil {
			t.Fatal(err)
		}
		newRefund := func(amount int64, at time.Time) refund.Refund {
			tx := ledgerTx(a, ledger.Outgoing, ledger.TxProcessing, amount)
			if err := record(ctx, s, tx); err != nil {
				t.Fatal(err)
			}
			return refund.Refund{ID: uuid.NewString(), PaymentID: p.ID, AccountID: a.ID, CustomerID: shop, ClientID: "client",
				Amount: amount, Currency: "EUR", ExternalReference: "R", Status: refund.Pending, TransactionID: tx.ID, CreatedAt: at, UpdatedAt: at}
		}
		// Writes go through a unit of work (Store.Refunds reads only).
		create := func(f refund.Refund) error {
			return s.InTx(ctx, func(tx *store.Tx) error { return tx.Refunds().Create(ctx, f, 100) })
		}
		settle := func(f refund.Refund) error {
			return s.InTx(ctx, func(tx *store.Tx) error { return tx.Refunds().Settle(ctx, f) })
		}
		first, second, third := newRefund(60, t0), newRefund(40, t0.Add(time.Second)), newRefund(1, t0.Add(2*time.Second))
		for _, f := range []refund.Refund{first, second} {
			if err := create(f); err != nil {
				t.Fatal(err)
			}
		}
		if err := create(third); !errors.Is(err, refund.ErrOverRefund) {
			t.Fatalf("over the limit: %v", err)
		}
		if n, err := s.Refunds().Refunded(ctx, p.ID); err != nil || n != 100 {
			t.Fatalf("refunded %d %v", n, err)
		}
		second.Status, second.UpdatedAt = refund.Failed, t0.Add(time.Minute)
		if err := settle(second); err != nil {
			t.Fatal(err)
		}
		if err := settle(second); !errs.Is(err, errs.NotFound) {
			t.Fatalf("settled twice: %v", err)
		}
		if n, _ := s.Refunds().Refunded(ctx, p.ID); n != 60 {
			t.Fatalf("a failed refund gives back its amount: %d", n)
		}
		if err := create(third); err != nil {
			t.Fatalf("within the limit again: %v", err)
		}
		if got, err := s.Refunds().Get(ctx, psp, second.ID); err != nil || got.Status != refund.Failed || !got.UpdatedAt.Equal(second.UpdatedAt) {
			t.Fatalf("the PSP reads it: %+v %v", got, err)
		}
		if _, err := s.Refunds().Get(ctx, other, second.ID); !errs.Is(err, errs.NotFound) {
			t.Fatalf("a stranger reads it: %v", err)
		}
		list, err := s.Refunds().OfPayment(ctx, p.ID)
		if err != nil || len(list) != 3 || list[0].ID != first.ID || list[2].ID != third.ID {
			t.Fatalf("refunds of the payment: %+v %v", list, err)
		}
		if n, _ := s.Refunds().Refunded(ctx, "70000000-0000-4000-8000-0000000000ff"); n != 0 {
			t.Fatalf("a payment without refunds: %d", n)
		}
		acct, _ := s.Ledger().Account(ctx, shop, a.ID)
		if n, got, err := s.Refunds().Standing(ctx, shop, p.ID, a.ID); err != nil || n != 61 || got != acct {
			t.Fatalf("standing: %d %+v %v, want 61 and %+v", n, got, err, acct)
		}
		if n, got, err := s.Refunds().Standing(ctx, shop, "70000000-0000-4000-8000-0000000000ff", a.ID); err != nil || n != 0 || got.ID != a.ID {
			t.Fatalf("standing without refunds: %d %+v %v", n, got, err)
		}
		if _, _, err := s.Refunds().Standing(ctx, other, p.ID, a.ID); !errs.Is(err, errs.NotFound) {
			t.Fatalf("a stranger's standing: %v", err)
		}
	})
}
