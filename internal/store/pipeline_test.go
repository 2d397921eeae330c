package store_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/bankrail/bankrail/internal/dbtest"
	"github.com/bankrail/bankrail/internal/errs"
	"github.com/bankrail/bankrail/internal/idempotency"
	"github.com/bankrail/bankrail/internal/identity"
	"github.com/bankrail/bankrail/internal/store"
)

// Tests of the pipelined writes (internal/store/pipeline.go): on
// PostgreSQL the writes nothing reads are queued and sent with the next
// read or the COMMIT; on SQLite nothing is queued, and every outcome must
// be the same.

// wantPipelined fails t unless, on PostgreSQL, writes were sent queued
// since before (the tests below would otherwise prove nothing of the
// pipeline), and unless none were on SQLite.
func wantPipelined(t *testing.T, db dbtest.DB, s *store.Store, before int64) {
	t.Helper()
	sent := s.PipelinedWrites() - before
	if db.Engine == dbtest.Postgres && sent == 0 {
		t.Error("no write was queued and sent in a batch on PostgreSQL")
	}
	if db.Engine != dbtest.Postgres && sent != 0 {
		t.Errorf("%d writes queued on %s; want none", sent, db.Engine)
	}
}

// A unit that reads after writing sees its writes: alone, and in a group
// where every unit writes a payment, reads it back (and the units before
// it see theirs), then writes another move.
func TestPipelinedUnitReadsItsOwnWrites(t *testing.T) {
	t.Parallel()
	dbtest.EachMigrated(t, func(t *testing.T, db dbtest.DB) {
		s := open(t, db)
		ctx := context.Background()
		shop := identity.Customer{ID: "22000000-0000-4000-8000-000000000061", Name: "Shop", CreatedAt: t0}
		if err := s.CreateCustomer(ctx, shop); err != nil {
			t.Fatal(err)
		}
		before := s.PipelinedWrites()
		id := func(i int) string { return fmt.Sprintf("46000000-0000-4000-8000-%012d", i) }
		readBack := func(tx *store.Tx, i int) error {
			p := testPayment(id(i), shop.ID, fmt.Sprintf("R%09d", i), t0)
			if err := tx.Payments().Create(ctx, p); err != nil {
				return err
			}
			got, err := tx.Payments().Get(ctx, shop.ID, p.ID)
			if err != nil {
				return fmt.Errorf("read back its own payment: %w", err)
			}
			if got.ShortCode != p.ShortCode || len(got.History) != 1 {
				return fmt.Errorf("read back %+v; want its own payment with one status", got)
			}
			return nil
		}
		if err := s.InTx(ctx, func(tx *store.Tx) error { return readBack(tx, 0) }); err != nil {
			t.Fatalf("alone: %v", err)
		}

		const n = 6
		results := make([]error, n)
		release := s.HoldGroupWorkers(ctx)
		var wg sync.WaitGroup
		for i := 1; i <= n; i++ {
			wg.Go(func() { results[i-1] = s.InTx(ctx, func(tx *store.Tx) error { return readBack(tx, i) }) })
		}
		waitFor(t, func() bool { return s.QueuedUnits() == n }, "the units to queue")
		release()
		wg.Wait()
		for i, err := range results {
			if err != nil {
				t.Errorf("unit %d in a group: %v", i+1, err)
			}
		}
		for i := 0; i <= n; i++ {
			if _, err := s.Payments().Get(ctx, shop.ID, id(i)); err != nil {
				t.Errorf("payment %d after the commit: %v", i, err)
			}
		}
		wantPipelined(t, db, s, before)
	})
}

// A write that fails when its batch is sent (a duplicate payment, a fresh
// Idempotency-Key already stored) fails only its unit: the others of the
// group are committed and answered nil, and the failing units get the
// error their write would have given at once (CONFLICT, ErrKeyStored),
// with nothing of theirs written.
func TestPipelinedWriteFailureFailsOnlyItsUnit(t *testing.T) {
	t.Parallel()
	dbtest.EachMigrated(t, func(t *testing.T, db dbtest.DB) {
		s := open(t, db)
		ctx := context.Background()
		shop := identity.Customer{ID: "22000000-0000-4000-8000-000000000062", Name: "Shop", CreatedAt: t0}
		if err := s.CreateCustomer(ctx, shop); err != nil {
			t.Fatal(err)
		}
		taken := testPayment("47000000-0000-4000-8000-000000009999", shop.ID, "TAKEN00062", t0)
		if err := s.Payments().Create(ctx, taken); err != nil {
			t.Fatal(err)
		}
		fresh := func(key string) idempotency.Ticket {
			return idempotency.Ticket{CustomerID: shop.ID, Key: key, Token: "t-" + key, Fresh: &idempotency.Claim{
				CustomerID: shop.ID, Key: key, RequestHash: "h", Token: "t-" + key, Now: t0, TTL: time.Hour}}
		}
		if err := s.InTx(ctx, func(tx *store.Tx) error {
			return tx.Idempotency().Complete(ctx, fresh("stored"), idempotency.Result{Body: []byte("{}"), ResourceID: taken.ID})
		}); err != nil {
			t.Fatal(err)
		}
		before := s.PipelinedWrites()
		_, savepointsBefore := s.GroupPasses()

		const n = 8 // unit 2 inserts a taken payment, unit 5 a stored key
		id := func(i int) string { return fmt.Sprintf("47000000-0000-4000-8000-%012d", i) }
		results := make([]error, n)
		release := s.HoldGroupWorkers(ctx)
		var wg sync.WaitGroup
		for i := range n {
			wg.Go(func() {
				results[i] = s.InTx(ctx, func(tx *store.Tx) error {
					p := testPayment(id(i), shop.ID, fmt.Sprintf("F%09d", i), t0)
					if err := tx.Payments().Create(ctx, p); err != nil {
						return err
					}
					key := fmt.Sprintf("key-%d", i)
					switch i {
					case 2:
						return tx.Payments().Create(ctx, taken)
					case 5:
						key = "stored"
					}
					return tx.Idempotency().Complete(ctx, fresh(key), idempotency.Result{Body: []byte("{}"), ResourceID: p.ID})
				})
			})
		}
		waitFor(t, func() bool { return s.QueuedUnits() == n }, "the units to queue")
		release()
		wg.Wait()

		for i, err := range results {
			_, getErr := s.Payments().Get(ctx, shop.ID, id(i))
			switch i {
			case 2:
				if !errs.Is(err, errs.Conflict) || !errs.Is(getErr, errs.NotFound) {
					t.Errorf("unit 2 (a taken payment): %v, read %v; want CONFLICT and nothing written", err, getErr)
				}
			case 5:
				if !errors.Is(err, idempotency.ErrKeyStored) || !errs.Is(getErr, errs.NotFound) {
					t.Errorf("unit 5 (a stored key): %v, read %v; want ErrKeyStored and nothing written", err, getErr)
				}
			default:
				if err != nil || getErr != nil {
					t.Errorf("unit %d: %v, read %v; want it committed", i, err, getErr)
				}
			}
		}
		if _, savepoints := s.GroupPasses(); savepoints == savepointsBefore {
			t.Error("no group ran with savepoints: the failing units were not found by the savepoint pass")
		}
		wantPipelined(t, db, s, before)
	})
}
