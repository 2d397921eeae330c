package store

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/bankrail/bankrail/internal/ledger"
)

// The parts of RecordAll's INSERTs: a full part's statement is prepared
// once (stmt.go's hotWrites).
const (
	recordTxRows      = 100 // transactions (15 values each)
	recordPostingRows = 200 // postings (8 values each)
)

// The columns RecordAll writes.
var (
	ledgerTransactionColumns = []string{"id", "account_id", "customer_id", "type", "operation", "status", "amount", "currency",
		"payment_id", "external_id", "reference", "counterparty_name", "counterparty_iban", "created_at", "updated_at"}
	ledgerPostingColumns = []string{"entry_id", "line", "transaction_id", "account_id", "bucket", "currency", "amount", "created_at"}
)

// insertLedgerTransactions is the INSERT of n transactions on d.
func insertLedgerTransactions(d Dialect, n int) string {
	return `INSERT INTO ledger_transactions (` + strings.Join(ledgerTransactionColumns, ", ") + `) VALUES ` + rowsOf(d, n, len(ledgerTransactionColumns))
}

// insertPostingRows is the INSERT of n lines of entries on d.
func insertPostingRows(d Dialect, n int) string {
	return `INSERT INTO ledger_postings (` + strings.Join(ledgerPostingColumns, ", ") + `) VALUES ` + rowsOf(d, n, len(ledgerPostingColumns))
}

// batchWrites are the statements of the batch paths on d, prepared once
// beside hotWrites (warmWrites).
func batchWrites(d Dialect) []string {
	return []string{claimAll(d, claimRows), insertLedgerTransactions(d, recordTxRows), insertPostingRows(d, recordPostingRows),
		moveAll(d, moveRows), insertEvents(d, eventRows), insertNotifications(d, enqueueRows)}
}

// RecordAll inserts ts and the lines of es, each by one COPY on PostgreSQL
// (bulkInsert), else in INSERTs of recordTxRows and recordPostingRows, then moves each account's balance once by
// the sum of its lines (in the order of the accounts' ids, as post).
func (r ledgerRepo) RecordAll(ctx context.Context, ts []ledger.Transaction, es []ledger.Entry) error {
	if len(ts) != len(es) {
		return fmt.Errorf("ledger: %d transactions with %d entries", len(ts), len(es))
	}
	type bucket struct{ account, currency string }
	sums := map[bucket]ledger.Balance{}
	var lines [][]any
	for i, e := range es {
		if e.TransactionID != ts[i].ID {
			return fmt.Errorf("ledger: entry %s is not of transaction %s", e.ID, ts[i].ID)
		}
		if err := ledger.Validate(e); err != nil {
			return err
		}
		for n, p := range e.Postings {
			lines = append(lines, []any{e.ID, n, e.TransactionID, p.AccountID, string(p.Bucket), p.Amount.Currency(), p.Amount.Minor(), micros(e.CreatedAt)})
		}
		for _, id := range e.Accounts() {
			cur := e.Postings[slices.IndexFunc(e.Postings, func(p ledger.Posting) bool { return p.AccountID == id })].Amount.Currency()
			d, k := e.Delta(id), bucket{id, cur}
			s := sums[k]
			s.Available, s.Pending, s.Held = s.Available+d.Available, s.Pending+d.Pending, s.Held+d.Held
			sums[k] = s
		}
	}
	txRows := make([][]any, len(ts))
	for i, t := range ts {
		txRows[i] = []any{t.ID, t.AccountID, t.CustomerID, string(t.Type), string(t.Operation), string(t.Status), t.Amount.Minor(),
			t.Amount.Currency(), t.PaymentID, t.ExternalID, t.Reference, t.Counterparty.Name, t.Counterparty.IBAN,
			micros(t.CreatedAt), micros(t.UpdatedAt)}
	}
	return r.inTx(ctx, func(r ledgerRepo) error {
		if err := r.s.bulkInsert(ctx, r.tx, "ledger_transactions", ledgerTransactionColumns, txRows, recordTxRows,
			insertLedgerTransactions, fmt.Sprintf("%d transactions", len(ts))); err != nil {
			return err
		}
		if err := r.s.bulkInsert(ctx, r.tx, "ledger_postings", ledgerPostingColumns, lines, recordPostingRows,
			insertPostingRows, fmt.Sprintf("%d entries", len(es))); err != nil {
			return err
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
