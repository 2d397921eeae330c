package store_test

import (
	"context"
	"testing"

	"github.com/bankrail/bankrail/internal/dbtest"
	"github.com/bankrail/bankrail/internal/ledger"
	"github.com/bankrail/bankrail/internal/store"
)

// The hot queries are prepared at the first unit of work and answer
// through their statements as the SQL does, on the read pool and inside a
// unit of work.
func TestHotQueriesArePreparedAndAnswer(t *testing.T) {
	t.Parallel()
	dbtest.EachMigrated(t, func(t *testing.T, db dbtest.DB) {
		s := open(t, db)
		ctx := context.Background()
		_, shop, other := ledgerCustomers(t, s) // creating customers runs units of work
		eur1, eur2 := testAccount(t, s, shop, "EUR", 1), testAccount(t, s, shop, "EUR", 2)
		testAccount(t, s, shop, "GBP", 3)
		if !s.HotQueriesPrepared() {
			t.Fatal("the hot queries are not prepared after a unit of work")
		}
		check := func(where string, r ledger.Repository) {
			t.Helper()
			got, err := r.ConnectAccounts(ctx, shop, "EUR")
			if err != nil {
				t.Fatalf("%s: %v", where, err)
			}
			if len(got) != 2 || got[0].ID != eur1.ID || got[1].ID != eur2.ID {
				t.Fatalf("%s: ConnectAccounts = %+v, want %s then %s", where, got, eur1.ID, eur2.ID)
			}
			if none, err := r.ConnectAccounts(ctx, other, "EUR"); err != nil || len(none) != 0 {
				t.Fatalf("%s: another customer's accounts = %+v, %v; want none", where, none, err)
			}
		}
		check("read pool", s.Ledger())
		if err := s.InTx(ctx, func(tx *store.Tx) error { check("unit of work", tx.Ledger()); return nil }); err != nil {
			t.Fatal(err)
		}
	})
}
