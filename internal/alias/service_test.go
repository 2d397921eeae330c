package alias_test

import (
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/bankrail/bankrail/internal/alias"
	"github.com/bankrail/bankrail/internal/clock"
	"github.com/bankrail/bankrail/internal/dbtest"
	"github.com/bankrail/bankrail/internal/errs"
	"github.com/bankrail/bankrail/internal/idempotency"
	"github.com/bankrail/bankrail/internal/identity"
	"github.com/bankrail/bankrail/internal/ledger"
	"github.com/bankrail/bankrail/internal/paging"
	"github.com/bankrail/bankrail/internal/store"
)

var t0 = time.Date(2026, 6, 1, 9, 0, 0, 0, time.UTC)

// service is an alias service over a fresh store with one customer and
// its EUR account; no job worker runs.
func service(t *testing.T, db dbtest.DB) (*alias.Service, *store.Store, ledger.Account) {
	t.Helper()
	ctx := adminContext()
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	s, err := store.Open(ctx, store.Options{DatabaseURL: db.DatabaseURL, SQLitePath: db.SQLitePath}, log)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	if err := s.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	const shop = "70000000-0000-4000-8000-000000000002"
	if err := s.CreateCustomer(ctx, identity.Customer{ID: shop, Name: "Shop", CreatedAt: t0}); err != nil {
		t.Fatal(err)
	}
	clk := clock.NewFake(t0)
	acct, _, err := ledger.NewService(s.Ledger(), clk).EnsureAccount(ctx, ledger.AccountSpec{CustomerID: shop, Currency: "EUR"})
	if err != nil {
		t.Fatal(err)
	}
	keys := idempotency.NewGuard(s.IdempotencyKeys(), clk, idempotency.Config{TTL: time.Hour})
	return alias.NewService(s.Aliases(), store.Transactor[alias.Repos](s), keys, clk, log), s, acct
}

// An order is stored with its job; each batch is one unit of work of at
// most 100 aliases that moves completed; the last one completes the order;
// a finished order takes no more.
func TestIssueCountsUpInBatches(t *testing.T) {
	t.Parallel()
	dbtest.EachMigrated(t, func(t *testing.T, db dbtest.DB) {
		ctx := adminContext()
		svc, s, acct := service(t, db)
		resp, err := svc.Create(ctx, alias.Input{ViewerCustomerID: acct.CustomerID, AccountID: acct.ID, Count: 250},
			func(o alias.Order) ([]byte, error) { return []byte(o.ID), nil })
		if err != nil {
			t.Fatal(err)
		}
		id := resp.ResourceID
		_, read := s.Pools()
		var jobs int
		if err := read.QueryRowContext(ctx, `SELECT COUNT(*) FROM jobs WHERE kind = $1 AND args LIKE $2`, alias.KindIssue, "%"+id+"%").Scan(&jobs); err != nil || jobs != 1 {
			t.Fatalf("%d issue jobs (%v)", jobs, err)
		}
		for _, want := range []int{100, 200, 250} {
			done, err := svc.IssueBatch(ctx, id)
			if err != nil {
				t.Fatal(err)
			}
			o, err := svc.Order(ctx, acct.CustomerID, id)
			if err != nil {
				t.Fatal(err)
			}
			if o.Completed != want || done != (want == 250) || (o.Status == alias.Completed) != done || o.CompletedAt.IsZero() == done {
				t.Fatalf("after a batch: %+v done %v, want completed %d", o, done, want)
			}
		}
		if done, err := svc.IssueBatch(ctx, id); !done || err != nil {
			t.Fatalf("a finished order: %v %v", done, err)
		}
		if _, total, err := paging.Unpack(svc.List(ctx, acct.CustomerID, alias.Filter{OrderID: id, Page: 1, Limit: 10})); err != nil || total != 250 {
			t.Fatalf("%d aliases (%v)", total, err)
		}
		if _, err := svc.IssueBatch(ctx, "00000000-0000-4000-8000-00000000dead"); !errs.Is(err, errs.NotFound) {
			t.Fatalf("an unknown order: %v", err)
		}
	})
}
