package dbtest_test

import (
	"net/url"
	"slices"
	"testing"

	"github.com/bankrail/bankrail/internal/dbtest"
)

// schemaOf is the schema a PostgreSQL test database lives in.
func schemaOf(t *testing.T, db dbtest.DB) string {
	t.Helper()
	u, err := url.Parse(db.DatabaseURL)
	if err != nil {
		t.Fatal(err)
	}
	return u.Query().Get("search_path")
}

// A finished test's PostgreSQL copy is reset to the template's state (its
// rows gone, an append-only table's too) and handed to the next test; a
// copy whose tables a test changed is dropped instead, never handed on.
// Not parallel: it watches the binary's pool of free copies.
func TestPostgresCopiesAreResetOrDropped(t *testing.T) {
	var used, altered string
	t.Run("a test writes rows", func(t *testing.T) {
		db := dbtest.Migrated(t, dbtest.Postgres)
		used = schemaOf(t, db)
		for _, q := range []string{
			`INSERT INTO customers (id, name, created_at) VALUES ('65000000-0000-4000-8000-000000000001', 'Shop', 0)`,
			`INSERT INTO ledger_accounts (id, customer_id, type, status, currency, iban, created_at)
				VALUES ('a1', '65000000-0000-4000-8000-000000000001', 'PAYMENT', 'ACTIVE', 'EUR', 'DE00', 0)`,
			`INSERT INTO ledger_transactions (id, account_id, customer_id, type, operation, status, amount, currency, created_at, updated_at)
				VALUES ('t1', 'a1', '65000000-0000-4000-8000-000000000001', 'CREDIT', 'PAYIN', 'SETTLED', 100, 'EUR', 0, 0)`,
			`INSERT INTO ledger_postings (entry_id, line, transaction_id, account_id, bucket, currency, amount, created_at)
				VALUES ('e1', 1, 't1', 'a1', 'available', 'EUR', 100, 0)`,
		} {
			if _, err := raw(t, db).Exec(q); err != nil {
				t.Fatal(err)
			}
		}
	})
	if !slices.Contains(dbtest.FreeSchemas(), used) {
		t.Fatalf("the copy %s was not kept for the next test (free: %v)", used, dbtest.FreeSchemas())
	}
	t.Run("the next test gets it back empty", func(t *testing.T) {
		db := dbtest.Migrated(t, dbtest.Postgres)
		if got := schemaOf(t, db); got != used {
			t.Fatalf("got copy %s, want the reset %s", got, used)
		}
		for _, table := range []string{"customers", "ledger_accounts", "ledger_transactions", "ledger_postings"} {
			var n int
			if err := raw(t, db).QueryRow(`SELECT COUNT(*) FROM ` + table).Scan(&n); err != nil || n != 0 {
				t.Fatalf("%s holds %d rows (%v) after the reset", table, n, err)
			}
		}
		if _, err := raw(t, db).Exec(`TRUNCATE ledger_postings`); err == nil {
			t.Fatal("ledger_postings is no longer append-only after the reset")
		}
		open(t, db) // the application's start: nothing to migrate
		if _, err := raw(t, db).Exec(`ALTER TABLE customers ADD COLUMN stray text`); err != nil {
			t.Fatal(err)
		}
		altered = schemaOf(t, db)
	})
	if slices.Contains(dbtest.FreeSchemas(), altered) {
		t.Fatalf("the altered copy %s was kept for another test", altered)
	}
	var left bool
	admin := raw(t, dbtest.DB{Engine: dbtest.Postgres, DatabaseURL: dbtest.PostgresURL(t)})
	if err := admin.QueryRow(`SELECT EXISTS (SELECT 1 FROM pg_namespace WHERE nspname = $1)`, altered).Scan(&left); err != nil || left {
		t.Fatalf("the altered copy %s is still there (%v)", altered, err)
	}
}
