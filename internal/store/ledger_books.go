package store

import (
	"context"
	"database/sql"

	"github.com/bankrail/bankrail/internal/ledger"
)

// booksReader reads the books for ledger.Verify with SQL aggregates both
// engines run alike, streaming rows: memory does not grow with the
// ledger. Amounts are summed in the two parts of ledger.Sum (amount
// divided by 2³², truncated, and the remainder), sums that cannot overflow
// in SQL (SQLite's SUM fails on an overflow, PostgreSQL's is numeric); Go
// combines them and sees an overflow.
type booksReader struct{ q querier }

var _ ledger.BooksReader = booksReader{}

// The parts of an amount (ledger.SplitBase).
const (
	amountHigh = `amount / 4294967296`
	amountLow  = `amount % 4294967296`
)

// bookSumsSQL is every account's cached balance (bucket ”) followed by
// the sums of its postings per bucket, and the sums of postings whose
// account is not in the books, ordered by account: ” sorts first.
const bookSumsSQL = `
	SELECT id, '', 1, available, pending, held FROM ledger_accounts
	UNION ALL
	SELECT account_id, bucket, 0, CAST(SUM(` + amountHigh + `) AS BIGINT), CAST(SUM(` + amountLow + `) AS BIGINT), 0
	FROM ledger_postings WHERE bucket <> 'EXTERNAL' GROUP BY account_id, bucket
	ORDER BY 1, 2`

// Accounts streams every account with its cached balance and its
// postings' sums.
func (b booksReader) Accounts(ctx context.Context, fn func(ledger.AccountSums) error) error {
	rows, err := b.q.QueryContext(ctx, bookSumsSQL)
	if err != nil {
		return translate(err, "sums of the accounts' postings")
	}
	defer rows.Close()
	var cur ledger.AccountSums
	started := false
	for rows.Next() {
		var id, bucket string
		var isAccount int
		var a, p, h int64
		if err := rows.Scan(&id, &bucket, &isAccount, &a, &p, &h); err != nil {
			return translate(err, "sums of the accounts' postings")
		}
		if !started || id != cur.AccountID {
			if started {
				if err := fn(cur); err != nil {
					return err
				}
			}
			started = true
			cur = ledger.AccountSums{AccountID: id, Summed: map[ledger.Bucket]ledger.Sum{}}
		}
		if isAccount == 1 {
			cur.Exists, cur.Cached = true, ledger.Balance{Available: a, Pending: p, Held: h}
		} else {
			cur.Summed[ledger.Bucket(bucket)] = ledger.Sum{High: a, Low: p}
		}
	}
	if err := rows.Err(); err != nil {
		return translate(err, "sums of the accounts' postings")
	}
	if started {
		return fn(cur)
	}
	return nil
}

// entrySumsSQL is the (entry, currency) pairs whose parts do not both sum
// to zero: every unbalanced entry, and the rare balanced one whose amounts
// cross 2³² in different ways (ledger.Verify combines the parts).
const entrySumsSQL = `
	SELECT entry_id, currency, CAST(SUM(` + amountHigh + `) AS BIGINT), CAST(SUM(` + amountLow + `) AS BIGINT)
	FROM ledger_postings GROUP BY entry_id, currency
	HAVING SUM(` + amountHigh + `) <> 0 OR SUM(` + amountLow + `) <> 0`

// Entries streams the entries that may not sum to zero.
func (b booksReader) Entries(ctx context.Context, fn func(ledger.EntrySums) error) error {
	rows, err := b.q.QueryContext(ctx, entrySumsSQL)
	if err != nil {
		return translate(err, "sums of the entries' postings")
	}
	defer rows.Close()
	for rows.Next() {
		var e ledger.EntrySums
		if err := rows.Scan(&e.EntryID, &e.Currency, &e.Summed.High, &e.Summed.Low); err != nil {
			return translate(err, "sums of the entries' postings")
		}
		if err := fn(e); err != nil {
			return err
		}
	}
	return translate(rows.Err(), "sums of the entries' postings")
}

// Count counts entries and postings.
func (b booksReader) Count(ctx context.Context) (entries, postings int64, err error) {
	err = b.q.QueryRowContext(ctx, `SELECT COUNT(DISTINCT entry_id), COUNT(*) FROM ledger_postings`).Scan(&entries, &postings)
	return entries, postings, translate(err, "count of the postings")
}

// books reads the whole books in one read transaction: one snapshot, on
// PostgreSQL too (REPEATABLE READ).
type books struct{ s *Store }

// Books is the books for ledger.VerifyBooks.
func (s *Store) Books() ledger.Books { return books{s} }

// Read calls fn with a reader of one snapshot of the books.
func (b books) Read(ctx context.Context, fn func(ledger.BooksReader) error) error {
	return b.s.readTx(ctx, func(tx *sql.Tx) error { return fn(booksReader{q: tx}) })
}
