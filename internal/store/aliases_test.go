package store_test

import (
	"context"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/bankrail/bankrail/internal/alias"
	"github.com/bankrail/bankrail/internal/dbtest"
	"github.com/bankrail/bankrail/internal/errs"
	"github.com/bankrail/bankrail/internal/iso"
	"github.com/bankrail/bankrail/internal/paging"
	"github.com/bankrail/bankrail/internal/store"
)

// The alias repository: a batch is saved only over the completed count it
// started from and only while its order is PROCESSING; an (order, seq) or
// an IBAN taken is CONFLICT with nothing written; reads follow the
// hierarchy; Taken sees aliases and accounts.
func TestAliasRepository(t *testing.T) {
	t.Parallel()
	dbtest.EachMigrated(t, func(t *testing.T, db dbtest.DB) {
		s := open(t, db)
		ctx := context.Background()
		psp, shop, other := ledgerCustomers(t, s)
		a := testAccount(t, s, shop, "EUR", 1)
		o := alias.Order{ID: uuid.NewString(), AccountID: a.ID, CustomerID: shop, Status: alias.Processing, Requested: 3, CreatedAt: t0, UpdatedAt: t0}
		if err := s.InTx(ctx, func(tx *store.Tx) error { return tx.Aliases().CreateOrder(ctx, o) }); err != nil {
			t.Fatal(err)
		}
		newAlias := func(seq int, iban string) alias.Alias {
			return alias.Alias{ID: uuid.NewString(), AccountID: a.ID, CustomerID: shop, OrderID: o.ID, Seq: seq, IBAN: iban, Active: true,
				CreatedAt: t0.Add(time.Duration(seq) * time.Second), UpdatedAt: t0}
		}
		save := func(o alias.Order, from int, batch ...alias.Alias) error {
			return s.InTx(ctx, func(tx *store.Tx) error {
				if _, err := tx.Aliases().LockOrder(ctx, o.ID); err != nil {
					return err
				}
				return tx.Aliases().Save(ctx, o, from, batch)
			})
		}
		ibans := []string{iso.MakeIBAN("DE", "100100100000000001"), iso.MakeIBAN("DE", "100100100000000002"), iso.MakeIBAN("DE", "100100100000000003")}
		first := o
		first.Completed = 2
		if err := save(first, 0, newAlias(0, ibans[0]), newAlias(1, ibans[1])); err != nil {
			t.Fatal(err)
		}
		count := func() int {
			_, total, err := paging.Unpack(s.Aliases().List(ctx, shop, alias.Filter{OrderID: o.ID, Page: 1, Limit: 10}))
			if err != nil {
				t.Fatal(err)
			}
			return total
		}
		// The same batch again (a second worker that read completed 0): refused, nothing written.
		if err := save(first, 0, newAlias(2, ibans[2])); !errs.Is(err, errs.Conflict) {
			t.Fatalf("a stale batch: %v", err)
		}
		// A place or an IBAN already taken.
		last := o
		last.Completed, last.Status, last.CompletedAt = 3, alias.Completed, t0
		if err := save(last, 2, newAlias(1, ibans[2])); !errs.Is(err, errs.Conflict) {
			t.Fatalf("a place taken: %v", err)
		}
		if err := save(last, 2, newAlias(2, ibans[0])); !errs.Is(err, errs.Conflict) {
			t.Fatalf("an IBAN taken: %v", err)
		}
		if n := count(); n != 2 {
			t.Fatalf("%d aliases after the refusals, want 2", n)
		}
		if err := save(last, 2, newAlias(2, ibans[2])); err != nil {
			t.Fatal(err)
		}
		// A COMPLETED order takes no more.
		if err := save(last, 3); !errs.Is(err, errs.Conflict) {
			t.Fatalf("a batch of a COMPLETED order: %v", err)
		}
		got, err := s.Aliases().Order(ctx, psp, o.ID)
		if err != nil || got.Status != alias.Completed || got.Completed != 3 || !got.CompletedAt.Equal(t0) {
			t.Fatalf("order %+v %v", got, err)
		}
		if _, err := s.Aliases().Order(ctx, other, o.ID); !errs.Is(err, errs.NotFound) {
			t.Fatalf("another customer's order: %v", err)
		}
		list, total, err := paging.Unpack(s.Aliases().List(ctx, psp, alias.Filter{AccountID: a.ID, Page: 2, Limit: 2}))
		if err != nil || total != 3 || len(list) != 1 || list[0].Seq != 0 {
			t.Fatalf("page 2 %+v %d %v", list, total, err)
		}
		if list, total, _ := paging.Unpack(s.Aliases().List(ctx, other, alias.Filter{})); total != 0 || len(list) != 0 {
			t.Fatalf("another customer lists %+v", list)
		}
		taken, err := s.Aliases().Taken(ctx, []string{ibans[1], a.IBAN, iso.MakeIBAN("DE", "100100100000000004")})
		if err != nil || len(taken) != 2 || !taken[ibans[1]] || !taken[a.IBAN] {
			t.Fatalf("taken %v %v", taken, err)
		}
		al, err := s.Aliases().ByIBAN(ctx, ibans[2])
		if err != nil || al.Seq != 2 || !al.Active {
			t.Fatalf("by IBAN %+v %v", al, err)
		}
		al.Active, al.UpdatedAt = false, t0.Add(time.Hour)
		if err := s.InTx(ctx, func(tx *store.Tx) error { return tx.Aliases().SetActive(ctx, al) }); err != nil {
			t.Fatal(err)
		}
		var acct string
		var active bool
		err = s.InTx(ctx, func(tx *store.Tx) error {
			var err error
			acct, active, err = tx.AliasAccounts().AccountOfAlias(ctx, ibans[2])
			return err
		})
		if err != nil || acct != a.ID || active {
			t.Fatalf("account of the alias %s %v %v", acct, active, err)
		}
		if _, err := s.Aliases().Alias(ctx, other, al.ID); !errs.Is(err, errs.NotFound) {
			t.Fatalf("another customer's alias: %v", err)
		}
	})
}
