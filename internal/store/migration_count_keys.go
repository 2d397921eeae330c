package store

import "fmt"

// Version 63 keeps the payment counts by customer, status and currency
// (and shard), no longer by customer alone, so that GET /payments'
// total-items with a status filter, a currency filter or both is a sum of
// a few count rows, as it is without a filter (docs/decisions.md, "Payment
// counts by status and currency"; issue 32). The table is made again and
// filled from the payments there are (on PostgreSQL with the payments
// locked against writes until the migration commits, so that nothing is
// counted twice or missed); the store counts inserts and status moves
// (payment_counts.go); the triggers of deletes and of moves to another
// customer are made again with the new key, the latter also for a change
// of currency (neither happens in the API). A status change by SQL of
// one's own is not counted: RecountPayments.

// countKeysVersion is the migration's number.
const countKeysVersion = 63

const countKeysDDL = `CREATE TABLE ` + paymentCountsTable + ` (
    customer_id TEXT NOT NULL,
    status      TEXT NOT NULL,
    currency    TEXT NOT NULL,
    shard       INTEGER NOT NULL,
    n           BIGINT NOT NULL,
    PRIMARY KEY (customer_id, status, currency, shard)
);
` + recountPayments + `;
`

// sqliteKeyedCount is the upsert that adds delta to the count of row's
// customer and currency (row: NEW or OLD) and the status of statusRow, in
// a SQLite trigger.
func sqliteKeyedCount(row, statusRow, delta string) string {
	return `INSERT INTO ` + paymentCountsTable + ` (customer_id, status, currency, shard, n) VALUES (` +
		row + `.customer_id, ` + statusRow + `.status, ` + row + `.currency, 0, ` + delta + `)
    ON CONFLICT (customer_id, status, currency, shard) DO UPDATE SET n = n + ` + delta + `;`
}

// countKeysUp drops the version-62 table and triggers and makes them
// again with the new key. The move trigger keeps the payment's old status
// on both sides: a status change is the store's to count.
var countKeysUp = map[Dialect]string{
	SQLite: `DROP TRIGGER payment_counts_delete; DROP TRIGGER payment_counts_move; DROP TABLE ` + paymentCountsTable + `;
` + countKeysDDL + `
CREATE TRIGGER payment_counts_delete AFTER DELETE ON payments BEGIN ` + sqliteKeyedCount("OLD", "OLD", "-1") + ` END;
CREATE TRIGGER payment_counts_move AFTER UPDATE OF customer_id, currency ON payments
WHEN OLD.customer_id IS NOT NEW.customer_id OR OLD.currency IS NOT NEW.currency
BEGIN ` + sqliteKeyedCount("OLD", "OLD", "-1") + ` ` + sqliteKeyedCount("NEW", "OLD", "1") + ` END;`,
	Postgres: fmt.Sprintf(`LOCK TABLE payments IN SHARE MODE;
DROP TRIGGER payment_counts_move ON payments; DROP TRIGGER payment_counts_delete ON payments;
DROP FUNCTION payment_counts_move(); DROP FUNCTION payment_counts_remove(); DROP TABLE %[1]s;
%[3]s
CREATE FUNCTION payment_counts_remove() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO %[1]s (customer_id, status, currency, shard, n)
        SELECT customer_id, status, currency, pg_backend_pid() %% %[2]d, -COUNT(*) FROM removed GROUP BY customer_id, status, currency
    ON CONFLICT (customer_id, status, currency, shard) DO UPDATE SET n = %[1]s.n + EXCLUDED.n;
    RETURN NULL;
END $$;
CREATE FUNCTION payment_counts_move() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO %[1]s (customer_id, status, currency, shard, n) VALUES (OLD.customer_id, OLD.status, OLD.currency, pg_backend_pid() %% %[2]d, -1)
    ON CONFLICT (customer_id, status, currency, shard) DO UPDATE SET n = %[1]s.n - 1;
    INSERT INTO %[1]s (customer_id, status, currency, shard, n) VALUES (NEW.customer_id, OLD.status, NEW.currency, pg_backend_pid() %% %[2]d, 1)
    ON CONFLICT (customer_id, status, currency, shard) DO UPDATE SET n = %[1]s.n + 1;
    RETURN NULL;
END $$;
CREATE TRIGGER payment_counts_delete AFTER DELETE ON payments REFERENCING OLD TABLE AS removed
    FOR EACH STATEMENT EXECUTE FUNCTION payment_counts_remove();
CREATE TRIGGER payment_counts_move AFTER UPDATE OF customer_id, currency ON payments
    FOR EACH ROW WHEN (OLD.customer_id IS DISTINCT FROM NEW.customer_id OR OLD.currency IS DISTINCT FROM NEW.currency)
    EXECUTE FUNCTION payment_counts_move();`, paymentCountsTable, paymentCountShards, countKeysDDL),
}

// countKeysDown makes version 62's table, counts and triggers again:
// version 54's, less its insert trigger.
var countKeysDown = map[Dialect]string{
	SQLite: `DROP TRIGGER payment_counts_delete; DROP TRIGGER payment_counts_move; DROP TABLE ` + paymentCountsTable + `;
` + paymentCountsUp[SQLite] + `
` + storeCountsUp[SQLite],
	Postgres: `LOCK TABLE payments IN SHARE MODE;
DROP TRIGGER payment_counts_move ON payments; DROP TRIGGER payment_counts_delete ON payments;
DROP FUNCTION payment_counts_move(); DROP FUNCTION payment_counts_remove(); DROP TABLE ` + paymentCountsTable + `;
` + paymentCountsUp[Postgres] + `
` + storeCountsUp[Postgres],
}
