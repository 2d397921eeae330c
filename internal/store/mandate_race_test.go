package store_test

import (
	"sync"
	"testing"
	"time"

	"github.com/bankrail/bankrail/internal/clock"
	"github.com/bankrail/bankrail/internal/dbtest"
	"github.com/bankrail/bankrail/internal/errs"
	"github.com/bankrail/bankrail/internal/event"
	"github.com/bankrail/bankrail/internal/identity"
	"github.com/bankrail/bankrail/internal/mandate"
	"github.com/bankrail/bankrail/internal/notify"
	"github.com/bankrail/bankrail/internal/store"
)

// Concurrency of mandates, on both engines: a payment's use of a mandate
// and an amendment of validity.from racing on the same unused mandate never
// both win (either the amendment is created and the payment is refused with
// CONFLICT, or the payment sets usedAt and the amendment is refused with
// FIELD_NOT_ALLOWED on validity.from); timed moves run by several instances
// at once happen once (one event, one notification); and the rules of a
// payment's use (status, limit, currency, payment system, visibility).
func TestMandateConcurrency(t *testing.T) {
	t.Parallel()
	dbtest.EachMigrated(t, func(t *testing.T, db dbtest.DB) {
		s := open(t, db)
		ctx := adminContext()
		shop := identity.Customer{ID: "71000000-0000-4000-8000-000000000002", Name: "Shop", CreatedAt: t0}
		if err := s.CreateCustomer(ctx, shop); err != nil {
			t.Fatal(err)
		}
		if err := s.CreateApplication(ctx, identity.Application{ID: "71000000-0000-4000-8000-0000000000c1", CustomerID: shop.ID,
			ClientID: "race-client", ClientSecretHash: "x", NotificationSecret: "s", CreatedAt: t0}); err != nil {
			t.Fatal(err)
		}
		clk := clock.NewFake(t0)
		svc := mandate.NewService(s.Mandates(), s.Amendments(), store.Transactor[mandate.Repos](s), clk, mandate.Config{MaxMajor: 10_000})
		creator := mandate.Creator{CustomerID: shop.ID, ClientID: "race-client"}
		limit := int64(5000)
		newActive := func(t *testing.T) mandate.Mandate {
			t.Helper()
			m, err := svc.Create(ctx, creator, mandate.CreateInput{Type: "PAYTO",
				Payer: mandate.PayerInput{Name: "Ann", BSB: "062000", AccountNumber: "123456"},
				PayTo: &mandate.PayToInput{PaymentAmount: &limit}})
			if err != nil {
				t.Fatal(err)
			}
			if m, err = svc.Authorise(ctx, shop.ID, m.ID, mandate.OutcomeAuthorised); err != nil {
				t.Fatal(err)
			}
			return m
		}
		use := mandate.PaymentUse{Amount: 5000, Currency: "AUD"}

		t.Run("rules", func(t *testing.T) {
			m := newActive(t)
			for _, tc := range []struct {
				u    mandate.PaymentUse
				want string
			}{
				{mandate.PaymentUse{MandateID: m.ID, Amount: 5001}, "TOO_HIGH amount"},
				{mandate.PaymentUse{MandateID: m.ID, Amount: 1, Currency: "GBP"}, "INVALID_VALUE currency"},
				{mandate.PaymentUse{MandateID: m.ID, Amount: 1, PaymentSystem: "OPEN_BANKING_UK"}, "INVALID_VALUE paymentSystem"},
				{mandate.PaymentUse{MandateID: "71000000-0000-4000-8000-00000000dead", Amount: 1}, "INVALID_VALUE mandateId"},
			} {
				_, err := svc.UseInTx(ctx, shop.ID, tc.u)
				if e, ok := err.(*errs.Error); !ok || len(e.Fields) != 1 || e.Fields[0].Type+" "+e.Fields[0].PropertyPath != tc.want {
					t.Fatalf("%+v: %v, want %s", tc.u, err, tc.want)
				}
			}
			if _, err := svc.UseInTx(ctx, "71000000-0000-4000-8000-000000000099", mandate.PaymentUse{MandateID: m.ID, Amount: 1}); !errs.Is(err, errs.ValidationFailure) {
				t.Fatalf("another customer's mandate: %v", err)
			}
			used, err := svc.UseInTx(ctx, shop.ID, mandate.PaymentUse{MandateID: m.ID, Amount: 5000})
			if err != nil || !used.UsedAt.Equal(t0) {
				t.Fatalf("first use: %+v %v", used, err)
			}
			clk.Advance(time.Hour)
			if again, err := svc.UseInTx(ctx, shop.ID, mandate.PaymentUse{MandateID: m.ID, Amount: 1}); err != nil || !again.UsedAt.Equal(t0) {
				t.Fatalf("a second use moved usedAt: %+v %v", again, err)
			}
			if _, err := svc.Suspend(ctx, shop.ID, m.ID); err != nil {
				t.Fatal(err)
			}
			if _, err := svc.UseInTx(ctx, shop.ID, mandate.PaymentUse{MandateID: m.ID, Amount: 1}); !errs.Is(err, errs.ValidationFailure) {
				t.Fatalf("a SUSPENDED mandate was used: %v", err)
			}
		})

		t.Run("timed moves happen once across instances", func(t *testing.T) {
			to := "2026-03-03 00:00:00"
			var ids []string
			for range 5 {
				m, err := svc.Create(ctx, creator, mandate.CreateInput{Type: "VRP",
					Payer:    mandate.PayerInput{Name: "Bo", SortCode: "040004", AccountNumber: "12345678"},
					Validity: &mandate.ValidityInput{To: &to}})
				if err != nil {
					t.Fatal(err)
				}
				if _, err := svc.Authorise(ctx, shop.ID, m.ID, mandate.OutcomeAuthorised); err != nil {
					t.Fatal(err)
				}
				from := "2026-03-02 00:00:00"
				if _, err := svc.Amend(ctx, shop.ID, m.ID, mandate.AmendInput{Validity: &mandate.ValidityInput{From: &from}}); err != nil {
					t.Fatal(err)
				}
				ids = append(ids, m.ID)
			}
			clk.Set(time.Date(2026, 3, 10, 0, 0, 0, 0, time.UTC)) // past validity.to and the 5 days
			// Four instances (services over the store's pools) run the timed moves at once.
			var wg sync.WaitGroup
			errsOf := make([]error, 4)
			for i := range errsOf {
				wg.Add(1)
				other := mandate.NewService(s.Mandates(), s.Amendments(), store.Transactor[mandate.Repos](s), clk, mandate.Config{MaxMajor: 10_000})
				go func() { defer wg.Done(); errsOf[i] = other.RunTimedMoves(ctx) }()
			}
			wg.Wait()
			for i, err := range errsOf {
				if err != nil {
					t.Fatalf("instance %d: %v", i, err)
				}
			}
			for _, typ := range []string{mandate.EventExpired, mandate.EventAmendmentRequestAbandoned} {
				evs, err := s.Events().List(ctx, shop.ID, event.Filter{Type: typ})
				if err != nil || len(evs) != len(ids) {
					t.Fatalf("%s events: %d %v, want one per mandate (%d)", typ, len(evs), err, len(ids))
				}
			}
			for _, id := range ids {
				page, err := s.ListNotifications(ctx, shop.ID, notify.Filter{PaymentID: id, Page: 1, Limit: 100})
				if err != nil {
					t.Fatal(err)
				}
				kinds := map[string]int{}
				for _, n := range page.Items {
					kinds[n.Type]++
				}
				if kinds[mandate.EventExpired] != 1 || kinds[mandate.EventAmendmentRequestAbandoned] != 1 {
					t.Fatalf("notifications of mandate %s: %v, want one expiry and one abandonment", id, kinds)
				}
			}
			clk.Set(t0)
		})

		t.Run("race", func(t *testing.T) {
			for i := range 8 {
				m := newActive(t)
				u := use
				u.MandateID = m.ID
				var wg sync.WaitGroup
				var amendErr, useErr error
				wg.Add(2)
				go func() {
					defer wg.Done()
					from := "2026-03-02 00:00:00"
					_, amendErr = svc.Amend(ctx, shop.ID, m.ID, mandate.AmendInput{Validity: &mandate.ValidityInput{From: &from}})
				}()
				go func() { defer wg.Done(); _, useErr = svc.UseInTx(ctx, shop.ID, u) }()
				wg.Wait()
				switch {
				case amendErr == nil && errs.Is(useErr, errs.Conflict):
				case useErr == nil && errs.Is(amendErr, errs.ValidationFailure):
					if e := amendErr.(*errs.Error); e.Fields[0].PropertyPath != "validity.from" || e.Fields[0].Type != errs.FieldNotAllowed {
						t.Fatalf("round %d: the amendment lost with %+v", i, e.Fields)
					}
				default:
					t.Fatalf("round %d: amendment %v, payment %v: exactly one must win", i, amendErr, useErr)
				}
			}
		})
	})
}
