package store

import (
	"context"
	"strconv"
	"strings"

	"github.com/bankrail/bankrail/internal/ledger"
	"github.com/bankrail/bankrail/internal/payment"
	"github.com/bankrail/bankrail/internal/statement"
)

// batchRows is how many rows (claims) or values (look-ups) one statement
// of a batch takes at most: well below both engines' limits of bound
// parameters (SQLite 32,766, PostgreSQL 65,535).
const batchRows = 1000

// binder collects the arguments of a statement of many values and writes
// their placeholders: $n on PostgreSQL; ? on SQLite, whose driver looks
// each numbered parameter's name up in a list (a statement of n of them
// binds in n² steps), while anonymous ones bind in order.
type binder struct {
	pg   bool
	args []any
}

func (s *Store) binder() *binder { return &binder{pg: s.dialect == Postgres} }

// add takes v and returns its placeholder.
func (b *binder) add(v any) string {
	b.args = append(b.args, v)
	if b.pg {
		return "$" + strconv.Itoa(len(b.args))
	}
	return "?"
}

// row takes vs and returns "(p1, ..., pn)".
func (b *binder) row(vs ...any) string {
	marks := make([]string, len(vs))
	for i, v := range vs {
		marks[i] = b.add(v)
	}
	return "(" + strings.Join(marks, ", ") + ")"
}

// list takes vs and returns "p1, ..., pn".
func (b *binder) list(vs []string) string {
	marks := make([]string, len(vs))
	for i, v := range vs {
		marks[i] = b.add(v)
	}
	return strings.Join(marks, ", ")
}

// rowsOf returns the placeholders of n rows of width values, as
// row would write them, without values (a prepared statement's text).
func rowsOf(d Dialect, n, width int) string {
	b := &binder{pg: d == Postgres}
	rows := make([]string, n)
	vs := make([]any, width)
	for i := range rows {
		rows[i] = b.row(vs...)
	}
	return strings.Join(rows, ", ")
}

// claimRows is how many claims one INSERT of ClaimAll takes: the INSERT of
// a full part is prepared once (stmt.go's hotWrites); SQLite would parse a
// statement of a whole batch's placeholders again for every batch.
const claimRows = 100

// claimAll is ClaimAll's INSERT of n claims on d.
func claimAll(d Dialect, n int) string {
	return `INSERT INTO statement_entries (entry_key, identity, iban, import_id, created_at)
			VALUES ` + rowsOf(d, n, 5) + ` ON CONFLICT (entry_key) DO NOTHING RETURNING entry_key`
}

// ClaimAll inserts the keys of cs that are not there, a multi-row INSERT
// ... ON CONFLICT DO NOTHING RETURNING a statement of up to claimRows, and
// reports which of cs it claimed: of two claims of one key in cs, the
// first. A concurrent claim of a key waits for the first to end (callers
// give cs in key order, so that two batches never wait for each other).
func (r statements) ClaimAll(ctx context.Context, cs []statement.Claim) ([]bool, error) {
	claimed := make([]bool, len(cs))
	for lo := 0; lo < len(cs); lo += claimRows {
		part := cs[lo:min(lo+claimRows, len(cs))]
		args := make([]any, 0, 5*len(part))
		for _, c := range part {
			args = append(args, c.Key, c.Identity, c.IBAN, c.ImportID, micros(c.At))
		}
		rows, err := r.q.QueryContext(ctx, claimAll(r.s.dialect, len(part)), args...)
		if err != nil {
			return nil, translate(err, "statement entries")
		}
		got := map[string]bool{}
		for rows.Next() {
			var k string
			if err := rows.Scan(&k); err != nil {
				rows.Close()
				return nil, translate(err, "statement entries")
			}
			got[k] = true
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return nil, translate(err, "statement entries")
		}
		for i, c := range part {
			if got[c.Key] {
				claimed[lo+i], got[c.Key] = true, false // a second claim of the key in cs is a duplicate
			}
		}
	}
	return claimed, nil
}

// bookedPostgres is Booked's query on PostgreSQL: one look-up of the
// unique index ledger_transactions_external per external id (the array
// $2, each once), each a LATERAL subquery with LIMIT 1 that the planner cannot turn
// into a join. An IN list was planned, with the statistics of a table
// that grows during the import (an account of a few rows when it was last
// analysed), as a scan of every transaction of the account filtered by
// the list: a cost that grew with the file (docs/performance.md,
// "The statement import on PostgreSQL").
const bookedPostgres = `SELECT ` + transactionColumns + ` FROM (SELECT DISTINCT ext FROM unnest(CAST($2 AS TEXT[])) AS u(ext)) AS w
	CROSS JOIN LATERAL (SELECT ` + transactionColumns + ` FROM ledger_transactions t
		WHERE t.account_id = $1 AND t.external_id = w.ext AND t.external_id <> '' LIMIT 1) t`

// Booked reads the transactions of accountID whose external id is one of
// externalIDs, a statement of up to batchRows ids.
func (r statements) Booked(ctx context.Context, accountID string, externalIDs []string) ([]ledger.Transaction, error) {
	var out []ledger.Transaction
	for lo := 0; lo < len(externalIDs); lo += batchRows {
		part := externalIDs[lo:min(lo+batchRows, len(externalIDs))]
		b := r.s.binder()
		q, args := `SELECT `+transactionColumns+` FROM ledger_transactions t
			WHERE t.account_id = `+b.add(accountID)+` AND t.external_id IN (`+b.list(part)+`) AND t.external_id <> ''`, b.args
		if r.s.dialect == Postgres {
			q, args = bookedPostgres, []any{accountID, part}
		}
		rows, err := r.q.QueryContext(ctx, q, args...)
		if err != nil {
			return nil, translate(err, "transactions by external id")
		}
		for rows.Next() {
			t, err := scanTransaction(rows)
			if err != nil {
				rows.Close()
				return nil, translate(err, "transactions by external id")
			}
			out = append(out, t)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return nil, translate(err, "transactions by external id")
		}
	}
	return out, nil
}

// expectedPostgres is Expected's query on PostgreSQL: for each reference
// of the array $2, a look-up of payments_connect_reference and one of the
// primary key, each a LATERAL subquery the planner cannot turn into a
// join (OFFSET 0; LIMIT 1 on the key), for the reason bookedPostgres
// gives: IN lists were planned as scans of every payment of the account.
var expectedPostgres = `SELECT ` + paymentColumns + ` FROM payments p WHERE p.id IN (
		SELECT x.id FROM unnest(CAST($2 AS TEXT[])) AS w(ref) CROSS JOIN LATERAL (SELECT x.id FROM payments x
			WHERE x.connect_account_id = $1 AND x.connect_account_id <> '' AND x.unique_reference = w.ref
				AND x.status = ANY(CAST($3 AS TEXT[])) OFFSET 0) x
		UNION
		SELECT y.id FROM unnest(CAST($2 AS TEXT[])) AS w(ref) CROSS JOIN LATERAL (SELECT y.id FROM payments y
			WHERE y.id = w.ref AND y.connect_account_id = $1 AND y.status = ANY(CAST($3 AS TEXT[])) LIMIT 1) y)`

// Expected reads the payments expected on Connect account accountID, in
// one of statuses, whose uniqueReference or id is one of refs: the
// candidates of MatchExpected for every reference of a batch, through the
// same two indexes (payments_connect_reference, the primary key), a
// statement of up to batchRows references.
func (r statements) Expected(ctx context.Context, accountID string, refs []string, statuses []payment.Status) ([]payment.Payment, error) {
	var out []payment.Payment
	for lo := 0; lo < len(refs); lo += batchRows {
		part := refs[lo:min(lo+batchRows, len(refs))]
		sts := make([]string, len(statuses))
		for i, st := range statuses {
			sts[i] = string(st)
		}
		b := r.s.binder()
		q := `SELECT ` + paymentColumns + ` FROM payments p WHERE p.id IN (
				SELECT x.id FROM payments x WHERE x.connect_account_id = ` + b.add(accountID) + ` AND x.connect_account_id <> ''
					AND x.unique_reference IN (` + b.list(part) + `) AND x.status IN (` + b.list(sts) + `)
				UNION
				SELECT y.id FROM payments y WHERE y.id IN (` + b.list(part) + `) AND y.connect_account_id = ` + b.add(accountID) + `
					AND y.status IN (` + b.list(sts) + `))`
		args := b.args
		if r.s.dialect == Postgres {
			q, args = expectedPostgres, []any{accountID, part, sts}
		}
		rows, err := r.q.QueryContext(ctx, q, args...)
		if err != nil {
			return nil, translate(err, "expected payments")
		}
		for rows.Next() {
			p, err := scanPayment(rows)
			if err != nil {
				rows.Close()
				return nil, translate(err, "expected payments")
			}
			out = append(out, p)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return nil, translate(err, "expected payments")
		}
	}
	return out, nil
}
