package store

import (
	"context"
	"database/sql"
	"fmt"
	"slices"
)

// Payment counts kept by the store (version 62): a payment inserted
// through the store (a creation, a sandbox restore's rows) adds one to its
// customer's count in payment_counts in the same transaction, written just
// before the COMMIT, one statement per customer for the whole transaction
// (a group commit's units together) instead of a trigger per INSERT. The
// trigger made SQLite keep a statement journal for every payment INSERT
// (a trigger and the foreign key to customers make the statement one that
// may have to be undone half-way) and cost PostgreSQL a statement-level
// trigger, with its transition table, per creation. Deletes (a sandbox
// reset) and moves to another customer (none in the API) keep their
// triggers (migration_payment_counts.go). A unit rolled back to its
// savepoint in a group's savepoint pass takes its counts with it: they are
// kept per unit, and only the committed units' are written.

// countDeltas is how many payments a transaction (or a unit of a group)
// added, by customer.
type countDeltas map[string]int64

// countSQL adds $2 to the count of customer $1, on the shard of the
// writing session on PostgreSQL (paymentCountShards), shard 0 on SQLite.
func countSQL(d Dialect) string {
	if d == Postgres {
		return countSQLPostgres
	}
	return countSQLSQLite
}

var (
	countSQLSQLite   = countUpsert("0")
	countSQLPostgres = countUpsert(fmt.Sprintf("pg_backend_pid() %% %d", paymentCountShards))
)

// countUpsert is countSQL with the shard expression shard.
func countUpsert(shard string) string {
	return `INSERT INTO ` + paymentCountsTable + ` (customer_id, shard, n) VALUES ($1, ` + shard + `, $2)
	ON CONFLICT (customer_id, shard) DO UPDATE SET n = ` + paymentCountsTable + `.n + EXCLUDED.n`
}

// countWrites are the statements of payment_counts that warmWrites
// prepares.
func countWrites(d Dialect) []string { return []string{countSQL(d)} }

// countInserted records that tx inserted n payments of customerID; they
// are counted when tx commits (writeCounts).
func (s *Store) countInserted(tx *sql.Tx, customerID string, n int64) {
	d, ok := s.txCounts.Load(tx) // a unit of a group has its own already (enter)
	if !ok {
		d, _ = s.txCounts.LoadOrStore(tx, countDeltas{})
	}
	d.(countDeltas)[customerID] += n
}

// takeCounts removes and returns what tx has recorded (nil when nothing).
func (s *Store) takeCounts(tx *sql.Tx) countDeltas {
	d, ok := s.txCounts.LoadAndDelete(tx)
	if !ok {
		return nil
	}
	return d.(countDeltas)
}

// add adds o to d.
func (d countDeltas) add(o countDeltas) {
	for c, n := range o {
		d[c] += n
	}
}

// writeCounts writes d in tx, the customers in order (two transactions
// lock the rows they share in the same order), each a write nobody reads:
// on PostgreSQL queued, and sent with the COMMIT. Being last in the
// transaction, a count's row stays locked only for the commit.
func (s *Store) writeCounts(ctx context.Context, tx *sql.Tx, d countDeltas) error {
	if len(d) == 0 {
		return nil
	}
	customers := make([]string, 0, len(d))
	for c, n := range d {
		if n != 0 {
			customers = append(customers, c)
		}
	}
	slices.Sort(customers)
	q := countSQL(s.dialect)
	for _, c := range customers {
		if _, err := s.txExec(later(ctx, "payment counts"), tx, q, c, d[c]); err != nil {
			return translate(err, "payment counts")
		}
	}
	return nil
}

// RecountPayments sets every customer's count to the payments there are,
// in one transaction: for payments written with SQL of one's own (a bulk
// seed of bankrail-bench), which the store does not count. A sandbox
// restore needs it not: the store counts what it writes.
func (s *Store) RecountPayments(ctx context.Context) error {
	return s.inTx(ctx, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, `DELETE FROM `+paymentCountsTable); err != nil {
			return translate(err, "payment counts")
		}
		_, err := tx.ExecContext(ctx, `INSERT INTO `+paymentCountsTable+` (customer_id, shard, n)
			SELECT customer_id, 0, COUNT(*) FROM payments GROUP BY customer_id`)
		return translate(err, "payment counts")
	})
}
