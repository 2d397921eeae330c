package store_test

import (
	"context"
	"database/sql"
	"testing"
	"time"

	"github.com/bankrail/bankrail/internal/bank"
	"github.com/bankrail/bankrail/internal/dbtest"
	"github.com/bankrail/bankrail/internal/event"
	"github.com/bankrail/bankrail/internal/identity"
	"github.com/bankrail/bankrail/internal/payment"
	"github.com/bankrail/bankrail/internal/store"
)

// A payment's history is its row (NEW_PAYMENT at creation) and its events:
// one a move, written in the move's unit of work, read back as its History, and queryable by
// type, status and time within what the viewer may see.
func TestPaymentHistoryIsTheEventLog(t *testing.T) {
	t.Parallel()
	dbtest.EachMigrated(t, func(t *testing.T, db dbtest.DB) {
		s := open(t, db)
		ctx := context.Background()
		psp := identity.Customer{ID: "60000000-0000-4000-8000-000000000001", Name: "PSP", CreatedAt: t0}
		shop := identity.Customer{ID: "60000000-0000-4000-8000-000000000002", Name: "Shop", ParentID: psp.ID, CreatedAt: t0}
		other := identity.Customer{ID: "60000000-0000-4000-8000-000000000003", Name: "Other", CreatedAt: t0}
		for _, c := range []identity.Customer{psp, shop, other} {
			if err := s.CreateCustomer(ctx, c); err != nil {
				t.Fatal(err)
			}
		}
		life := payment.NewLifecycle(bank.Default())
		p := testPayment("60000000-0000-4000-8000-0000000000a1", shop.ID, "EVT0000001", t0)
		if err := s.Payments().Create(ctx, p); err != nil {
			t.Fatal(err)
		}
		o, _ := payment.ParseOutcome("COMPLETED")
		c, err := life.Apply(p, payment.Event{Outcome: o}, t0.Add(time.Minute))
		if err != nil {
			t.Fatal(err)
		}
		c.Messages = nil // no application here: the outbox is tested elsewhere
		if err := movePayment(ctx, s, c); err != nil {
			t.Fatal(err)
		}
		got, err := s.Payments().GetByID(ctx, p.ID)
		if err != nil {
			t.Fatal(err)
		}
		if len(got.History) != len(c.Payment.History) {
			t.Fatalf("history %v, want %v", got.History, c.Payment.History)
		}
		for i, u := range c.Payment.History {
			if got.History[i].Status != u.Status || !got.History[i].CreatedAt.Equal(u.CreatedAt) {
				t.Fatalf("history[%d] = %+v, want %+v", i, got.History[i], u)
			}
		}
		// A second apply of the same change is refused and adds no event.
		if err := movePayment(ctx, s, c); err == nil {
			t.Fatal("the same move was applied twice")
		}
		// NEW_PAYMENT is the payment row; each move is an event, seq 2 on.
		all, err := s.Events().List(ctx, psp.ID, event.Filter{SubjectID: p.ID})
		if err != nil || len(all) != len(c.Payment.History)-1 {
			t.Fatalf("events %v %v, want %d", all, err, len(c.Payment.History)-1)
		}
		for i, ev := range all {
			if ev.Seq != i+2 || ev.Status != string(c.Payment.History[i+1].Status) || ev.Type != event.PaymentStatusChanged || ev.CustomerID != shop.ID || ev.SubjectType != event.SubjectPayment {
				t.Fatalf("event %d: %+v", i, ev)
			}
		}
		completed, err := s.Events().List(ctx, shop.ID, event.Filter{Type: event.PaymentStatusChanged, Status: "COMPLETED",
			From: t0.Add(time.Minute), To: t0.Add(time.Hour)})
		if err != nil || len(completed) != 1 || completed[0].SubjectID != p.ID {
			t.Fatalf("what became COMPLETED: %v %v", completed, err)
		}
		if early, _ := s.Events().List(ctx, shop.ID, event.Filter{Status: "COMPLETED", To: t0.Add(time.Minute)}); len(early) != 0 {
			t.Fatalf("To is exclusive: %v", early)
		}
		if theirs, _ := s.Events().List(ctx, other.ID, event.Filter{}); len(theirs) != 0 {
			t.Fatalf("another customer sees %v", theirs)
		}
		page, _ := s.Events().List(ctx, shop.ID, event.Filter{Limit: 1})
		rest, _ := s.Events().List(ctx, shop.ID, event.Filter{AfterID: page[0].ID})
		if len(page) != 1 || len(rest) != len(all)-1 {
			t.Fatalf("keyset paging: %d then %d of %d", len(page), len(rest), len(all))
		}
	})
}

// Events written through a unit of work that rolls back are not kept.
func TestEventsRollBackWithTheirChange(t *testing.T) {
	t.Parallel()
	dbtest.EachMigrated(t, func(t *testing.T, db dbtest.DB) {
		s := open(t, db)
		ctx := context.Background()
		shop := identity.Customer{ID: "61000000-0000-4000-8000-000000000001", Name: "Shop", CreatedAt: t0}
		if err := s.CreateCustomer(ctx, shop); err != nil {
			t.Fatal(err)
		}
		boom := sql.ErrTxDone
		err := s.InTx(ctx, func(tx *store.Tx) error {
			if err := tx.Events().Append(ctx, event.Event{CustomerID: shop.ID, SubjectType: "refund", SubjectID: "r1", Seq: 1,
				Type: "refund.status_changed", Status: "CREATED", OccurredAt: t0}); err != nil {
				return err
			}
			return boom
		})
		if err != boom {
			t.Fatalf("InTx returned %v, want fn's error as it is", err)
		}
		if evs, _ := s.Events().List(ctx, shop.ID, event.Filter{}); len(evs) != 0 {
			t.Fatalf("rolled back events kept: %v", evs)
		}
	})
}
