package store_test

import (
	"context"
	"testing"

	"github.com/bankrail/bankrail/internal/dbtest"
	"github.com/bankrail/bankrail/internal/event"
	"github.com/bankrail/bankrail/internal/payment"
)

// Upgrading a database of version 4 moves each payment's status_history
// JSON into the event log, in order and at the same times, and the payment
// reads back as before.
func TestEventLogMigrationMovesStatusHistories(t *testing.T) {
	t.Parallel()
	dbtest.Each(t, func(t *testing.T, db dbtest.DB) {
		ctx := context.Background()
		s := openAtVersion(t, db, 4)
		const id, customer = "62000000-0000-4000-8000-0000000000a1", "62000000-0000-4000-8000-000000000001"
		for _, q := range []string{
			`INSERT INTO customers (id, name, created_at) VALUES ('` + customer + `', 'Shop', 0)`,
			`INSERT INTO customer_tree (ancestor_id, descendant_id, depth) VALUES ('` + customer + `', '` + customer + `', 0)`,
			`INSERT INTO payments (id, customer_id, client_id, user_id, channel, payment_system, status, currency, amount,
				unique_reference, short_code, checkout_token, request, status_history, created_at, updated_at)
			VALUES ('` + id + `', '` + customer + `', 'c', 'u', 'hosted', 'OPEN_BANKING_EU', 'COMPLETED', 'EUR', 100,
				'REF', 'CODE1', 'tok', '{"currency":"EUR","amount":100,"paymentSystem":"OPEN_BANKING_EU","internalReference":"old-row"}',
				'[{"newStatus":"NEW_PAYMENT","createdAt":"2026-03-01T12:00:00.123456Z"},{"newStatus":"BANK_REDIRECT","createdAt":"2026-03-01T12:01:00Z"},{"newStatus":"COMPLETED","createdAt":"2026-03-01T12:02:00Z"}]',
				1772366400123456, 1772366520000000)`,
		} {
			if err := s.Exec(ctx, q); err != nil {
				t.Fatal(err)
			}
		}
		if err := s.Migrate(ctx); err != nil {
			t.Fatal(err)
		}
		p, err := s.Payments().GetByID(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		want := []payment.Status{payment.StatusNew, payment.StatusBankRedirect, payment.StatusCompleted}
		if len(p.History) != len(want) || !p.History[0].CreatedAt.Equal(t0) || p.Request.InternalReference != "old-row" {
			t.Fatalf("history %+v, request %+v", p.History, p.Request)
		}
		for i, st := range want {
			if p.History[i].Status != st {
				t.Fatalf("history[%d] = %s, want %s", i, p.History[i].Status, st)
			}
		}
		evs, err := s.Events().List(ctx, customer, event.Filter{SubjectID: id})
		if err != nil || len(evs) != 2 || evs[1].Status != "COMPLETED" || evs[0].Seq != 2 {
			t.Fatalf("events %v %v", evs, err)
		}
	})
}
