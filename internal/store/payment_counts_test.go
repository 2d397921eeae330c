package store_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/bankrail/bankrail/internal/dbtest"
	"github.com/bankrail/bankrail/internal/errs"
	"github.com/bankrail/bankrail/internal/identity"
	"github.com/bankrail/bankrail/internal/payment"
	"github.com/bankrail/bankrail/internal/sandbox"
	"github.com/bankrail/bankrail/internal/store"
)

// tables collects a dump (sandbox.TableWriter).
type tables []sandbox.Table

func (ts *tables) Table(name string, columns []string) error {
	*ts = append(*ts, sandbox.Table{Name: name, Columns: columns})
	return nil
}

func (ts *tables) Row(values []any) error {
	last := &(*ts)[len(*ts)-1]
	last.Rows = append(last.Rows, values)
	return nil
}

// wantTotals checks GET /payments' unfiltered total for each viewer (the
// sum of payment_counts) against the payments' own count.
func wantTotals(t *testing.T, s *store.Store, when string, want map[string]int) {
	t.Helper()
	for viewer, n := range want {
		page, err := s.Payments().ListPage(context.Background(), viewer, payment.ListFilter{Page: 1, Limit: 25})
		if err != nil || page.Total != n {
			t.Fatalf("%s: total of %s %d (%v), want %d", when, viewer, page.Total, err, n)
		}
	}
}

// The counts behind the exact total (migration 00054; by status and
// currency since 00063) start from the payments already there (at both
// migrations), follow a creation (the store's own count since
// version 62), a payment moved to another customer, and
// follow a sandbox reset (TRUNCATE on
// PostgreSQL, which fires no row trigger) and a restore, which never dumps
// them (the store counts the payments it writes).
func TestPaymentCountsFollowMigrationResetAndRestore(t *testing.T) {
	t.Parallel()
	dbtest.Each(t, func(t *testing.T, db dbtest.DB) {
		ctx := context.Background()
		s := openAtVersion(t, db, 53)
		psp := identity.Customer{ID: "24000000-0000-4000-8000-000000000001", Name: "PSP", CreatedAt: t0}
		shop := identity.Customer{ID: "24000000-0000-4000-8000-000000000002", Name: "Shop", ParentID: psp.ID, CreatedAt: t0}
		for _, c := range []identity.Customer{psp, shop} {
			if err := s.CreateCustomer(ctx, c); err != nil {
				t.Fatal(err)
			}
		}
		for i := range 5 {
			owner := shop.ID
			if i%2 == 0 {
				owner = psp.ID
			}
			id := fmt.Sprintf("24000000-0000-4000-8000-%012d", 100+i)
			insertPayment(t, s, id, owner, t0.Add(time.Duration(i)*time.Second), i)
			if err := s.Exec(ctx, `UPDATE payments SET status = $2, currency = $3 WHERE id = $1`, // before any count
				id, string(countStatuses[i%len(countStatuses)]), countCurrencies[i%len(countCurrencies)]); err != nil {
				t.Fatal(err)
			}
		}
		viewers := []string{psp.ID, shop.ID}
		if err := s.MigrateTo(ctx, 62); err != nil { // counts by customer
			t.Fatal(err)
		}
		wantTotals(t, s, "at version 62", map[string]int{psp.ID: 5, shop.ID: 2})
		if err := s.Migrate(ctx); err != nil { // by customer, status and currency (version 63)
			t.Fatal(err)
		}
		wantTotals(t, s, "after the migration", map[string]int{psp.ID: 5, shop.ID: 2})
		wantExactTotals(t, s, "after the migration", viewers, shop.ID)

		// A creation through the store counts (version 62: no trigger).
		if err := s.Payments().Create(ctx, testPayment("24000000-0000-4000-8000-000000000200", shop.ID, "CNT200", t0.Add(time.Minute))); err != nil {
			t.Fatal(err)
		}
		wantTotals(t, s, "after a creation", map[string]int{psp.ID: 6, shop.ID: 3})
		if err := s.Exec(ctx, `UPDATE payments SET customer_id = $1 WHERE id = $2`, psp.ID, "24000000-0000-4000-8000-000000000200"); err != nil {
			t.Fatal(err)
		}
		wantTotals(t, s, "after a move to the parent", map[string]int{psp.ID: 6, shop.ID: 2})
		wantExactTotals(t, s, "after a move to the parent", viewers, shop.ID)
		if err := s.Exec(ctx, `UPDATE payments SET customer_id = $1 WHERE id = $2`, shop.ID, "24000000-0000-4000-8000-000000000200"); err != nil {
			t.Fatal(err)
		}
		wantTotals(t, s, "after a move back", map[string]int{psp.ID: 6, shop.ID: 3})
		wantExactTotals(t, s, "after a move back", viewers, shop.ID)
		var dump tables
		if err := s.DumpTables(ctx, &dump); err != nil {
			t.Fatal(err)
		}
		for _, tb := range dump {
			if tb.Name == "payment_counts" {
				t.Fatal("payment_counts is dumped")
			}
		}
		if _, err := s.ReplaceTables(ctx, nil, nil); err != nil { // a reset to nothing
			t.Fatal(err)
		}
		wantTotals(t, s, "after a reset", map[string]int{psp.ID: 0, shop.ID: 0})
		wantExactTotals(t, s, "after a reset", viewers, shop.ID)
		if _, err := s.ReplaceTables(ctx, dump, nil); err != nil {
			t.Fatal(err)
		}
		wantTotals(t, s, "after a restore", map[string]int{psp.ID: 6, shop.ID: 3})
		wantExactTotals(t, s, "after a restore", viewers, shop.ID)
		if _, err := s.ReplaceTables(ctx, dump, nil); err != nil { // a restore over data
			t.Fatal(err)
		}
		wantTotals(t, s, "after a second restore", map[string]int{psp.ID: 6, shop.ID: 3})
		wantExactTotals(t, s, "after a second restore", viewers, shop.ID)
	})
}

// The store counts the payments it creates (version 62) exactly as they
// commit: units of two customers queued into one group (group commit),
// first all succeeding (the pass without savepoints), then with a unit
// that fails after its INSERT (rolled back to its savepoint: counts
// nothing) and one whose INSERT is refused (a duplicate), then one alone
// that fails, leave each viewer's total equal to the payments there are.
func TestPaymentCountsFollowGroupedCreations(t *testing.T) {
	t.Parallel()
	dbtest.EachMigrated(t, func(t *testing.T, db dbtest.DB) {
		ctx := context.Background()
		s := open(t, db)
		psp := identity.Customer{ID: "24000000-0000-4000-8000-000000000011", Name: "PSP", CreatedAt: t0}
		shop := identity.Customer{ID: "24000000-0000-4000-8000-000000000012", Name: "Shop", ParentID: psp.ID, CreatedAt: t0}
		for _, c := range []identity.Customer{psp, shop} {
			if err := s.CreateCustomer(ctx, c); err != nil {
				t.Fatal(err)
			}
		}
		own := errors.New("undone after its insert")
		want := map[string]int{psp.ID: 0, shop.ID: 0} // each viewer's total: its payments and its children's
		const n = 8
		group := func(round int, failing, duplicate int) {
			t.Helper()
			results := asOneGroup(t, ctx, s, n, func(i int, tx *store.Tx) error {
				owner := shop.ID
				if i%3 == 0 {
					owner = psp.ID
				}
				id := fmt.Sprintf("24000000-0000-4000-8000-%06d%06d", round, i)
				if i == duplicate {
					id = fmt.Sprintf("24000000-0000-4000-8000-%06d%06d", 0, 1) // round 0's, committed
				}
				p := testPayment(id, owner, fmt.Sprintf("C%02d%07d", round, i), t0.Add(time.Duration(i)*time.Second))
				if err := tx.Payments().Create(ctx, p); err != nil {
					return err
				}
				if i == failing {
					return own
				}
				return nil
			})
			for i, err := range results {
				switch {
				case i == failing && !errors.Is(err, own):
					t.Fatalf("round %d, unit %d: %v, want its own error", round, i, err)
				case i == duplicate && !errs.Is(err, errs.Conflict):
					t.Fatalf("round %d, unit %d: %v, want CONFLICT", round, i, err)
				case i != failing && i != duplicate && err != nil:
					t.Fatalf("round %d, unit %d: %v", round, i, err)
				case i != failing && i != duplicate:
					want[psp.ID]++
					if i%3 != 0 {
						want[shop.ID]++
					}
				}
			}
			wantTotals(t, s, fmt.Sprintf("after round %d", round), want)
		}
		group(0, -1, -1)                              // all succeed: one pass, no savepoint
		group(1, 4, 6)                                // a unit fails, another is refused: the savepoint pass
		group(2, -1, 2)                               // a refusal only
		err := s.InTx(ctx, func(tx *store.Tx) error { // alone, failing after its insert
			if err := tx.Payments().Create(ctx, testPayment("24000000-0000-4000-8000-000000000999", shop.ID, "ALONE", t0)); err != nil {
				return err
			}
			return own
		})
		if !errors.Is(err, own) {
			t.Fatalf("a unit alone: %v, want its own error", err)
		}
		wantTotals(t, s, "after a unit alone failed", want)
	})
}
