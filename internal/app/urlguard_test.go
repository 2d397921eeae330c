package app_test

import (
	"context"
	"strings"
	"testing"

	"github.com/bankrail/bankrail/internal/app"
	"github.com/bankrail/bankrail/internal/config"
	"github.com/bankrail/bankrail/internal/dbtest"
	"github.com/bankrail/bankrail/internal/identity"
)

// TestProductionSeedRefusesInternalNotificationURL: the seed file goes
// through the same netguard check as the API in production, so an
// application pointing at 127.0.0.1 does not start (it used to be stopped
// only by the dialer); the sandbox still takes it.
func TestProductionSeedRefusesInternalNotificationURL(t *testing.T) {
	t.Parallel()
	dbtest.EachMigrated(t, func(t *testing.T, db dbtest.DB) {
		cheap := identity.HashParams{Time: 1, Memory: 1024, Threads: 1}
		cfg := config.Default()
		cfg.DataDir, cfg.DatabaseURL, cfg.SeedFile = t.TempDir(), db.DatabaseURL, "testdata/seed.yaml" // corner-client: http://127.0.0.1:9000
		if db.Engine == dbtest.SQLite {
			cfg.DataDir = db.DataDir
		}
		cfg.Mode = config.Production
		a, err := app.New(context.Background(), cfg, quietLog(), app.Options{HashParams: &cheap})
		if err == nil {
			a.Close()
			t.Fatal("production started with a seeded notification URL on 127.0.0.1")
		}
		if !strings.Contains(err.Error(), "corner-client") || !strings.Contains(err.Error(), "loopback") {
			t.Fatalf("the error must name the application and the reason: %v", err)
		}

		cfg.Mode = config.Sandbox
		b, err := app.New(context.Background(), cfg, quietLog(), app.Options{HashParams: &cheap})
		if err != nil {
			t.Fatalf("the sandbox takes local receivers: %v", err)
		}
		b.Close()
	})
}

// TestProductionIdentityRefusesInternalNotificationURL checks the one
// entry that every way of setting an application's URL goes through.
func TestProductionIdentityRefusesInternalNotificationURL(t *testing.T) {
	t.Parallel()
	dbtest.EachMigrated(t, func(t *testing.T, db dbtest.DB) {
		cheap := identity.HashParams{Time: 1, Memory: 1024, Threads: 1}
		cfg := config.Default()
		cfg.DataDir, cfg.DatabaseURL, cfg.Mode = t.TempDir(), db.DatabaseURL, config.Production
		if db.Engine == dbtest.SQLite {
			cfg.DataDir = db.DataDir
		}
		a, err := app.New(context.Background(), cfg, quietLog(), app.Options{HashParams: &cheap})
		if err != nil {
			t.Fatal(err)
		}
		defer a.Close()
		ctx := context.Background()
		c, _, err := a.Identity().EnsureCustomer(ctx, identity.CustomerSpec{Name: "Guarded Shop"})
		if err != nil {
			t.Fatal(err)
		}
		for _, u := range []string{"http://127.0.0.1:9000/n", "http://10.0.0.8/n", "http://[::1]/n", "http://169.254.169.254/latest", "http://localhost/n"} {
			_, _, err := a.Identity().EnsureApplication(ctx, identity.ApplicationSpec{CustomerID: c.ID, ClientID: "guarded-client",
				ClientSecret: "guarded-client-secret", NotificationURL: u})
			if err == nil || !strings.Contains(err.Error(), "VALIDATION_FAILURE") {
				t.Errorf("%s: got %v, want VALIDATION_FAILURE", u, err)
			}
		}
		if _, _, err := a.Identity().EnsureApplication(ctx, identity.ApplicationSpec{CustomerID: c.ID, ClientID: "guarded-client",
			ClientSecret: "guarded-client-secret", NotificationURL: "https://203.0.113.10/hooks"}); err != nil {
			t.Fatalf("a public address: %v", err)
		}
	})
}
