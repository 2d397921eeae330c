package app_test

import (
	"bytes"
	"context"
	"log/slog"
	"strings"
	"sync"
	"testing"

	"github.com/bankrail/bankrail/internal/app"
	"github.com/bankrail/bankrail/internal/config"
	"github.com/bankrail/bankrail/internal/dbtest"
	"github.com/bankrail/bankrail/internal/errs"
	"github.com/bankrail/bankrail/internal/identity"
	"github.com/bankrail/bankrail/internal/seed"
)

// logBuffer is a log destination safe for the app's goroutines.
type logBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *logBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *logBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// seedConfig is a configuration on db in mode with the seed file path.
func seedConfig(t *testing.T, db dbtest.DB, mode config.Mode, path string) config.Config {
	t.Helper()
	cfg := config.Default()
	cfg.DataDir, cfg.DatabaseURL, cfg.SeedFile, cfg.Mode = t.TempDir(), db.DatabaseURL, path, mode
	if db.Engine == dbtest.SQLite {
		cfg.DataDir = db.DataDir
	}
	return cfg
}

var cheapHash = identity.HashParams{Time: 1, Memory: 1024, Threads: 1}

// TestSeedIsAppliedAllOrNothing: a seed file refused part way through
// leaves nothing of it in the database (it used to leave the customers
// applied before the refused one), so that a corrected file starts cleanly.
func TestSeedIsAppliedAllOrNothing(t *testing.T) {
	t.Parallel()
	dbtest.EachMigrated(t, func(t *testing.T, db dbtest.DB) {
		ctx := context.Background()
		for _, mode := range []config.Mode{config.Sandbox, config.Production} {
			cfg := seedConfig(t, db, mode, "testdata/seed_refused.yaml")
			a, err := app.New(ctx, cfg, quietLog(), app.Options{HashParams: &cheapHash})
			if err == nil {
				a.Close()
				t.Fatalf("%s started with a refused seed", mode)
			}
			if !strings.Contains(err.Error(), "second-client") || !strings.Contains(err.Error(), "nothing of the seed file was applied") {
				t.Fatalf("%s: the error must name the refused application and say nothing was applied: %v", mode, err)
			}
			b, err := app.Admin(ctx, cfg, quietLog())
			if err != nil {
				t.Fatal(err)
			}
			n, err := b.Store().CountCustomers(ctx)
			_, userErr := b.Store().GetUserByUsername(ctx, "owner@first.test")
			b.Close()
			if err != nil || n != 0 || !errs.Is(userErr, errs.NotFound) {
				t.Fatalf("%s: a refused seed left %d customers (%v), user: %v", mode, n, err, userErr)
			}
		}
	})
}

// TestProductionStartsWithTheExampleSeed: the production seed example of
// the docs starts a production instance (its notification URL is public;
// whether its host resolves here does not matter), and a second start with
// it changes nothing.
func TestProductionStartsWithTheExampleSeed(t *testing.T) {
	t.Parallel()
	dbtest.EachMigrated(t, func(t *testing.T, db dbtest.DB) {
		ctx := context.Background()
		cfg := seedConfig(t, db, config.Production, "../../examples/production-seed.yaml")
		cfg.PublicURL = "https://pay.example.com"
		for range 2 {
			var logs logBuffer
			a, err := app.New(ctx, cfg, slog.New(slog.NewTextHandler(&logs, nil)), app.Options{HashParams: &cheapHash})
			if err != nil {
				t.Fatalf("production with the example seed: %v", err)
			}
			owner, err := a.Store().GetUserByUsername(ctx, "owner@shop.example.com")
			shopApp, appErr := a.Store().GetApplicationByClientID(ctx, "example-shop")
			a.Close()
			if err != nil || appErr != nil || owner.CustomerID != shopApp.CustomerID {
				t.Fatalf("the example's shop: %+v %v / %+v %v", owner, err, shopApp, appErr)
			}
			if strings.Contains(logs.String(), "level=WARN msg=production:") {
				t.Fatalf("an https instance with its own issuer and no demo credentials warns:\n%s", logs.String())
			}
		}
	})
}

// TestProductionSeedAcceptsAHostThatDoesNotResolveYet: start-up does not
// depend on merchants' DNS; the address is checked at each delivery.
func TestProductionSeedAcceptsAHostThatDoesNotResolveYet(t *testing.T) {
	t.Parallel()
	dbtest.EachMigrated(t, func(t *testing.T, db dbtest.DB) {
		ctx := context.Background()
		cfg := seedConfig(t, db, config.Production, "testdata/seed_unresolved.yaml")
		cfg.PublicURL = "https://pay.example.com"
		var logs logBuffer
		a, err := app.New(ctx, cfg, slog.New(slog.NewTextHandler(&logs, nil)), app.Options{HashParams: &cheapHash})
		if err != nil {
			t.Fatalf("a host that does not resolve at boot: %v", err)
		}
		defer a.Close()
		got, err := a.Store().GetApplicationByClientID(ctx, "future-client")
		if err != nil || got.NotificationURL != "https://hooks.future-shop.invalid/bankrail" {
			t.Fatalf("seeded application: %+v %v", got, err)
		}
		if !strings.Contains(logs.String(), "does not resolve now") {
			t.Fatalf("no warning about the host:\n%s", logs.String())
		}
	})
}

// TestProductionWarnsAtStart: a plain http public URL, the default issuer
// and the demo merchant's published credentials are each warned about.
func TestProductionWarnsAtStart(t *testing.T) {
	t.Parallel()
	dbtest.EachMigrated(t, func(t *testing.T, db dbtest.DB) {
		cfg := seedConfig(t, db, config.Production, "")
		cfg.PublicURL, cfg.Issuer = "http://pay.example.com", config.DefaultIssuer
		demo := seed.Demo("")
		var logs logBuffer
		a, err := app.New(context.Background(), cfg, slog.New(slog.NewTextHandler(&logs, nil)),
			app.Options{HashParams: &cheapHash, Seed: &demo})
		if err != nil {
			t.Fatal(err)
		}
		a.Close()
		for _, want := range []string{"--public-url is plain http", "the token issuer is the default", "demo user signs in with its published password",
			"has the demo's published client secret"} {
			if !strings.Contains(logs.String(), want) {
				t.Errorf("no warning %q:\n%s", want, logs.String())
			}
		}
	})
}
