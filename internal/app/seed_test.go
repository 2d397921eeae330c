package app_test

import (
	"context"
	"testing"

	"github.com/bankrail/bankrail/internal/app"
	"github.com/bankrail/bankrail/internal/config"
	"github.com/bankrail/bankrail/internal/dbtest"
	"github.com/bankrail/bankrail/internal/identity"
)

func TestSeedFileTwiceChangesNothing(t *testing.T) {
	t.Parallel()
	dbtest.EachMigrated(t, func(t *testing.T, db dbtest.DB) {
		cfg := config.Default()
		cfg.DataDir, cfg.DatabaseURL, cfg.SeedFile = t.TempDir(), db.DatabaseURL, "testdata/seed.yaml"
		if db.Engine == dbtest.SQLite {
			cfg.DataDir = db.DataDir
		}
		cheap := identity.HashParams{Time: 1, Memory: 1024, Threads: 1}
		start := func() *app.App {
			a, err := app.New(context.Background(), cfg, quietLog(), app.Options{HashParams: &cheap})
			if err != nil {
				t.Fatal(err)
			}
			return a
		}
		a := start()
		ctx := context.Background()
		owner, err := a.Store().GetUserByUsername(ctx, "owner@corner.test")
		if err != nil {
			t.Fatal(err)
		}
		shop, err := a.Store().GetCustomer(ctx, owner.CustomerID)
		if err != nil || shop.ParentID != "5e000000-0000-4000-8000-000000000001" {
			t.Fatalf("child applied without its parent: %+v, %v", shop, err)
		}
		appRec, _ := a.Store().GetApplicationByClientID(ctx, "corner-client")
		n, _ := a.Store().CountCustomers(ctx)
		a.Close()

		b := start()
		defer b.Close()
		owner2, _ := b.Store().GetUserByUsername(ctx, "owner@corner.test")
		appRec2, _ := b.Store().GetApplicationByClientID(ctx, "corner-client")
		n2, _ := b.Store().CountCustomers(ctx)
		if owner2 != owner || appRec2 != appRec || n2 != n || n != 2 {
			t.Fatalf("second start changed the seeded records:\n%+v\n%+v\n%+v\n%+v\ncustomers %d -> %d", owner, owner2, appRec, appRec2, n, n2)
		}
		if _, err := b.Store().GetUserByUsername(ctx, "merchant@demo.test"); err == nil {
			t.Fatal("a seeded sandbox must not get the demo merchant")
		}
	})
}
