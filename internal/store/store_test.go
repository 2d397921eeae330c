package store_test

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/bankrail/bankrail/internal/auth"
	"github.com/bankrail/bankrail/internal/clock"
	"github.com/bankrail/bankrail/internal/dbtest"
	"github.com/bankrail/bankrail/internal/errs"
	"github.com/bankrail/bankrail/internal/identity"
	"github.com/bankrail/bankrail/internal/store"
)

// open returns a migrated store on db, closed when the test ends.
func open(t *testing.T, db dbtest.DB) *store.Store {
	t.Helper()
	ctx := context.Background()
	s, err := store.Open(ctx, store.Options{DatabaseURL: db.DatabaseURL, SQLitePath: db.SQLitePath},
		slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		t.Fatalf("open store: %v", err)
	}
	t.Cleanup(func() { s.Close() })
	if err := s.Migrate(ctx); err != nil {
		t.Fatalf("migrate: %v", err)
	}
	return s
}

// openAtVersion opens a store on db migrated up to version only (for the
// tests of a migration's data move), closed when the test ends.
func openAtVersion(t *testing.T, db dbtest.DB, version int64) *store.Store {
	t.Helper()
	ctx := context.Background()
	s, err := store.Open(ctx, store.Options{DatabaseURL: db.DatabaseURL, SQLitePath: db.SQLitePath},
		slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	if err := s.MigrateTo(ctx, version); err != nil {
		t.Fatalf("migrate to %d: %v", version, err)
	}
	return s
}

var t0 = time.Date(2026, 3, 1, 12, 0, 0, 123456000, time.UTC)

func TestStoreConformance(t *testing.T) {
	t.Parallel()
	dbtest.Each(t, func(t *testing.T, db dbtest.DB) {
		s := open(t, db)
		t.Run("migrate twice is a no-op", func(t *testing.T) {
			if err := s.Migrate(context.Background()); err != nil {
				t.Fatal(err)
			}
		})
		t.Run("customers tree", func(t *testing.T) { testCustomerTree(t, s) })
		t.Run("applications and users", func(t *testing.T) { testApplicationsAndUsers(t, s) })
		t.Run("signing keys", func(t *testing.T) { testSigningKeys(t, s) })
		t.Run("refresh tokens", func(t *testing.T) { testRefreshTokens(t, s) })
		t.Run("login throttle", func(t *testing.T) { testLoginThrottle(t, s) })
		t.Run("sandbox clock", func(t *testing.T) { testClock(t, s) })
	})
}

func testCustomerTree(t *testing.T, s *store.Store) {
	ctx := context.Background()
	psp := identity.Customer{ID: "10000000-0000-4000-8000-000000000001", Name: "PSP", CreatedAt: t0}
	shop := identity.Customer{ID: "10000000-0000-4000-8000-000000000002", Name: "Shop", ParentID: psp.ID, CreatedAt: t0}
	sub := identity.Customer{ID: "10000000-0000-4000-8000-000000000003", Name: "Sub", ParentID: shop.ID, CreatedAt: t0}
	other := identity.Customer{ID: "10000000-0000-4000-8000-000000000004", Name: "Other", CreatedAt: t0}
	for _, c := range []identity.Customer{psp, shop, sub, other} {
		if err := s.CreateCustomer(ctx, c); err != nil {
			t.Fatalf("create %s: %v", c.Name, err)
		}
	}
	if err := s.CreateCustomer(ctx, psp); !errs.Is(err, errs.Conflict) {
		t.Fatalf("duplicate customer: got %v, want CONFLICT", err)
	}
	orphan := identity.Customer{ID: "10000000-0000-4000-8000-000000000009", Name: "Orphan", ParentID: "10000000-0000-4000-8000-00000000dead", CreatedAt: t0}
	if err := s.CreateCustomer(ctx, orphan); !errs.Is(err, errs.NotFound) {
		t.Fatalf("customer with unknown parent: got %v, want RESOURCE_NOT_FOUND", err)
	}
	tests := []struct {
		anc, desc string
		want      bool
	}{
		{psp.ID, psp.ID, true}, {psp.ID, shop.ID, true}, {psp.ID, sub.ID, true}, {shop.ID, sub.ID, true},
		{sub.ID, psp.ID, false}, {shop.ID, psp.ID, false}, {other.ID, shop.ID, false}, {psp.ID, other.ID, false},
	}
	for _, tt := range tests {
		got, err := s.IsDescendant(ctx, tt.anc, tt.desc)
		if err != nil || got != tt.want {
			t.Errorf("IsDescendant(%s, %s) = %v, %v; want %v", tt.anc[len(tt.anc)-1:], tt.desc[len(tt.desc)-1:], got, err, tt.want)
		}
	}
	got, err := s.GetCustomer(ctx, sub.ID)
	if err != nil || got.ParentID != shop.ID || !got.CreatedAt.Equal(t0) || got.Name != "Sub" {
		t.Fatalf("GetCustomer = %+v, %v", got, err)
	}
	if _, err := s.GetCustomer(ctx, "10000000-0000-4000-8000-00000000beef"); !errs.Is(err, errs.NotFound) {
		t.Fatalf("missing customer: %v", err)
	}
	if c, err := s.FindCustomerByName(ctx, "Shop"); err != nil || c.ID != shop.ID {
		t.Fatalf("FindCustomerByName = %+v, %v", c, err)
	}
	shop.Name = "Shop Renamed"
	if err := s.UpdateCustomer(ctx, shop); err != nil {
		t.Fatal(err)
	}
	if n, err := s.CountCustomers(ctx); err != nil || n != 4 {
		t.Fatalf("CountCustomers = %d, %v", n, err)
	}
}

func testApplicationsAndUsers(t *testing.T, s *store.Store) {
	ctx := context.Background()
	c := identity.Customer{ID: "20000000-0000-4000-8000-000000000001", Name: "Apps", CreatedAt: t0}
	if err := s.CreateCustomer(ctx, c); err != nil {
		t.Fatal(err)
	}
	app := identity.Application{ID: "20000000-0000-4000-8000-0000000000a1", CustomerID: c.ID, ClientID: "client-1",
		ClientSecretHash: "h", NotificationURL: "http://x", NotificationSecret: "n", CreatedAt: t0}
	if err := s.CreateApplication(ctx, app); err != nil {
		t.Fatal(err)
	}
	dup := app
	dup.ID = "20000000-0000-4000-8000-0000000000a2"
	if err := s.CreateApplication(ctx, dup); !errs.Is(err, errs.Conflict) {
		t.Fatalf("duplicate client id: %v", err)
	}
	app.NotificationURL = "http://y"
	if err := s.UpdateApplication(ctx, app); err != nil {
		t.Fatal(err)
	}
	got, err := s.GetApplicationByClientID(ctx, "client-1")
	if err != nil || got != app {
		t.Fatalf("GetApplicationByClientID = %+v, %v", got, err)
	}
	if _, err := s.GetApplicationByClientID(ctx, "nobody"); !errs.Is(err, errs.NotFound) {
		t.Fatalf("missing application: %v", err)
	}
	u := identity.User{ID: "20000000-0000-4000-8000-0000000000b1", CustomerID: c.ID, Username: "ann@shop.test",
		PasswordHash: "p", Role: identity.RoleMerchant, CreatedAt: t0}
	if err := s.CreateUser(ctx, u); err != nil {
		t.Fatal(err)
	}
	u.Role = identity.RoleReadOnly
	u.TokenGeneration, u.DisabledAt = 2, t0.Add(time.Minute)
	if err := s.UpdateUser(ctx, u); err != nil {
		t.Fatal(err)
	}
	if got, err := s.GetUserByUsername(ctx, u.Username); err != nil || got != u {
		t.Fatalf("GetUserByUsername = %+v, %v", got, err)
	}
	ghost := u
	ghost.ID = "20000000-0000-4000-8000-0000000000b9"
	if err := s.UpdateUser(ctx, ghost); !errs.Is(err, errs.NotFound) {
		t.Fatalf("update of missing user: %v", err)
	}
}

func testSigningKeys(t *testing.T, s *store.Store) {
	ctx := context.Background()
	for i, kid := range []string{"k1", "k2", "k3"} {
		k := auth.SigningKey{KID: kid, Algorithm: "EdDSA", PrivateKey: "x", CreatedAt: t0.Add(time.Duration(i) * time.Hour)}
		if err := s.CreateSigningKey(ctx, k); err != nil {
			t.Fatal(err)
		}
	}
	n, err := s.RetireSigningKeys(ctx, t0.Add(90*time.Minute), t0.Add(2*time.Hour))
	if err != nil || n != 2 {
		t.Fatalf("RetireSigningKeys = %d, %v", n, err)
	}
	keys, err := s.ListSigningKeys(ctx)
	if err != nil || len(keys) != 1 || keys[0].KID != "k3" {
		t.Fatalf("ListSigningKeys = %+v, %v", keys, err)
	}
}

func testRefreshTokens(t *testing.T, s *store.Store) {
	ctx := context.Background()
	c := identity.Customer{ID: "30000000-0000-4000-8000-000000000001", Name: "Tokens", CreatedAt: t0}
	app := identity.Application{ID: "30000000-0000-4000-8000-0000000000a1", CustomerID: c.ID, ClientID: "tok-client", ClientSecretHash: "h", NotificationSecret: "n", CreatedAt: t0}
	u := identity.User{ID: "30000000-0000-4000-8000-0000000000b1", CustomerID: c.ID, Username: "tok-user", PasswordHash: "p", Role: identity.RoleMerchant, CreatedAt: t0}
	if err := s.CreateCustomer(ctx, c); err != nil {
		t.Fatal(err)
	}
	if err := s.CreateApplication(ctx, app); err != nil {
		t.Fatal(err)
	}
	if err := s.CreateUser(ctx, u); err != nil {
		t.Fatal(err)
	}
	tok := func(id, hash string) auth.RefreshToken {
		return auth.RefreshToken{ID: id, FamilyID: "fam", TokenHash: hash, UserID: u.ID, ApplicationID: app.ID, CreatedAt: t0, ExpiresAt: t0.Add(24 * time.Hour)}
	}
	if err := s.CreateRefreshToken(ctx, tok("r1", "h1")); err != nil {
		t.Fatal(err)
	}
	// Ten concurrent spends of one token: exactly one wins.
	var wins atomic.Int32
	var wg sync.WaitGroup
	for i := range 10 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			next := tok("r2-"+string(rune('a'+i)), "h2-"+string(rune('a'+i)))
			err := s.SpendRefreshToken(ctx, "r1", t0.Add(time.Minute), next)
			switch {
			case err == nil:
				wins.Add(1)
			case !errs.Is(err, errs.Conflict):
				t.Errorf("spend: %v", err)
			}
		}()
	}
	wg.Wait()
	if wins.Load() != 1 {
		t.Fatalf("%d concurrent spends succeeded, want 1", wins.Load())
	}
	got, err := s.GetRefreshToken(ctx, "h1")
	if err != nil || !got.UsedAt.Equal(t0.Add(time.Minute)) || !got.RevokedAt.IsZero() || !got.ExpiresAt.Equal(t0.Add(24*time.Hour)) {
		t.Fatalf("GetRefreshToken = %+v, %v", got, err)
	}
	if err := s.RevokeRefreshFamily(ctx, "fam", t0.Add(2*time.Minute)); err != nil {
		t.Fatal(err)
	}
	if got, _ := s.GetRefreshToken(ctx, "h1"); got.RevokedAt.IsZero() {
		t.Fatal("family revocation missed the spent token")
	}
	if _, err := s.GetRefreshToken(ctx, "nope"); !errs.Is(err, errs.NotFound) {
		t.Fatalf("missing token: %v", err)
	}
}

func testLoginThrottle(t *testing.T, s *store.Store) {
	ctx := context.Background()
	window := 15 * time.Minute
	for i := 1; i <= 3; i++ {
		n, err := s.RecordLoginFailure(ctx, "user:a", t0.Add(time.Duration(i)*time.Minute), window)
		if err != nil || n != i {
			t.Fatalf("failure %d counted as %d, %v", i, n, err)
		}
	}
	// After the window a new count starts.
	if n, err := s.RecordLoginFailure(ctx, "user:a", t0.Add(20*time.Minute), window); err != nil || n != 1 {
		t.Fatalf("failure after window counted as %d, %v", n, err)
	}
	if until, err := s.LoginLockedUntil(ctx, []string{"user:a", "addr:x"}); err != nil || !until.IsZero() {
		t.Fatalf("unlocked key reports %v, %v", until, err)
	}
	if err := s.LockLogin(ctx, "user:a", t0.Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	if until, err := s.LoginLockedUntil(ctx, []string{"addr:x", "user:a"}); err != nil || !until.Equal(t0.Add(time.Hour)) {
		t.Fatalf("locked key reports %v, %v", until, err)
	}
	if err := s.ClearLoginFailures(ctx, "user:a"); err != nil {
		t.Fatal(err)
	}
	if until, _ := s.LoginLockedUntil(ctx, []string{"user:a"}); !until.IsZero() {
		t.Fatal("clear did not unlock")
	}
}

// testClock runs after testCustomerTree: PSP (1) > Shop (2) > Sub (3), and
// Other (4) on its own.
func testClock(t *testing.T, s *store.Store) {
	ctx := context.Background()
	const psp, sub, other = "10000000-0000-4000-8000-000000000001", "10000000-0000-4000-8000-000000000003",
		"10000000-0000-4000-8000-000000000004"
	clocks := s.TenantClocks()
	if top, off, err := clocks.TenantClock(ctx, sub); err != nil || top != psp || off != 0 {
		t.Fatalf("TenantClock(sub) = %s, %s, %v; want the PSP at 0", top, off, err)
	}
	if _, _, err := clocks.TenantClock(ctx, "10000000-0000-4000-8000-00000000dead"); !errs.Is(err, errs.NotFound) {
		t.Fatalf("TenantClock(unknown) = %v, want RESOURCE_NOT_FOUND", err)
	}
	for _, want := range []time.Duration{90 * time.Second, 180 * time.Second} {
		if got, err := clocks.AdvanceTenantClock(ctx, psp, 90*time.Second, time.Hour); err != nil || got != want {
			t.Fatalf("AdvanceTenantClock = %s, %v; want %s", got, err, want)
		}
	}
	if _, err := clocks.AdvanceTenantClock(ctx, psp, time.Hour, time.Hour); !errors.Is(err, clock.ErrOffsetBound) {
		t.Fatalf("advance past the bound: %v, want ErrOffsetBound", err)
	}
	if _, err := clocks.AdvanceTenantClock(ctx, other, 2*time.Hour, time.Hour); !errors.Is(err, clock.ErrOffsetBound) {
		t.Fatalf("first advance past the bound: %v, want ErrOffsetBound", err)
	}
	if top, off, err := clocks.TenantClock(ctx, sub); err != nil || top != psp || off != 180*time.Second {
		t.Fatalf("TenantClock(sub) = %s, %s, %v; want the PSP's 3m0s", top, off, err)
	}
	if _, off, err := clocks.TenantClock(ctx, other); err != nil || off != 0 {
		t.Fatalf("TenantClock(other) = %s, %v; another tenant must not move", off, err)
	}
	if err := clocks.ResetTenantClock(ctx, psp); err != nil {
		t.Fatal(err)
	}
	if _, off, err := clocks.TenantClock(ctx, sub); err != nil || off != 0 {
		t.Fatalf("after reset: %s, %v", off, err)
	}
}
