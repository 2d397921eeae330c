package store

import (
	"cmp"
	"context"
	"fmt"
	"slices"

	"github.com/bankrail/bankrail/internal/ledger"
)

// The parts of RecordAll's INSERTs: a full part's statement is prepared
// once (stmt.go's hotWrites).
const (
	recordTxRows      = 100 // transactions (15 values each)
	recordPostingRows = 200 // postings (8 values each)
)

// insertLedgerTransactions is the INSERT of n transactions on d.
func insertLedgerTransactions(d Dialect, n int) string {
	return `INSERT INTO ledger_transactions (id, account_id, customer_id, type, operation, status, amount, currency,
			payment_id, external_id, reference, counterparty_name, counterparty_iban, created_at, updated_at)
		VALUES ` + rowsOf(d, n, 15)
}

// insertPostingRows is the INSERT of n lines of entries on d.
func insertPostingRows(d Dialect, n int) string {
	return `INSERT INTO ledger_postings (entry_id, line, transaction_id, account_id, bucket, currency, amount, created_at)
		VALUES ` + rowsOf(d, n, 8)
}

// batchWrites are the statements of the batch paths on d, prepared once
// beside hotWrites (warmWrites).
func batchWrites(d Dialect) []string {
	return []string{claimAll(d, claimRows), insertLedgerTransactions(d, recordTxRows), insertPostingRows(d, recordPostingRows),
		moveAll(d, moveRows)}
}

// RecordAll inserts ts in INSERTs of recordTxRows, the lines of es in
// INSERTs of recordPostingRows, then moves each account's balance once by
// the sum of its lines (in the order of the accounts' ids, as post).
func (r ledgerRepo) RecordAll(ctx context.Context, ts []ledger.Transaction, es []ledger.Entry) error {
	if len(ts) != len(es) {
		return fmt.Errorf("ledger: %d transactions with %d entries", len(ts), len(es))
	}
	type bucket struct{ account, currency string }
	sums := map[bucket]ledger.Balance{}
	var lines []any
	for i, e := range es {
		if e.TransactionID != ts[i].ID {
			return fmt.Errorf("ledger: entry %s is not of transaction %s", e.ID, ts[i].ID)
		}
		if err := ledger.Validate(e); err != nil {
			return err
		}
		for n, p := range e.Postings {
			lines = append(lines, e.ID, n, e.TransactionID, p.AccountID, string(p.Bucket), p.Amount.Currency(), p.Amount.Minor(), micros(e.CreatedAt))
		}
		for _, id := range e.Accounts() {
			cur := e.Postings[slices.IndexFunc(e.Postings, func(p ledger.Posting) bool { return p.AccountID == id })].Amount.Currency()
			d, k := e.Delta(id), bucket{id, cur}
			s := sums[k]
			s.Available, s.Pending, s.Held = s.Available+d.Available, s.Pending+d.Pending, s.Held+d.Held
			sums[k] = s
		}
	}
	return r.inTx(ctx, func(r ledgerRepo) error {
		for lo := 0; lo < len(ts); lo += recordTxRows {
			part := ts[lo:min(lo+recordTxRows, len(ts))]
			args := make([]any, 0, 15*len(part))
			for _, t := range part {
				args = append(args, t.ID, t.AccountID, t.CustomerID, string(t.Type), string(t.Operation), string(t.Status), t.Amount.Minor(),
					t.Amount.Currency(), t.PaymentID, t.ExternalID, t.Reference, t.Counterparty.Name, t.Counterparty.IBAN,
					micros(t.CreatedAt), micros(t.UpdatedAt))
			}
			if _, err := r.s.txExec(ctx, r.tx, insertLedgerTransactions(r.s.dialect, len(part)), args...); err != nil {
				return translate(err, fmt.Sprintf("%d transactions", len(part)))
			}
		}
		for lo := 0; lo < len(lines); lo += 8 * recordPostingRows {
			part := lines[lo:min(lo+8*recordPostingRows, len(lines))]
			if _, err := r.s.txExec(ctx, r.tx, insertPostingRows(r.s.dialect, len(part)/8), part...); err != nil {
				return translate(err, fmt.Sprintf("%d entries", len(es)))
			}
		}
		keys := make([]bucket, 0, len(sums))
		for k := range sums {
			keys = append(keys, k)
		}
		slices.SortFunc(keys, func(a, b bucket) int {
			return cmp.Or(cmp.Compare(a.account, b.account), cmp.Compare(a.currency, b.currency))
		})
		for _, k := range keys {
			if err := r.moveBalance(ctx, k.account, k.currency, sums[k], fmt.Sprintf("%d entries", len(es))); err != nil {
				return err
			}
		}
		return nil
	})
}
