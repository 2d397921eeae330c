package store_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/bankrail/bankrail/internal/dbtest"
	"github.com/bankrail/bankrail/internal/identity"
	"github.com/bankrail/bankrail/internal/report"
	"github.com/bankrail/bankrail/internal/store"
)

// insertPayment writes a bare payment row of customer created at at.
func insertPayment(t *testing.T, s *store.Store, id, customer string, at time.Time, n int) {
	t.Helper()
	err := s.Exec(context.Background(), `INSERT INTO payments (id, customer_id, client_id, user_id, channel, payment_system, status,
		currency, amount, internal_reference, payment_reference, unique_reference, institution_id, short_code, checkout_token,
		request, created_at, updated_at)
		VALUES ($1, $2, 'c', 'u', 'api', 'OPEN_BANKING_EU', 'NEW_PAYMENT', 'EUR', $3, $4, $5, $6, '', $7, '', '{}', $8, $9)`,
		id, customer, 100+n, fmt.Sprintf("order-%d", n), fmt.Sprintf("ref %d", n), fmt.Sprintf("BR%09d", n), "S"+id,
		at.UnixMicro(), at.Add(time.Minute).UnixMicro())
	if err != nil {
		t.Fatal(err)
	}
}

// The PAYMENTS reader's keyset batches and merge: a root with two
// customers below it, payments interleaved in time with ties (within a
// customer and across customers), read with batches of 1 to 7 rows: every
// payment of the period once, oldest first (createdAt, then id), the same
// rows as the one query the database sorts; a customerId scope reads that
// customer alone; the period's bounds are inclusive.
func TestPaymentsReaderBatches(t *testing.T) {
	t.Parallel()
	dbtest.EachMigrated(t, func(t *testing.T, db dbtest.DB) {
		s := open(t, db)
		ctx := context.Background()
		root, a, b := "00000000-0000-4000-8000-0000000d0000", "00000000-0000-4000-8000-0000000d000a", "00000000-0000-4000-8000-0000000d000b"
		for _, c := range []identity.Customer{{ID: root, Name: "PSP", CreatedAt: t0}, {ID: a, Name: "A", ParentID: root, CreatedAt: t0},
			{ID: b, Name: "B", ParentID: root, CreatedAt: t0}} {
			if err := s.CreateCustomer(ctx, c); err != nil {
				t.Fatal(err)
			}
		}
		rng := rand.New(rand.NewPCG(1, 2))
		owners := []string{root, a, a, a, b, b}
		for n := range 60 {
			at := t0.Add(time.Duration(rng.IntN(20)) * time.Second) // many ties
			insertPayment(t, s, uuid.NewString(), owners[rng.IntN(len(owners))], at, n)
		}
		key := func(p report.PaymentRow) string {
			return fmt.Sprintf("%s %s %s %s %d %s", p.ID, p.CustomerID, p.CreatedAt.Format(time.RFC3339Nano),
				p.UpdatedAt.Format(time.RFC3339Nano), p.Amount, p.InternalReference)
		}
		read := func(d report.Data, sc report.Scope) []string {
			t.Helper()
			var out []string
			var last report.PaymentRow
			err := d.Payments(ctx, sc, func(p report.PaymentRow) error {
				if len(out) > 0 && (p.CreatedAt.Before(last.CreatedAt) || (p.CreatedAt.Equal(last.CreatedAt) && p.CustomerID == last.CustomerID && p.ID < last.ID)) {
					t.Errorf("out of order: %s after %s", key(p), key(last))
				}
				last = p
				out = append(out, key(p))
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			return out
		}
		sorted := func(sc report.Scope) []string {
			t.Helper()
			var out []string
			if err := s.SortedPayments(ctx, sc, func(p report.PaymentRow) error { out = append(out, key(p)); return nil }); err != nil {
				t.Fatal(err)
			}
			return out
		}
		same := func(what string, got, want []string) {
			t.Helper()
			if !slices.Equal(got, want) { // uuids: the merge's byte order on ties is the database's
				t.Fatalf("%s: %d rows, want %d\n%v\n%v", what, len(got), len(want), got, want)
			}
		}
		for _, sc := range []report.Scope{
			{Root: root, From: t0, To: t0.Add(time.Hour)},
			{Root: root, From: t0.Add(5 * time.Second), To: t0.Add(12 * time.Second)}, // inclusive bounds, ties on them
			{Root: a, Exact: true, From: t0, To: t0.Add(time.Hour)},
			{Root: b, From: t0.Add(3 * time.Second), To: t0.Add(3 * time.Second)},
			{Root: root, From: t0.Add(time.Hour), To: t0.Add(2 * time.Hour)}, // none
		} {
			want := sorted(sc)
			for _, batch := range []int{1, 2, 3, 7, 10_000} {
				same(fmt.Sprintf("%+v, batches of %d", sc, batch), read(s.ReportDataBatch(batch), sc), want)
			}
		}
		if n := len(sorted(report.Scope{Root: root, From: t0, To: t0.Add(time.Hour)})); n != 60 {
			t.Fatalf("%d payments in the root's report, want 60", n)
		}
		// The writer's failure stops the reading and is returned; so is a
		// cancelled context.
		stop := errors.New("the file cannot be written")
		for _, sc := range []report.Scope{{Root: root, From: t0, To: t0.Add(time.Hour)}, {Root: a, Exact: true, From: t0, To: t0.Add(time.Hour)}} {
			for _, batch := range []int{2, 10_000} {
				seen := 0
				err := s.ReportDataBatch(batch).Payments(ctx, sc, func(report.PaymentRow) error {
					if seen++; seen == 5 {
						return stop
					}
					return nil
				})
				if !errors.Is(err, stop) || seen != 5 {
					t.Fatalf("%+v, batches of %d: %v after %d rows", sc, batch, err, seen)
				}
				cctx, cancel := context.WithCancel(ctx)
				seen = 0
				err = s.ReportDataBatch(batch).Payments(cctx, sc, func(report.PaymentRow) error {
					if seen++; seen == 3 {
						cancel()
					}
					return nil
				})
				if !errors.Is(err, context.Canceled) {
					t.Fatalf("%+v, batches of %d, cancelled: %v after %d rows", sc, batch, err, seen)
				}
			}
		}
	})
}
