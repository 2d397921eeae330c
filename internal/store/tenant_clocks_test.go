package store_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/bankrail/bankrail/internal/clock"
	"github.com/bankrail/bankrail/internal/dbtest"
	"github.com/bankrail/bankrail/internal/identity"
	"github.com/bankrail/bankrail/internal/job"
	"github.com/bankrail/bankrail/internal/store"
)

// A job is due on its tenant's clock: advancing one tenant's clock makes
// its job due and not another tenant's, nor a system job (issue 11, item 5).
func TestJobsAreDueOnTheirTenantsClock(t *testing.T) {
	t.Parallel()
	dbtest.EachMigrated(t, func(t *testing.T, db dbtest.DB) {
		s := open(t, db)
		ctx := context.Background()
		const a, b = "40000000-0000-4000-8000-00000000000a", "40000000-0000-4000-8000-00000000000b"
		for _, id := range []string{a, b} {
			if err := s.CreateCustomer(ctx, identity.Customer{ID: id, Name: id, CreatedAt: t0}); err != nil {
				t.Fatal(err)
			}
		}
		kinds := job.NewRegistry()
		var mu sync.Mutex
		var ran []string
		type args struct{ Name string }
		job.Register(kinds, "tenant-test", func(_ context.Context, x args) error {
			mu.Lock()
			defer mu.Unlock()
			ran = append(ran, x.Name)
			return nil
		})
		base := clock.NewFake(t0)
		clocks := clock.NewTenants(base, s.TenantClocks(), 0)
		w := job.NewWorker(s.Jobs(), kinds, clocks, quiet, job.Config{Lease: time.Minute, LeaseClock: clock.NewFake(t0)})
		for name, tenant := range map[string]string{"a": a, "b": b, "system": ""} {
			j := newJob(t, jobID("tenant-"+name), "tenant-test", args{Name: name}, t0.Add(time.Hour))
			j.TenantID = tenant
			if err := s.Jobs().Enqueue(ctx, j); err != nil {
				t.Fatal(err)
			}
		}
		if n, err := w.RunDue(ctx); err != nil || n != 0 {
			t.Fatalf("before any advance: %d jobs ran, %v", n, err)
		}
		if _, err := clocks.Advance(ctx, a, time.Hour); err != nil {
			t.Fatal(err)
		}
		if n, err := w.RunDue(ctx); err != nil || n != 1 || ran[0] != "a" {
			t.Fatalf("after a's advance: %d jobs ran (%v), %v; want a's only", n, ran, err)
		}
		base.Advance(time.Hour)
		if n, err := w.RunDue(ctx); err != nil || n != 2 {
			t.Fatalf("an hour later on the base clock: %d jobs ran (%v), %v; want b's and the system job", n, ran, err)
		}
	})
}

// A notification is due on its customer's tenant's clock: the clock of its
// top-level customer, not another tenant's.
func TestNotificationsAreDueOnTheirTenantsClock(t *testing.T) {
	eachNotifyStore(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		if _, err := s.EnqueueNotifications(ctx, t0.Add(time.Hour), msg("p-1", `{"n":1}`)); err != nil { // of nChild
			t.Fatal(err)
		}
		clocks := s.TenantClocks()
		if got := claim(t, s, t0); len(got) != 0 {
			t.Fatalf("claimed %d before it is due", len(got))
		}
		if _, err := clocks.AdvanceTenantClock(ctx, nStranger, time.Hour, clock.MaxOffset); err != nil {
			t.Fatal(err)
		}
		if got := claim(t, s, t0); len(got) != 0 {
			t.Fatalf("another tenant's advance made %d due", len(got))
		}
		if _, err := clocks.AdvanceTenantClock(ctx, nCustomer, time.Hour, clock.MaxOffset); err != nil {
			t.Fatal(err)
		}
		if got := claim(t, s, t0); len(got) != 1 || got[0].CustomerID != nChild {
			t.Fatalf("after the parent tenant's advance: %d claimed", len(got))
		}
	})
}

// Upgrading a database of version 8, whose one shared clock was ahead,
// gives every top-level customer that offset (bounded by clock.MaxOffset),
// so that no clock goes back; its merchants follow it.
func TestTenantClockMigrationKeepsTheSharedOffset(t *testing.T) {
	t.Parallel()
	dbtest.Each(t, func(t *testing.T, db dbtest.DB) {
		ctx := context.Background()
		s := openAtVersion(t, db, 8)
		const psp, shop = "63000000-0000-4000-8000-000000000001", "63000000-0000-4000-8000-000000000002"
		for _, q := range []string{
			`INSERT INTO customers (id, name, created_at) VALUES ('` + psp + `', 'PSP', 0)`,
			`INSERT INTO customers (id, name, parent_id, created_at) VALUES ('` + shop + `', 'Shop', '` + psp + `', 0)`,
			`INSERT INTO customer_tree (ancestor_id, descendant_id, depth) VALUES ('` + psp + `', '` + psp + `', 0)`,
			`INSERT INTO customer_tree (ancestor_id, descendant_id, depth) VALUES ('` + shop + `', '` + shop + `', 0)`,
			`INSERT INTO customer_tree (ancestor_id, descendant_id, depth) VALUES ('` + psp + `', '` + shop + `', 1)`,
			`UPDATE sandbox_clock SET offset_us = 7200000000 WHERE id = 1`,
		} {
			if err := s.Exec(ctx, q); err != nil {
				t.Fatal(err)
			}
		}
		if err := s.Migrate(ctx); err != nil {
			t.Fatal(err)
		}
		for _, c := range []string{psp, shop} {
			if top, off, err := s.TenantClocks().TenantClock(ctx, c); err != nil || top != psp || off != 2*time.Hour {
				t.Fatalf("TenantClock(%s) = %s, %s, %v; want the PSP's 2h0m0s", c, top, off, err)
			}
		}
	})
}
