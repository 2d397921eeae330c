package store_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"

	"github.com/bankrail/bankrail/internal/audit"
	"github.com/bankrail/bankrail/internal/dbtest"
	"github.com/bankrail/bankrail/internal/errs"
	"github.com/bankrail/bankrail/internal/identity"
	"github.com/bankrail/bankrail/internal/store"
)

// Concurrent units of work keep their own outcomes whether or not they
// share a transaction: of 60 at once, those that fail after writing (by
// their own error, or a constraint their own write broke) leave nothing,
// get their own error and have no audit entry; every other unit's payment
// and audit entry are there, and its entry is marked written.
func TestGroupCommitKeepsOutcomesApart(t *testing.T) {
	t.Parallel()
	dbtest.EachMigrated(t, func(t *testing.T, db dbtest.DB) {
		s := open(t, db)
		ctx := context.Background()
		shop := identity.Customer{ID: "22000000-0000-4000-8000-000000000001", Name: "Shop", CreatedAt: t0}
		if err := s.CreateCustomer(ctx, shop); err != nil {
			t.Fatal(err)
		}
		// Taken before the run: the units with i%10 == 3 insert it again.
		taken := testPayment("43000000-0000-4000-8000-000000009999", shop.ID, "TAKEN00001", t0)
		if err := s.Payments().Create(ctx, taken); err != nil {
			t.Fatal(err)
		}
		const n = 60
		own := errors.New("the unit's own failure")
		results := make([]error, n)
		pending := make([]*audit.Pending, n)
		var wg sync.WaitGroup
		start := make(chan struct{})
		for i := range n {
			wg.Go(func() {
				uctx, p := audit.With(ctx, audit.Entry{OccurredAt: t0, CustomerID: shop.ID, ActorType: audit.ActorUser,
					ActorID: "u", Action: "POST /payments", RequestID: fmt.Sprint(i)})
				pending[i] = p
				<-start
				results[i] = s.InTx(uctx, func(tx *store.Tx) error {
					p := testPayment(fmt.Sprintf("43000000-0000-4000-8000-%012d", i), shop.ID, fmt.Sprintf("G%09d", i), t0)
					if err := tx.Payments().Create(uctx, p); err != nil {
						return err
					}
					switch i % 10 {
					case 7:
						return own
					case 3:
						return tx.Payments().Create(uctx, taken) // a duplicate primary key: fails in the database
					}
					return nil
				})
			})
		}
		close(start)
		wg.Wait()
		for i, err := range results {
			_, getErr := s.Payments().Get(ctx, shop.ID, fmt.Sprintf("43000000-0000-4000-8000-%012d", i))
			_, waiting := pending[i].Entry()
			switch i % 10 {
			case 7:
				if !errors.Is(err, own) || !errs.Is(getErr, errs.NotFound) || !waiting {
					t.Errorf("unit %d: %v, read %v, entry waiting %v; want its own error and nothing written", i, err, getErr, waiting)
				}
			case 3:
				if !errs.Is(err, errs.Conflict) || !errs.Is(getErr, errs.NotFound) || !waiting {
					t.Errorf("unit %d: %v, read %v, entry waiting %v; want CONFLICT and nothing written", i, err, getErr, waiting)
				}
			default:
				if err != nil || getErr != nil || waiting {
					t.Errorf("unit %d: %v, read %v, entry waiting %v; want it committed", i, err, getErr, waiting)
				}
			}
		}
		write, _ := s.Pools()
		var entries int
		if err := write.QueryRowContext(ctx, `SELECT COUNT(*) FROM audit_log WHERE customer_id = $1`, shop.ID).Scan(&entries); err != nil {
			t.Fatal(err)
		}
		if entries != n-n/10*2 {
			t.Fatalf("%d audit entries, want %d (one per committed unit)", entries, n-n/10*2)
		}
	})
}
