package store_test

import (
	"context"
	"testing"
	"time"

	"github.com/bankrail/bankrail/internal/audit"
	"github.com/bankrail/bankrail/internal/auth"
	"github.com/bankrail/bankrail/internal/dbtest"
	"github.com/bankrail/bankrail/internal/errs"
	"github.com/bankrail/bankrail/internal/identity"
	"github.com/bankrail/bankrail/internal/payment"
)

// TestConsoleSessions: a console session is stored with the audit entry
// of its sign-in, read with its user as it is now, touched forward only,
// deleted (with the sign-out's entry), and swept once ended.
func TestConsoleSessions(t *testing.T) {
	t.Parallel()
	dbtest.EachMigrated(t, func(t *testing.T, db dbtest.DB) {
		s := open(t, db)
		ctx := context.Background()
		c := identity.Customer{ID: "60000000-0000-4000-8000-000000000001", Name: "Console", CreatedAt: t0}
		u := identity.User{ID: "60000000-0000-4000-8000-0000000000b1", CustomerID: c.ID, Username: "console-user", PasswordHash: "p",
			Role: identity.RoleMerchant, CreatedAt: t0, TokenGeneration: 3}
		if err := s.CreateCustomer(ctx, c); err != nil {
			t.Fatal(err)
		}
		if err := s.CreateUser(ctx, u); err != nil {
			t.Fatal(err)
		}
		se := auth.Session{IDHash: "hash-1", UserID: u.ID, Generation: 3, CSRFToken: "csrf-1", CreatedAt: t0, SeenAt: t0,
			ExpiresAt: t0.Add(12 * time.Hour)}
		actx, _ := audit.With(ctx, audit.Entry{OccurredAt: t0, CustomerID: c.ID, ActorType: audit.ActorUser, ActorID: u.ID,
			Action: "dashboard.sign_in", RequestID: "r1", IP: "127.0.0.1"})
		if err := s.CreateSession(actx, se); err != nil {
			t.Fatal(err)
		}
		if err := s.CreateSession(ctx, se); !errs.Is(err, errs.Conflict) {
			t.Fatalf("the same id twice: %v", err)
		}
		got, err := s.Session(ctx, "hash-1")
		if err != nil || got.Username != "console-user" || got.CustomerID != c.ID || got.Role != identity.RoleMerchant ||
			got.Generation != 3 || got.CSRFToken != "csrf-1" || !got.CreatedAt.Equal(t0) || !got.ExpiresAt.Equal(se.ExpiresAt) {
			t.Fatalf("session %+v %v", got, err)
		}
		if _, err := s.Session(ctx, "hash-unknown"); !errs.Is(err, errs.NotFound) {
			t.Fatalf("unknown session: %v", err)
		}
		if err := s.TouchSession(ctx, "hash-1", t0.Add(10*time.Minute)); err != nil {
			t.Fatal(err)
		}
		if err := s.TouchSession(ctx, "hash-1", t0.Add(5*time.Minute)); err != nil { // never back
			t.Fatal(err)
		}
		if got, _ := s.Session(ctx, "hash-1"); !got.SeenAt.Equal(t0.Add(10 * time.Minute)) {
			t.Fatalf("seen at %s", got.SeenAt)
		}
		// Sweeping: an idle one and one past its end go; a live one stays.
		for i, times := range [][2]time.Time{{t0, t0.Add(time.Hour)}, {t0.Add(50 * time.Minute), t0.Add(12 * time.Hour)}} {
			other := se
			other.IDHash, other.SeenAt, other.ExpiresAt = "hash-"+string(rune('a'+i)), times[0], times[1]
			if err := s.CreateSession(ctx, other); err != nil {
				t.Fatal(err)
			}
		}
		now := t0.Add(61 * time.Minute)
		n, err := s.DeleteSessionsBefore(ctx, now, now.Add(-30*time.Minute))
		if err != nil || n != 2 { // hash-1 (idle since 0:10) and hash-a (ended at 1:00)
			t.Fatalf("swept %d: %v", n, err)
		}
		if _, err := s.Session(ctx, "hash-b"); err != nil {
			t.Fatalf("the live session was swept: %v", err)
		}
		dctx, _ := audit.With(ctx, audit.Entry{OccurredAt: t0, CustomerID: c.ID, ActorType: audit.ActorUser, ActorID: u.ID,
			Action: "dashboard.sign_out"})
		if err := s.DeleteSession(dctx, "hash-b"); err != nil {
			t.Fatal(err)
		}
		if _, err := s.Session(ctx, "hash-b"); !errs.Is(err, errs.NotFound) {
			t.Fatalf("after sign-out: %v", err)
		}
		_, read := s.Pools()
		var actions int
		if err := read.QueryRowContext(ctx, `SELECT COUNT(*) FROM audit_log WHERE customer_id = $1 AND action IN ('dashboard.sign_in', 'dashboard.sign_out')`,
			c.ID).Scan(&actions); err != nil || actions != 2 {
			t.Fatalf("audit entries %d: %v", actions, err)
		}
	})
}

// TestPaymentsPerDay counts the payments a viewer may see by day and
// status within the period.
func TestPaymentsPerDay(t *testing.T) {
	t.Parallel()
	dbtest.EachMigrated(t, func(t *testing.T, db dbtest.DB) {
		s := open(t, db)
		ctx := context.Background()
		psp := identity.Customer{ID: "61000000-0000-4000-8000-000000000001", Name: "Chart PSP", CreatedAt: t0}
		shop := identity.Customer{ID: "61000000-0000-4000-8000-000000000002", Name: "Chart Shop", ParentID: psp.ID, CreatedAt: t0}
		other := identity.Customer{ID: "61000000-0000-4000-8000-000000000003", Name: "Chart Other", CreatedAt: t0}
		for _, c := range []identity.Customer{psp, shop, other} {
			if err := s.CreateCustomer(ctx, c); err != nil {
				t.Fatal(err)
			}
		}
		day := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
		for i, p := range []struct {
			customer string
			at       time.Time
		}{
			{shop.ID, day.Add(-time.Second)},   // before the period
			{shop.ID, day},                     // day 0
			{shop.ID, day.Add(23 * time.Hour)}, // day 0
			{shop.ID, day.Add(49 * time.Hour)}, // day 2
			{other.ID, day.Add(time.Hour)},     // not visible
			{shop.ID, day.Add(72 * time.Hour)}, // after the period
		} {
			code := "CHART0000" + string(rune('a'+i))
			if err := s.Payments().Create(ctx, testPayment("61000000-0000-4000-8000-00000000010"+string(rune('a'+i)), p.customer, code, p.at)); err != nil {
				t.Fatal(err)
			}
		}
		type key struct {
			day    time.Time
			status string
		}
		got := map[key]int{}
		err := s.PaymentsPerDay(ctx, psp.ID, day, day.Add(72*time.Hour), func(d time.Time, status string, n int) { got[key{d, status}] += n })
		if err != nil {
			t.Fatal(err)
		}
		want := map[key]int{{day, string(payment.StatusNew)}: 2, {day.Add(48 * time.Hour), string(payment.StatusNew)}: 1}
		if len(got) != len(want) || got[key{day, "NEW_PAYMENT"}] != 2 || got[key{day.Add(48 * time.Hour), "NEW_PAYMENT"}] != 1 {
			t.Fatalf("per day %v, want %v", got, want)
		}
	})
}
