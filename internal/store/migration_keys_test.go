package store_test

import (
	"context"
	"testing"
	"time"

	"github.com/bankrail/bankrail/internal/dbtest"
	"github.com/bankrail/bankrail/internal/idempotency"
	"github.com/bankrail/bankrail/internal/store"
)

// Version 65 drops idempotency_keys' foreign key to customers (rebuilding
// the table on SQLite): a key stored before it is still there afterwards,
// whole (its stored answer replays), a pending key is still held by its
// token, and new keys are claimed and stored as before.
func TestKeysMigrationKeepsTheStoredKeys(t *testing.T) {
	t.Parallel()
	dbtest.Each(t, func(t *testing.T, db dbtest.DB) {
		ctx := context.Background()
		s := openAtVersion(t, db, 62)
		const shop = "65000000-0000-4000-8000-000000000001"
		if err := s.Exec(ctx, `INSERT INTO customers (id, name, created_at) VALUES ('`+shop+`', 'Shop', 0)`); err != nil {
			t.Fatal(err)
		}
		now := time.Date(2026, 11, 28, 2, 0, 0, 0, time.UTC)
		claim := func(key, hash string) idempotency.Claim {
			return idempotency.Claim{CustomerID: shop, Key: key, RequestHash: hash, Token: "token-" + key, Now: now,
				TTL: 24 * time.Hour, Lease: 15 * time.Second}
		}
		keys := s.IdempotencyKeys()
		if res, err := keys.Claim(ctx, claim("done", "h1")); err != nil || res.Decision != idempotency.DecisionClaimed {
			t.Fatalf("claim before: %+v, %v", res, err)
		}
		if err := s.InTx(ctx, func(tx *store.Tx) error {
			return tx.Idempotency().Complete(ctx, idempotency.Ticket{CustomerID: shop, Key: "done", Token: "token-done"},
				idempotency.Result{ResourceID: "p-1", Body: []byte(`{"id":"p-1"}`)})
		}); err != nil {
			t.Fatal(err)
		}
		if _, err := keys.Claim(ctx, claim("pending", "h2")); err != nil {
			t.Fatal(err)
		}
		if err := s.Migrate(ctx); err != nil {
			t.Fatal(err)
		}
		res, err := keys.Claim(ctx, claim("done", "h1"))
		if err != nil || res.Decision != idempotency.DecisionReplay || res.Record.Result.ResourceID != "p-1" ||
			string(res.Record.Result.Body) != `{"id":"p-1"}` || !res.Record.ExpiresAt.Equal(now.Add(24*time.Hour)) {
			t.Fatalf("the completed key after the migration: %+v, %v; want its answer replayed", res, err)
		}
		other := claim("pending", "h2")
		other.Token = "another-request"
		if res, err := keys.Claim(ctx, other); err != nil || res.Decision != idempotency.DecisionInFlight {
			t.Fatalf("the pending key after the migration: %+v, %v; want it still in flight", res, err)
		}
		if held, err := keys.Extend(ctx, idempotency.Ticket{CustomerID: shop, Key: "pending", Token: "token-pending"}, now.Add(time.Minute)); err != nil || !held {
			t.Fatalf("the pending key's holder after the migration: held %v, %v", held, err)
		}
		fresh := claim("fresh", "h3")
		if err := s.InTx(ctx, func(tx *store.Tx) error {
			return tx.Idempotency().Complete(ctx, idempotency.Ticket{CustomerID: shop, Key: "fresh", Token: fresh.Token, Fresh: &fresh},
				idempotency.Result{ResourceID: "p-3", Body: []byte(`{"id":"p-3"}`)})
		}); err != nil {
			t.Fatal(err)
		}
		if res, err := keys.Claim(ctx, fresh); err != nil || res.Decision != idempotency.DecisionReplay || res.Record.Result.ResourceID != "p-3" {
			t.Fatalf("a key stored after the migration: %+v, %v", res, err)
		}
		if n, err := keys.Purge(ctx, now.Add(48*time.Hour), 10); err != nil || n != 3 {
			t.Fatalf("purge after the migration: %d, %v; want the 3 keys (the expiry index is back)", n, err)
		}
	})
}
