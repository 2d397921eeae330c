package store

import (
	"context"
	"database/sql"
	"fmt"
)

// Version 54 keeps the number of payments of each customer in
// payment_counts, so that GET /payments' total-items is exact without
// counting every index entry (issue 28 item 6; docs/decisions.md,
// "total-items is exact"). Triggers keep it in the same transaction as the
// insert or delete of a payment, whoever writes it (a use case, a sandbox
// restore, a test's fixture), in each engine's own language: a Go
// migration. On PostgreSQL the insert and delete triggers run once per
// statement over its rows (a transition table): one upsert per customer
// and statement, so that a statement of many rows (a restore's batch)
// does not update one row as many times in one transaction, each update
// longer than the last (its versions chain until the commit); and a
// customer's count is spread over shards (the writing session's process id
// modulo paymentCountShards), so that the group-commit workers, each on its
// own connection, do not queue on one row per merchant; a count is the sum
// of its shards. SQLite updates in place and has one writer: row triggers,
// one shard. The table is never dumped nor replaced (keptTables):
// the triggers rebuild it as a restore writes the payments, and the
// TRUNCATE of a reset on PostgreSQL, which fires no row trigger, empties
// it too (deleteRows). Since version 62 the insert trigger is gone: the
// store counts the payments it inserts itself (payment_counts.go). Since
// version 63 the counts are kept by status and currency too
// (migration_count_keys.go).

// paymentCountsVersion is the migration's number.
const paymentCountsVersion = 54

// paymentCountsTable holds the counts.
const paymentCountsTable = "payment_counts"

// paymentCountShards is how many rows a customer's count spreads over on
// PostgreSQL.
const paymentCountShards = 16

const paymentCountsDDL = `CREATE TABLE ` + paymentCountsTable + ` (
    customer_id TEXT NOT NULL,
    shard       INTEGER NOT NULL,
    n           BIGINT NOT NULL,
    PRIMARY KEY (customer_id, shard)
);
INSERT INTO ` + paymentCountsTable + ` (customer_id, shard, n) SELECT customer_id, 0, COUNT(*) FROM payments GROUP BY customer_id;
`

// sqliteCountChange is the upsert that adds delta to the count of the
// customer of row (NEW or OLD) in a SQLite trigger.
func sqliteCountChange(row, delta string) string {
	return `INSERT INTO ` + paymentCountsTable + ` (customer_id, shard, n) VALUES (` + row + `.customer_id, 0, ` + delta + `)
    ON CONFLICT (customer_id, shard) DO UPDATE SET n = n + ` + delta + `;`
}

var paymentCountsUp = map[Dialect]string{
	SQLite: paymentCountsDDL + `
` + sqliteInsertTrigger + `
CREATE TRIGGER payment_counts_delete AFTER DELETE ON payments BEGIN ` + sqliteCountChange("OLD", "-1") + ` END;
CREATE TRIGGER payment_counts_move AFTER UPDATE OF customer_id ON payments WHEN OLD.customer_id IS NOT NEW.customer_id
BEGIN ` + sqliteCountChange("OLD", "-1") + ` ` + sqliteCountChange("NEW", "1") + ` END;`,
	Postgres: paymentCountsDDL + fmt.Sprintf(`
%[3]s
CREATE FUNCTION payment_counts_remove() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO %[1]s (customer_id, shard, n)
        SELECT customer_id, pg_backend_pid() %% %[2]d, -COUNT(*) FROM removed GROUP BY customer_id
    ON CONFLICT (customer_id, shard) DO UPDATE SET n = %[1]s.n + EXCLUDED.n;
    RETURN NULL;
END $$;
CREATE FUNCTION payment_counts_move() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO %[1]s (customer_id, shard, n) VALUES (OLD.customer_id, pg_backend_pid() %% %[2]d, -1)
    ON CONFLICT (customer_id, shard) DO UPDATE SET n = %[1]s.n - 1;
    INSERT INTO %[1]s (customer_id, shard, n) VALUES (NEW.customer_id, pg_backend_pid() %% %[2]d, 1)
    ON CONFLICT (customer_id, shard) DO UPDATE SET n = %[1]s.n + 1;
    RETURN NULL;
END $$;
CREATE TRIGGER payment_counts_delete AFTER DELETE ON payments REFERENCING OLD TABLE AS removed
    FOR EACH STATEMENT EXECUTE FUNCTION payment_counts_remove();
CREATE TRIGGER payment_counts_move AFTER UPDATE OF customer_id ON payments
    FOR EACH ROW WHEN (OLD.customer_id IS DISTINCT FROM NEW.customer_id) EXECUTE FUNCTION payment_counts_move();`,
		paymentCountsTable, paymentCountShards, pgInsertTrigger),
}

// sqliteInsertTrigger counted each inserted payment on SQLite (versions 54
// to 61).
var sqliteInsertTrigger = `CREATE TRIGGER payment_counts_insert AFTER INSERT ON payments BEGIN ` +
	sqliteCountChange("NEW", "1") + ` END;`

// pgInsertTrigger counted the payments each INSERT statement inserted on
// PostgreSQL (versions 54 to 61).
var pgInsertTrigger = fmt.Sprintf(`CREATE FUNCTION payment_counts_add() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO %[1]s (customer_id, shard, n)
        SELECT customer_id, pg_backend_pid() %% %[2]d, COUNT(*) FROM added GROUP BY customer_id
    ON CONFLICT (customer_id, shard) DO UPDATE SET n = %[1]s.n + EXCLUDED.n;
    RETURN NULL;
END $$;
CREATE TRIGGER payment_counts_insert AFTER INSERT ON payments REFERENCING NEW TABLE AS added
    FOR EACH STATEMENT EXECUTE FUNCTION payment_counts_add();`, paymentCountsTable, paymentCountShards)

// storeCountsVersion (62) drops the insert trigger: the store counts the
// payments it inserts itself, in the same transaction (payment_counts.go).
// The delete and move triggers stay.
const storeCountsVersion = 62

var storeCountsUp = map[Dialect]string{
	SQLite:   `DROP TRIGGER payment_counts_insert`,
	Postgres: `DROP TRIGGER payment_counts_insert ON payments; DROP FUNCTION payment_counts_add()`,
}

var storeCountsDown = map[Dialect]string{SQLite: sqliteInsertTrigger, Postgres: pgInsertTrigger}

var paymentCountsDown = map[Dialect]string{
	SQLite: `DROP TRIGGER payment_counts_insert; DROP TRIGGER payment_counts_delete; DROP TRIGGER payment_counts_move;
		DROP TABLE ` + paymentCountsTable,
	Postgres: `DROP TRIGGER payment_counts_move ON payments; DROP TRIGGER payment_counts_delete ON payments;
		DROP TRIGGER payment_counts_insert ON payments; DROP FUNCTION payment_counts_move(); DROP FUNCTION payment_counts_remove();
		DROP FUNCTION payment_counts_add(); DROP TABLE ` + paymentCountsTable,
}

// paymentCountsMigration runs the statements of d in ddl (versions 54, 62
// and 63).
func paymentCountsMigration(ddl map[Dialect]string, d Dialect) func(ctx context.Context, tx *sql.Tx) error {
	return func(ctx context.Context, tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, ddl[d]); err != nil {
			return fmt.Errorf("payment_counts and its triggers: %w", err)
		}
		return nil
	}
}
