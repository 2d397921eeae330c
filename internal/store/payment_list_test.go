package store_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/bankrail/bankrail/internal/dbtest"
	"github.com/bankrail/bankrail/internal/identity"
	"github.com/bankrail/bankrail/internal/payment"
	"github.com/bankrail/bankrail/internal/store"
)

// Lists merge one ordered index scan per visible customer: a PSP sees its
// own payments and its two merchants' in one order (time, then id, ties
// included), by page number and by cursor alike, with every filter; the
// total is exact past 1,000 matches too (issue 28 item 6), however
// unevenly the payments are spread in time.
func TestPaymentListMerge(t *testing.T) {
	t.Parallel()
	dbtest.EachMigrated(t, func(t *testing.T, db dbtest.DB) {
		s := open(t, db)
		ctx := context.Background()
		psp := identity.Customer{ID: "21000000-0000-4000-8000-000000000001", Name: "PSP", CreatedAt: t0}
		a := identity.Customer{ID: "21000000-0000-4000-8000-000000000002", Name: "A", ParentID: psp.ID, CreatedAt: t0}
		b := identity.Customer{ID: "21000000-0000-4000-8000-000000000003", Name: "B", ParentID: psp.ID, CreatedAt: t0}
		for _, c := range []identity.Customer{psp, a, b} {
			if err := s.CreateCustomer(ctx, c); err != nil {
				t.Fatal(err)
			}
		}
		// 40 payments spread over the three, every third second, so that
		// some share a time; the expected order is computed here.
		var all []payment.Payment
		owners := []string{a.ID, b.ID, psp.ID, a.ID}
		if err := s.InTx(ctx, func(tx *store.Tx) error {
			all = nil // a unit may run more than once (store.RunUnitsTwiceEnv)
			for i := range 40 {
				p := testPayment(fmt.Sprintf("41000000-0000-4000-8000-%012d", (i*7919)%1000), owners[i%4],
					fmt.Sprintf("M%09d", i), t0.Add(time.Duration(i/3)*time.Second))
				if i%5 == 0 {
					p.Request.Currency = "GBP"
				}
				all = append(all, p)
				if err := tx.Payments().Create(ctx, p); err != nil {
					return err
				}
			}
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		newestFirst := func(keep func(payment.Payment) bool) []string {
			var out []payment.Payment
			for _, p := range all {
				if keep(p) {
					out = append(out, p)
				}
			}
			slices.SortFunc(out, func(x, y payment.Payment) int {
				if c := y.CreatedAt.Compare(x.CreatedAt); c != 0 {
					return c
				}
				return strings.Compare(y.ID, x.ID)
			})
			ids := make([]string, len(out))
			for i, p := range out {
				ids[i] = p.ID
			}
			return ids
		}
		for _, tt := range []struct {
			name   string
			viewer string
			f      payment.ListFilter
			keep   func(payment.Payment) bool
		}{
			{"the PSP sees all", psp.ID, payment.ListFilter{}, func(payment.Payment) bool { return true }},
			{"a merchant sees its own", a.ID, payment.ListFilter{}, func(p payment.Payment) bool { return p.CustomerID == a.ID }},
			{"customerId", psp.ID, payment.ListFilter{CustomerID: b.ID}, func(p payment.Payment) bool { return p.CustomerID == b.ID }},
			{"currency", psp.ID, payment.ListFilter{Currency: "GBP"}, func(p payment.Payment) bool { return p.Request.Currency == "GBP" }},
			{"internalReference", psp.ID, payment.ListFilter{InternalReference: "ref-M000000004"},
				func(p payment.Payment) bool { return p.ShortCode == "M000000004" }},
			{"createdAt range", psp.ID, payment.ListFilter{CreatedFrom: new(t0.Add(3 * time.Second)), CreatedTo: new(t0.Add(9 * time.Second))},
				func(p payment.Payment) bool {
					return !p.CreatedAt.Before(t0.Add(3*time.Second)) && !p.CreatedAt.After(t0.Add(9*time.Second))
				}},
			{"a merchant's customerId filter on its sibling", a.ID, payment.ListFilter{CustomerID: b.ID}, func(payment.Payment) bool { return false }},
		} {
			want := newestFirst(tt.keep)
			for _, limit := range []int{1, 3, 7, 100} {
				var byPage, byCursor []string
				f := tt.f
				f.Limit = limit
				for f.Page = 1; ; f.Page++ {
					page, err := s.Payments().ListPage(ctx, tt.viewer, f)
					if err != nil {
						t.Fatal(err)
					}
					if page.Total != len(want) {
						t.Fatalf("%s: total %d, want %d", tt.name, page.Total, len(want))
					}
					for _, it := range page.Items {
						byPage = append(byPage, it.ID)
					}
					if page.Next == nil {
						break
					}
				}
				f.Page = 1
				for {
					page, err := s.Payments().ListPage(ctx, tt.viewer, f)
					if err != nil {
						t.Fatal(err)
					}
					for _, it := range page.Items {
						byCursor = append(byCursor, it.ID)
					}
					if page.Next == nil {
						break
					}
					f.After = page.Next
				}
				if !slices.Equal(byPage, want) || !slices.Equal(byCursor, want) {
					t.Fatalf("%s, limit %d:\nby page   %v\nby cursor %v\nwant      %v", tt.name, limit, byPage, byCursor, want)
				}
			}
		}

		// Past 1,000: 1,500 payments, the newest 1,000 one a second, the
		// older 500 one a day (the estimate this replaced, extrapolating the
		// newest 1,001's density back to the oldest, said millions). The
		// total is exact, with and without a range, and paging by page
		// number up to page-count reads every payment once.
		many := identity.Customer{ID: "21000000-0000-4000-8000-000000000004", Name: "Many", ParentID: psp.ID, CreatedAt: t0}
		if err := s.CreateCustomer(ctx, many); err != nil {
			t.Fatal(err)
		}
		at := func(i int) time.Time {
			if i < 1000 {
				return t0.Add(-time.Duration(i) * time.Second)
			}
			return t0.Add(-1000*time.Second - time.Duration(i-999)*24*time.Hour)
		}
		if err := s.InTx(ctx, func(tx *store.Tx) error {
			for i := range 1500 {
				p := testPayment(fmt.Sprintf("42000000-0000-4000-8000-%012d", i), many.ID, fmt.Sprintf("N%09d", i), at(i))
				if err := tx.Payments().Create(ctx, p); err != nil {
					return err
				}
			}
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		page, err := s.Payments().ListPage(ctx, many.ID, payment.ListFilter{Page: 1, Limit: 25})
		if err != nil || page.Total != 1500 || len(page.Items) != 25 || page.Next == nil {
			t.Fatalf("past 1,000: total %d, %d items, %v", page.Total, len(page.Items), err)
		}
		for _, r := range []struct {
			from, to *time.Time
			want     int
		}{{new(at(599)), &t0, 600}, {new(at(1199)), &t0, 1200}, {new(at(1499)), new(at(1000)), 500}, {new(at(1499)), nil, 1500}} {
			page, err = s.Payments().ListPage(ctx, many.ID, payment.ListFilter{Page: 1, Limit: 25, CreatedFrom: r.from, CreatedTo: r.to})
			if err != nil || page.Total != r.want {
				t.Fatalf("range %v..%v: total %d, want %d, %v", r.from, r.to, page.Total, r.want, err)
			}
		}
		seen := map[string]bool{}
		pages := 0
		for p := 1; p <= 15; p++ { // page-count at limit 100
			page, err = s.Payments().ListPage(ctx, psp.ID, payment.ListFilter{Page: p, Limit: 100, CustomerID: many.ID})
			if err != nil || page.Total != 1500 {
				t.Fatalf("page %d by page number: total %d, %v", p, page.Total, err)
			}
			pages = (page.Total + 99) / 100
			for _, it := range page.Items {
				seen[it.ID] = true
			}
		}
		if pages != 15 || len(seen) != 1500 {
			t.Fatalf("paging up to page-count %d read %d distinct payments of 1500", pages, len(seen))
		}
		page, err = s.Payments().ListPage(ctx, many.ID, payment.ListFilter{Page: 59, Limit: 25})
		if err != nil || len(page.Items) != 25 || page.Items[0].ID != "42000000-0000-4000-8000-000000001450" {
			t.Fatalf("page 59 past the bound: %d items, %v", len(page.Items), err)
		}
	})
}
