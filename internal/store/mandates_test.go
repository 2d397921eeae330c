package store_test

import (
	"context"
	"testing"
	"time"

	"github.com/bankrail/bankrail/internal/dbtest"
	"github.com/bankrail/bankrail/internal/errs"
	"github.com/bankrail/bankrail/internal/event"
	"github.com/bankrail/bankrail/internal/identity"
	"github.com/bankrail/bankrail/internal/mandate"
	"github.com/bankrail/bankrail/internal/paging"
	"github.com/bankrail/bankrail/internal/store"
)

// The mandate repositories on both engines: a change applies only over the
// version read, one open amendment per mandate, a recalled amendment is
// not found through Get, the timed moves' queries, and every change is an
// event of its subject.
func TestMandateRepositories(t *testing.T) {
	t.Parallel()
	dbtest.EachMigrated(t, func(t *testing.T, db dbtest.DB) {
		s := open(t, db)
		ctx := context.Background()
		shop := identity.Customer{ID: "70000000-0000-4000-8000-000000000002", Name: "Shop", CreatedAt: t0}
		other := identity.Customer{ID: "70000000-0000-4000-8000-000000000003", Name: "Other", CreatedAt: t0}
		for _, c := range []identity.Customer{shop, other} {
			if err := s.CreateCustomer(ctx, c); err != nil {
				t.Fatal(err)
			}
		}
		m := mandate.Mandate{ID: "70000000-0000-4000-8000-0000000000a1", CustomerID: shop.ID, ClientID: "c", Type: mandate.PayTo,
			Status: mandate.Requested, Currency: "AUD", Payer: mandate.Payer{Name: "Ann", AccountIdentifiers: mandate.AccountIdentifiers{BSB: "062000", AccountNumber: "123456"}},
			Validity: mandate.Validity{From: t0, To: t0.Add(48 * time.Hour)}, PaymentLimit: 500, Token: "tok", Version: 1, CreatedAt: t0, UpdatedAt: t0}
		tx := func(fn func(tx *store.Tx) error) error { return s.InTx(ctx, fn) }
		if err := tx(func(tx *store.Tx) error { return tx.Mandates().Create(ctx, m) }); err != nil {
			t.Fatal(err)
		}
		if _, err := s.Mandates().Get(ctx, other.ID, m.ID); !errs.Is(err, errs.NotFound) {
			t.Fatalf("another customer reads the mandate: %v", err)
		}
		got, err := s.Mandates().Get(ctx, shop.ID, m.ID)
		if err != nil || got.Payer != m.Payer || !got.Validity.To.Equal(m.Validity.To) || got.PaymentLimit != 500 || got.Version != 1 || got.Used() {
			t.Fatalf("read back %+v %v", got, err)
		}
		next := got
		next.Status, next.UpdatedAt = mandate.Active, t0.Add(time.Minute)
		if err := tx(func(tx *store.Tx) error { return tx.Mandates().Save(ctx, next, mandate.EventAuthorised) }); err != nil {
			t.Fatal(err)
		}
		if err := tx(func(tx *store.Tx) error { return tx.Mandates().Save(ctx, next, mandate.EventAuthorised) }); !errs.Is(err, errs.Conflict) {
			t.Fatalf("a save over a stale version: %v, want CONFLICT", err)
		}
		if err := tx(func(tx *store.Tx) error { _, err := tx.Mandates().Lock(ctx, m.ID); return err }); err != nil {
			t.Fatal(err)
		}
		if _, err := s.Mandates().Lock(ctx, m.ID); err == nil {
			t.Fatal("Lock outside a unit of work succeeded")
		}
		due, err := s.Mandates().DueToExpire(ctx, t0.Add(48*time.Hour), 10)
		if err != nil || len(due) != 1 {
			t.Fatalf("due to expire at validity.to: %v %v", due, err)
		}
		if due, _ := s.Mandates().DueToExpire(ctx, t0.Add(47*time.Hour), 10); len(due) != 0 {
			t.Fatalf("due before validity.to: %v", due)
		}
		list, total, err := paging.Unpack(s.Mandates().List(ctx, shop.ID, mandate.ListFilter{Status: mandate.Active, Page: 1, Limit: 10}))
		if err != nil || total != 1 || len(list) != 1 {
			t.Fatalf("list %v %d %v", list, total, err)
		}

		limit := int64(900)
		a := mandate.Amendment{ID: "70000000-0000-4000-8000-0000000000b1", MandateID: m.ID, CustomerID: shop.ID, Track: "BILATERAL",
			Initiator: "CUSTOMER", Status: mandate.AwaitingApproval, Changes: mandate.Changes{PaymentLimit: &limit}, Token: "t",
			CreatedAt: t0, UpdatedAt: t0}
		if err := tx(func(tx *store.Tx) error { return tx.Amendments().Create(ctx, a) }); err != nil {
			t.Fatal(err)
		}
		second := a
		second.ID = "70000000-0000-4000-8000-0000000000b2"
		if err := tx(func(tx *store.Tx) error { return tx.Amendments().Create(ctx, second) }); !errs.Is(err, errs.Conflict) {
			t.Fatalf("a second open amendment: %v, want CONFLICT", err)
		}
		open, err := s.Amendments().OpenOf(ctx, m.ID)
		if err != nil || open.ID != a.ID || *open.Changes.PaymentLimit != 900 || open.Changes.ValidityFrom != nil || open.Details != nil {
			t.Fatalf("open amendment %+v %v", open, err)
		}
		if due, _ := s.Amendments().DueToAbandon(ctx, t0, 10); len(due) != 1 {
			t.Fatalf("due to abandon: %v", due)
		}
		recalled, _ := mandate.Recall.Apply(open, t0.Add(time.Hour))
		if err := tx(func(tx *store.Tx) error { return tx.Amendments().End(ctx, recalled, mandate.EventAmendmentRecalled) }); err != nil {
			t.Fatal(err)
		}
		if err := tx(func(tx *store.Tx) error { return tx.Amendments().End(ctx, recalled, mandate.EventAmendmentRecalled) }); !errs.Is(err, errs.Conflict) {
			t.Fatalf("ending twice: %v, want CONFLICT", err)
		}
		if _, err := s.Amendments().Get(ctx, shop.ID, a.ID); !errs.Is(err, errs.NotFound) {
			t.Fatalf("a recalled amendment through Get: %v, want NOT_FOUND", err)
		}
		if got, err := s.Amendments().GetByID(ctx, a.ID); err != nil || got.Status != mandate.Recalled || got.Details.Code != "RECALLED_BY_MERCHANT" {
			t.Fatalf("recalled amendment %+v %v", got, err)
		}
		if err := tx(func(tx *store.Tx) error { return tx.Amendments().Create(ctx, second) }); err != nil {
			t.Fatalf("a new amendment once the first ended: %v", err)
		}

		for subject, want := range map[string][]string{
			m.ID: {mandate.EventRequested, mandate.EventAuthorised},
			a.ID: {mandate.EventAmendmentRequested, mandate.EventAmendmentRecalled},
		} {
			evs, err := s.Events().List(ctx, shop.ID, event.Filter{SubjectID: subject})
			if err != nil || len(evs) != len(want) {
				t.Fatalf("events of %s: %+v %v", subject, evs, err)
			}
			for i, ev := range evs {
				if ev.Type != want[i] || ev.Seq != i+1 {
					t.Fatalf("event %d of %s: %+v, want %s seq %d", i, subject, ev, want[i], i+1)
				}
			}
		}
	})
}
