package store

import (
	"context"
	"database/sql"
	"fmt"
	"slices"
	"strings"
)

// Payment counts kept by the store (version 62; by status and currency
// since version 63): a payment inserted through the store (a creation, a
// sandbox restore's rows) adds one to the count of its customer, status and
// currency in payment_counts in the same transaction, and a payment the
// store moves (Move, MoveAll) takes one from its old status's count and
// adds one to its new status's; all written just before the COMMIT, one
// statement per (customer, status, currency) for the whole transaction (a
// group commit's units together) instead of a trigger per INSERT or UPDATE.
// The insert trigger made SQLite keep a statement journal for every
// payment INSERT (a trigger and the foreign key to customers make the
// statement one that may have to be undone half-way) and cost PostgreSQL a
// statement-level trigger, with its transition table, per creation; a
// status trigger would cost the same per move and lock the count rows from
// the UPDATE to the commit, in the order the moves come. Deletes (a
// sandbox reset) and moves to another customer or currency (none in the
// API) keep their triggers (migration_payment_counts.go). A unit rolled
// back to its savepoint in a group's savepoint pass takes its counts with
// it: they are kept per unit, and only the committed units' are written.
// The only statements that write payments.status are insertPayment,
// movePayment and moveAll (payments.go, payments_batch.go) and a restore's
// rows: each counts what it wrote (docs/decisions.md, "Payment counts by
// status and currency").

// paymentKey is what a payment is counted by: GET /payments' filters that
// the counts answer (status, currency) within a customer.
type paymentKey struct{ customer, status, currency string }

// less orders keys by customer, status, currency: the order in which
// writeCounts locks their rows.
func (k paymentKey) less(o paymentKey) int {
	if c := strings.Compare(k.customer, o.customer); c != 0 {
		return c
	}
	if c := strings.Compare(k.status, o.status); c != 0 {
		return c
	}
	return strings.Compare(k.currency, o.currency)
}

// countDeltas is how many payments a transaction (or a unit of a group)
// added to each count (moves take from one and add to another).
type countDeltas map[paymentKey]int64

// countSQL adds $4 to the count of customer $1, status $2, currency $3, on
// the shard of the writing session on PostgreSQL (paymentCountShards),
// shard 0 on SQLite.
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
	return `INSERT INTO ` + paymentCountsTable + ` (customer_id, status, currency, shard, n) VALUES ($1, $2, $3, ` + shard + `, $4)
	ON CONFLICT (customer_id, status, currency, shard) DO UPDATE SET n = ` + paymentCountsTable + `.n + EXCLUDED.n`
}

// countWrites are the statements of payment_counts that warmWrites
// prepares.
func countWrites(d Dialect) []string { return []string{countSQL(d)} }

// deltas returns tx's record of counts, made when needed.
func (s *Store) deltas(tx *sql.Tx) countDeltas {
	d, ok := s.txCounts.Load(tx) // a unit of a group has its own already (enter)
	if !ok {
		d, _ = s.txCounts.LoadOrStore(tx, countDeltas{})
	}
	return d.(countDeltas)
}

// countInserted records that tx inserted a payment of customerID in status
// and currency; it is counted when tx commits (writeCounts).
func (s *Store) countInserted(tx *sql.Tx, customerID, status, currency string) {
	s.deltas(tx)[paymentKey{customerID, status, currency}]++
}

// countMoved records that tx moved a payment of customerID in currency
// from status from to status to.
func (s *Store) countMoved(tx *sql.Tx, customerID, currency, from, to string) {
	if from == to {
		return
	}
	d := s.deltas(tx)
	d[paymentKey{customerID, from, currency}]--
	d[paymentKey{customerID, to, currency}]++
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
	for k, n := range o {
		d[k] += n
	}
}

// writeCounts writes d in tx, the keys in order (two transactions lock
// the rows they share in the same order), each a write nobody reads: on
// PostgreSQL queued, and sent with the COMMIT. Being last in the
// transaction, a count's row stays locked only for the commit. A key whose
// changes cancel out (a payment created and moved in one transaction
// counts +1 on its last status only) is not written.
func (s *Store) writeCounts(ctx context.Context, tx *sql.Tx, d countDeltas) error {
	if len(d) == 0 {
		return nil
	}
	keys := make([]paymentKey, 0, len(d))
	for k, n := range d {
		if n != 0 {
			keys = append(keys, k)
		}
	}
	slices.SortFunc(keys, paymentKey.less)
	q := countSQL(s.dialect)
	for _, k := range keys {
		if _, err := s.txExec(later(ctx, "payment counts"), tx, q, k.customer, k.status, k.currency, d[k]); err != nil {
			return translate(err, "payment counts")
		}
	}
	return nil
}

// RecountPayments sets every count to the payments there are,
// in one transaction: for payments written with SQL of one's own (a bulk
// seed of bankrail-bench), which the store does not count. A sandbox
// restore needs it not: the store counts what it writes.
func (s *Store) RecountPayments(ctx context.Context) error {
	return s.inTx(ctx, func(tx *sql.Tx) error { return s.recountIn(ctx, tx) })
}

// recountPayments writes the counts of the payments there are into an
// empty payment_counts (shard 0).
const recountPayments = `INSERT INTO ` + paymentCountsTable + ` (customer_id, status, currency, shard, n)
	SELECT customer_id, status, currency, 0, COUNT(*) FROM payments GROUP BY customer_id, status, currency`

// recountIn sets every count to the payments there are in tx, and forgets
// what tx had recorded: the recount includes it.
func (s *Store) recountIn(ctx context.Context, tx *sql.Tx) error {
	if d, ok := s.txCounts.Load(tx); ok {
		clear(d.(countDeltas))
	}
	if _, err := tx.ExecContext(ctx, `DELETE FROM `+paymentCountsTable); err != nil {
		return translate(err, "payment counts")
	}
	_, err := tx.ExecContext(ctx, recountPayments)
	return translate(err, "payment counts")
}

// countRestored counts the payments rows a sandbox restore inserted with
// columns cols, by their customer, status and currency, when tx commits;
// rows without one of those columns (they take the column's default) are
// counted from the rows written instead.
func (s *Store) countRestored(ctx context.Context, tx *sql.Tx, cols []string, rows [][]any) error {
	customer, status, currency := slices.Index(cols, "customer_id"), slices.Index(cols, "status"), slices.Index(cols, "currency")
	if customer < 0 || status < 0 || currency < 0 {
		return s.recountIn(ctx, tx)
	}
	for _, row := range rows {
		c, ok1 := text(row[customer])
		st, ok2 := text(row[status])
		cur, ok3 := text(row[currency])
		if !ok1 || !ok2 || !ok3 {
			return s.recountIn(ctx, tx)
		}
		s.countInserted(tx, c, st, cur)
	}
	return nil
}

// text is v as the text of a column, when it is one.
func text(v any) (string, bool) {
	switch v := v.(type) {
	case string:
		return v, true
	case []byte:
		return string(v), true
	}
	return "", false
}
