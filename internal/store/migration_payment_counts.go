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
// migration. On PostgreSQL a customer's count is spread over shards (the
// writing session's process id modulo paymentCountShards), so that the
// group-commit workers, each on its own connection, do not queue on one
// row per merchant; a count is the sum of its shards. SQLite has one
// writer: one shard. The table is never dumped nor replaced (keptTables):
// the triggers rebuild it as a restore writes the payments, and the
// TRUNCATE of a reset on PostgreSQL, which fires no row trigger, empties
// it too (deleteRows).

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
CREATE TRIGGER payment_counts_insert AFTER INSERT ON payments BEGIN ` + sqliteCountChange("NEW", "1") + ` END;
CREATE TRIGGER payment_counts_delete AFTER DELETE ON payments BEGIN ` + sqliteCountChange("OLD", "-1") + ` END;
CREATE TRIGGER payment_counts_move AFTER UPDATE OF customer_id ON payments WHEN OLD.customer_id IS NOT NEW.customer_id
BEGIN ` + sqliteCountChange("OLD", "-1") + ` ` + sqliteCountChange("NEW", "1") + ` END;`,
	Postgres: paymentCountsDDL + fmt.Sprintf(`
CREATE FUNCTION payment_counts_keep() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP IN ('DELETE', 'UPDATE') THEN
        INSERT INTO %[1]s (customer_id, shard, n) VALUES (OLD.customer_id, pg_backend_pid() %% %[2]d, -1)
        ON CONFLICT (customer_id, shard) DO UPDATE SET n = %[1]s.n - 1;
    END IF;
    IF TG_OP IN ('INSERT', 'UPDATE') THEN
        INSERT INTO %[1]s (customer_id, shard, n) VALUES (NEW.customer_id, pg_backend_pid() %% %[2]d, 1)
        ON CONFLICT (customer_id, shard) DO UPDATE SET n = %[1]s.n + 1;
    END IF;
    RETURN NULL;
END $$;
CREATE TRIGGER payment_counts_keep AFTER INSERT OR DELETE ON payments
    FOR EACH ROW EXECUTE FUNCTION payment_counts_keep();
CREATE TRIGGER payment_counts_move AFTER UPDATE OF customer_id ON payments
    FOR EACH ROW WHEN (OLD.customer_id IS DISTINCT FROM NEW.customer_id) EXECUTE FUNCTION payment_counts_keep();`,
		paymentCountsTable, paymentCountShards),
}

var paymentCountsDown = map[Dialect]string{
	SQLite: `DROP TRIGGER payment_counts_insert; DROP TRIGGER payment_counts_delete; DROP TRIGGER payment_counts_move;
		DROP TABLE ` + paymentCountsTable,
	Postgres: `DROP TRIGGER payment_counts_move ON payments; DROP TRIGGER payment_counts_keep ON payments;
		DROP FUNCTION payment_counts_keep(); DROP TABLE ` + paymentCountsTable,
}

// paymentCountsMigration runs the statements of d in ddl.
func paymentCountsMigration(ddl map[Dialect]string, d Dialect) func(ctx context.Context, tx *sql.Tx) error {
	return func(ctx context.Context, tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, ddl[d]); err != nil {
			return fmt.Errorf("payment_counts and its triggers: %w", err)
		}
		return nil
	}
}
