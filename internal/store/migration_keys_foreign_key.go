package store

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
)

// Version 65 drops the foreign key from idempotency_keys.customer_id to
// customers (docs/decisions.md, "An Idempotency-Key's row has no foreign
// key"). Every keyed create inserts a key row, and the key's customer is
// the caller's own, which the request's token has just named: the check
// found nothing, but on PostgreSQL it ran a referential-integrity trigger
// per row (a SELECT ... FOR KEY SHARE of the customer's row through SPI)
// and on SQLite a look-up of customers' primary key. Customers are never
// deleted, and a sandbox restore checks every row's customer_id against
// the tree's customers itself (sandbox.TreeRows). A Go migration: on
// PostgreSQL the constraint is dropped by name (ALTER TABLE, no rewrite);
// SQLite cannot drop a constraint, so the table is rebuilt without it.

// keysForeignKeyVersion is the migration's number.
const keysForeignKeyVersion = 65

// keysColumns are idempotency_keys' columns since version 5, in order.
const keysColumns = `customer_id, idem_key, request_hash, token, done, response_body, resource_id, created_at, expires_at, locked_until`

// sqliteKeysTable is idempotency_keys' definition on SQLite, with
// references (the foreign key's clause, or "") after customer_id.
func sqliteKeysTable(name, references string) string {
	return `CREATE TABLE ` + name + ` (
    customer_id     TEXT NOT NULL` + references + `,
    idem_key        TEXT NOT NULL,
    request_hash    TEXT NOT NULL,
    token           TEXT NOT NULL,
    done            INTEGER NOT NULL DEFAULT 0,
    response_body   TEXT,
    resource_id     TEXT,
    created_at      BIGINT NOT NULL,
    expires_at      BIGINT NOT NULL,
    locked_until    BIGINT,
    PRIMARY KEY (customer_id, idem_key)
)`
}

// rebuildSQLiteKeys rebuilds idempotency_keys on SQLite with references
// after customer_id, its rows and its expiry index kept.
func rebuildSQLiteKeys(ctx context.Context, tx *sql.Tx, references string) error {
	for _, q := range []string{
		sqliteKeysTable("idempotency_keys_rebuilt", references),
		`INSERT INTO idempotency_keys_rebuilt (` + keysColumns + `) SELECT ` + keysColumns + ` FROM idempotency_keys`,
		`DROP TABLE idempotency_keys`,
		`ALTER TABLE idempotency_keys_rebuilt RENAME TO idempotency_keys`,
		`CREATE INDEX idempotency_keys_expires ON idempotency_keys (expires_at)`,
	} {
		if _, err := tx.ExecContext(ctx, q); err != nil {
			return fmt.Errorf("rebuild idempotency_keys: %w", err)
		}
	}
	return nil
}

// keysForeignKeyUp drops the foreign key of idempotency_keys.
func keysForeignKeyUp(ctx context.Context, tx *sql.Tx, d Dialect) error {
	if d != Postgres {
		return rebuildSQLiteKeys(ctx, tx, "")
	}
	rows, err := tx.QueryContext(ctx, `SELECT conname FROM pg_constraint
		WHERE conrelid = 'idempotency_keys'::regclass AND contype = 'f'`)
	if err != nil {
		return fmt.Errorf("foreign keys of idempotency_keys: %w", err)
	}
	var names []string
	for rows.Next() {
		var n string
		if err := rows.Scan(&n); err != nil {
			rows.Close()
			return fmt.Errorf("foreign keys of idempotency_keys: %w", err)
		}
		names = append(names, n)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return fmt.Errorf("foreign keys of idempotency_keys: %w", err)
	}
	for _, n := range names {
		q := `ALTER TABLE idempotency_keys DROP CONSTRAINT "` + strings.ReplaceAll(n, `"`, `""`) + `"`
		if _, err := tx.ExecContext(ctx, q); err != nil {
			return fmt.Errorf("drop %s of idempotency_keys: %w", n, err)
		}
	}
	return nil
}

// keysForeignKeyDown puts the foreign key back.
func keysForeignKeyDown(ctx context.Context, tx *sql.Tx, d Dialect) error {
	if d != Postgres {
		return rebuildSQLiteKeys(ctx, tx, " REFERENCES customers (id)")
	}
	_, err := tx.ExecContext(ctx, `ALTER TABLE idempotency_keys ADD FOREIGN KEY (customer_id) REFERENCES customers (id)`)
	if err != nil {
		return fmt.Errorf("add the foreign key of idempotency_keys: %w", err)
	}
	return nil
}

// keysForeignKeyMigration is f as a migration function on dialect d.
func keysForeignKeyMigration(f func(context.Context, *sql.Tx, Dialect) error, d Dialect) func(context.Context, *sql.Tx) error {
	return func(ctx context.Context, tx *sql.Tx) error { return f(ctx, tx, d) }
}
