package store_test

import (
	"context"
	"testing"

	"github.com/bankrail/bankrail/internal/audit"
	"github.com/bankrail/bankrail/internal/dbtest"
	"github.com/bankrail/bankrail/internal/errs"
	"github.com/bankrail/bankrail/internal/identity"
	"github.com/bankrail/bankrail/internal/store"
)

// In the test mode of store.RunUnitsTwiceEnv every unit of work runs
// twice: the first run's writes and what it asked to run once committed
// are rolled back, the second commits; state a unit keeps outside the
// database shows both runs.
func TestRunUnitsTwiceRehearsesEachUnit(t *testing.T) {
	t.Setenv(store.RunUnitsTwiceEnv, "1") // not parallel: it sets the environment
	dbtest.EachMigrated(t, func(t *testing.T, db dbtest.DB) {
		s := open(t, db)
		ctx := context.Background()
		shop := identity.Customer{ID: "22000000-0000-4000-8000-000000000008", Name: "Shop", CreatedAt: t0}
		if err := s.CreateCustomer(ctx, shop); err != nil {
			t.Fatal(err)
		}
		uctx, pending := audit.With(ctx, audit.Entry{OccurredAt: t0, CustomerID: shop.ID, ActorType: audit.ActorUser,
			ActorID: "u", Action: "POST /payments", RequestID: "twice"})
		p := testPayment("48000000-0000-4000-8000-000000000001", shop.ID, "TWICE00001", t0)
		var found []bool     // whether each run found the payment already there
		var created []string // state outside the database: what a unit must not keep
		err := s.InTx(uctx, func(tx *store.Tx) error {
			_, err := tx.Payments().Get(uctx, shop.ID, p.ID)
			found = append(found, err == nil)
			created = append(created, p.ID)
			return tx.Payments().Create(uctx, p)
		})
		if err != nil {
			t.Fatal(err)
		}
		if len(found) != 2 || found[0] || found[1] {
			t.Errorf("runs found the payment %v; want two runs, neither seeing it (the first rolled back)", found)
		}
		if len(created) != 2 {
			t.Errorf("the unit's own slice has %d entries; want 2, the mode's point (a unit must not keep state across runs)", len(created))
		}
		if _, err := s.Payments().Get(ctx, shop.ID, p.ID); err != nil {
			t.Errorf("the payment after the commit: %v", err)
		}
		if _, waiting := pending.Entry(); waiting {
			t.Error("the audit entry is still waiting: the second run's onCommit did not run")
		}
		write, _ := s.Pools()
		var entries int
		if err := write.QueryRowContext(ctx, `SELECT COUNT(*) FROM audit_log WHERE customer_id = $1`, shop.ID).Scan(&entries); err != nil || entries != 1 {
			t.Errorf("%d audit entries (%v); want 1", entries, err)
		}
		// A unit that fails fails the same in both runs and leaves nothing.
		if err := s.InTx(ctx, func(tx *store.Tx) error { return tx.Payments().Create(ctx, p) }); !errs.Is(err, errs.Conflict) {
			t.Errorf("creating it again: %v; want CONFLICT", err)
		}
	})
}
