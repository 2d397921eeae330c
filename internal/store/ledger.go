package store

import (
	"context"
	"database/sql"
	"fmt"
	"slices"

	"github.com/bankrail/bankrail/internal/errs"
	"github.com/bankrail/bankrail/internal/ledger"
	"github.com/bankrail/bankrail/internal/money"
)

// ledgerRepo is the ledger repository over a querier: a unit of work's
// transaction (tx set), or the pools outside one (reads, and writes that
// open a transaction of their own).
type ledgerRepo struct {
	s  *Store
	q  querier
	tx *sql.Tx // nil outside a unit of work
}

var _ ledger.Repository = ledgerRepo{}

// Ledger is the ledger inside the transaction: postings commit with the
// change that causes them.
func (t *Tx) Ledger() ledger.Repository { return ledgerRepo{s: t.s, q: t.tx, tx: t.tx} }

// Ledger is the ledger outside any unit of work: reads on the read pool;
// each write is a transaction of its own.
func (s *Store) Ledger() ledger.Repository { return ledgerRepo{s: s, q: s.read} }

// inTx runs fn on the unit of work's transaction, or in a new one.
func (r ledgerRepo) inTx(ctx context.Context, fn func(ledgerRepo) error) error {
	if r.tx != nil {
		return fn(r)
	}
	return r.s.InTx(ctx, func(tx *Tx) error { return fn(tx.Ledger().(ledgerRepo)) })
}

// CreateAccount inserts a with a zero balance.
func (r ledgerRepo) CreateAccount(ctx context.Context, a ledger.Account) error {
	return r.inTx(ctx, func(r ledgerRepo) error {
		_, err := r.tx.ExecContext(ctx, `
			INSERT INTO ledger_accounts (id, customer_id, type, status, currency, iban, nickname, country, created_at)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
			a.ID, a.CustomerID, string(a.Type), string(a.Status), a.Currency, a.IBAN, a.Nickname, a.Country, micros(a.CreatedAt))
		return translate(err, "account "+a.ID)
	})
}

const accountColumns = `a.id, a.customer_id, a.type, a.status, a.currency, a.iban, a.nickname, a.country,
	a.available, a.pending, a.held, a.created_at`

func scanAccount(row interface{ Scan(...any) error }) (ledger.Account, error) {
	var a ledger.Account
	var typ, status string
	var created int64
	err := row.Scan(&a.ID, &a.CustomerID, &typ, &status, &a.Currency, &a.IBAN, &a.Nickname, &a.Country,
		&a.Balance.Available, &a.Balance.Pending, &a.Balance.Held, &created)
	a.Type, a.Status, a.CreatedAt = ledger.AccountType(typ), ledger.AccountStatus(status), fromMicros(created)
	return a, err
}

// Account reads an account visible to viewerCustomerID.
func (r ledgerRepo) Account(ctx context.Context, viewerCustomerID, id string) (ledger.Account, error) {
	a, err := scanAccount(r.q.QueryRowContext(ctx,
		`SELECT `+accountColumns+` FROM ledger_accounts a WHERE a.id = $1 AND `+visibleTo("a.customer_id", 2), id, viewerCustomerID))
	return a, translate(err, "account "+id)
}

// AccountByIBAN reads the account of an IBAN.
func (r ledgerRepo) AccountByIBAN(ctx context.Context, iban string) (ledger.Account, error) {
	a, err := scanAccount(r.q.QueryRowContext(ctx, `SELECT `+accountColumns+` FROM ledger_accounts a WHERE a.iban = $1`, iban))
	return a, translate(err, "account "+iban)
}

// ConnectAccount reads customerID's oldest ACTIVE Connect account in currency.
func (r ledgerRepo) ConnectAccount(ctx context.Context, customerID, currency string) (ledger.Account, error) {
	a, err := scanAccount(r.q.QueryRowContext(ctx, `SELECT `+accountColumns+` FROM ledger_accounts a
		WHERE a.customer_id = $1 AND a.currency = $2 AND a.type = $3 AND a.status = $4
		ORDER BY a.created_at, a.id LIMIT 1`, customerID, currency, string(ledger.Connected), string(ledger.AccountActive)))
	return a, translate(err, "Connect account in "+currency)
}

// ListAccounts returns one page of the accounts visible to viewerCustomerID.
func (r ledgerRepo) ListAccounts(ctx context.Context, viewerCustomerID string, f ledger.AccountFilter) ([]ledger.Account, int, error) {
	w := visibleWhere("a.customer_id", viewerCustomerID)
	if f.CustomerID != "" {
		w.add("a.customer_id = $%d", f.CustomerID)
	}
	if f.Currency != "" {
		w.add("a.currency = $%d", f.Currency)
	}
	out := []ledger.Account{}
	total, err := r.page(ctx, "accounts", `FROM ledger_accounts a WHERE `+w.sql(), `SELECT `+accountColumns,
		` ORDER BY a.created_at DESC, a.id DESC`, w.args, f.Limit, f.Offset(), func(row *sql.Rows) error {
			a, err := scanAccount(row)
			out = append(out, a)
			return err
		})
	return out, total, err
}

// page counts the rows of from and reads one page of them (columns, then
// order) in one snapshot, calling scan for each row.
func (r ledgerRepo) page(ctx context.Context, what, from, columns, order string, args []any, limit, offset int,
	scan func(*sql.Rows) error) (int, error) {
	var total int
	read := func(q querier) error {
		if err := q.QueryRowContext(ctx, `SELECT COUNT(*) `+from, args...).Scan(&total); err != nil {
			return translate(err, "count "+what)
		}
		if total <= offset {
			return nil
		}
		n := len(args)
		rows, err := q.QueryContext(ctx, columns+` `+from+order+fmt.Sprintf(` LIMIT $%d OFFSET $%d`, n+1, n+2),
			append(slices.Clone(args), limit, offset)...)
		if err != nil {
			return translate(err, "list "+what)
		}
		defer rows.Close()
		for rows.Next() {
			if err := scan(rows); err != nil {
				return translate(err, "list "+what)
			}
		}
		return translate(rows.Err(), "list "+what)
	}
	if r.tx != nil {
		return total, read(r.tx)
	}
	return total, r.s.readTx(ctx, func(tx *sql.Tx) error { return read(tx) })
}

// Record inserts t and posts its first entry.
func (r ledgerRepo) Record(ctx context.Context, t ledger.Transaction, e ledger.Entry) error {
	if e.TransactionID != t.ID {
		return fmt.Errorf("ledger: entry %s is not of transaction %s", e.ID, t.ID)
	}
	return r.inTx(ctx, func(r ledgerRepo) error {
		_, err := r.tx.ExecContext(ctx, `
			INSERT INTO ledger_transactions (id, account_id, customer_id, type, operation, status, amount, currency,
				payment_id, external_id, reference, counterparty_name, counterparty_iban, created_at, updated_at)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15)`,
			t.ID, t.AccountID, t.CustomerID, string(t.Type), string(t.Operation), string(t.Status), t.Amount.Minor(),
			t.Amount.Currency(), t.PaymentID, t.ExternalID, t.Reference, t.Counterparty.Name, t.Counterparty.IBAN,
			micros(t.CreatedAt), micros(t.UpdatedAt))
		if err := translate(err, "transaction "+t.ID); err != nil {
			return err
		}
		return r.post(ctx, e)
	})
}

// Move saves t and its entry while the stored transaction is in status from.
func (r ledgerRepo) Move(ctx context.Context, t ledger.Transaction, from ledger.TxStatus, e ledger.Entry) error {
	if e.TransactionID != t.ID {
		return fmt.Errorf("ledger: entry %s is not of transaction %s", e.ID, t.ID)
	}
	return r.inTx(ctx, func(r ledgerRepo) error {
		res, err := r.tx.ExecContext(ctx, `UPDATE ledger_transactions SET status = $3, updated_at = $4 WHERE id = $1 AND status = $2`,
			t.ID, string(from), string(t.Status), micros(t.UpdatedAt))
		if err := expectOne(res, err, "transaction "+t.ID); errs.Is(err, errs.NotFound) {
			return errs.E(errs.Conflict, "The transaction changed meanwhile; it is no longer %s.", from)
		} else if err != nil {
			return err
		}
		return r.post(ctx, e)
	})
}

// post writes e's lines and moves the cached balances of its accounts, in
// the order of their ids (so that two transactions lock accounts in the
// same order on PostgreSQL). The UPDATE changes a balance only when no
// part of it goes below zero: on PostgreSQL it waits for a concurrent
// writer of the row and evaluates the condition again on the committed
// row; on SQLite the transaction is the only writer.
func (r ledgerRepo) post(ctx context.Context, e ledger.Entry) error {
	if err := ledger.Validate(e); err != nil {
		return err
	}
	accounts := e.Accounts()
	slices.Sort(accounts)
	for _, id := range accounts {
		d := e.Delta(id)
		cur := e.Postings[slices.IndexFunc(e.Postings, func(p ledger.Posting) bool { return p.AccountID == id })].Amount.Currency()
		res, err := r.tx.ExecContext(ctx, `
			UPDATE ledger_accounts SET available = available + $2, pending = pending + $3, held = held + $4
			WHERE id = $1 AND currency = $5 AND available + $2 >= 0 AND pending + $3 >= 0 AND held + $4 >= 0`,
			id, d.Available, d.Pending, d.Held, cur)
		if err := expectOne(res, err, "account "+id); errs.Is(err, errs.NotFound) {
			var have string
			if err := r.tx.QueryRowContext(ctx, `SELECT currency FROM ledger_accounts WHERE id = $1`, id).Scan(&have); err != nil {
				return translate(err, "account "+id)
			}
			if have != cur {
				return fmt.Errorf("ledger: entry %s posts %s to the %s account %s", e.ID, cur, have, id)
			}
			return ledger.InsufficientFunds(id)
		} else if err != nil {
			return err
		}
	}
	for i, p := range e.Postings {
		_, err := r.tx.ExecContext(ctx, `
			INSERT INTO ledger_postings (entry_id, line, transaction_id, account_id, bucket, currency, amount, created_at)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
			e.ID, i, e.TransactionID, p.AccountID, string(p.Bucket), p.Amount.Currency(), p.Amount.Minor(), micros(e.CreatedAt))
		if err := translate(err, "entry "+e.ID); err != nil {
			return err
		}
	}
	return nil
}

const transactionColumns = `t.id, t.account_id, t.customer_id, t.type, t.operation, t.status, t.amount, t.currency,
	t.payment_id, t.external_id, t.reference, t.counterparty_name, t.counterparty_iban, t.created_at, t.updated_at`

func scanTransaction(row interface{ Scan(...any) error }) (ledger.Transaction, error) {
	var t ledger.Transaction
	var typ, op, status, cur string
	var amount, created, updated int64
	if err := row.Scan(&t.ID, &t.AccountID, &t.CustomerID, &typ, &op, &status, &amount, &cur, &t.PaymentID, &t.ExternalID,
		&t.Reference, &t.Counterparty.Name, &t.Counterparty.IBAN, &created, &updated); err != nil {
		return ledger.Transaction{}, err
	}
	m, err := money.New(amount, cur)
	if err != nil {
		return ledger.Transaction{}, fmt.Errorf("transaction %s: %w", t.ID, err)
	}
	t.Type, t.Operation, t.Status, t.Amount = ledger.TxType(typ), ledger.Operation(op), ledger.TxStatus(status), m
	t.CreatedAt, t.UpdatedAt = fromMicros(created), fromMicros(updated)
	return t, nil
}

// Transaction reads a transaction visible to viewerCustomerID.
func (r ledgerRepo) Transaction(ctx context.Context, viewerCustomerID, id string) (ledger.Transaction, error) {
	t, err := scanTransaction(r.q.QueryRowContext(ctx, `SELECT `+transactionColumns+
		` FROM ledger_transactions t WHERE t.id = $1 AND `+visibleTo("t.customer_id", 2), id, viewerCustomerID))
	return t, translate(err, "transaction "+id)
}

// TransactionByExternalID reads the transaction of accountID with externalID.
func (r ledgerRepo) TransactionByExternalID(ctx context.Context, accountID, externalID string) (ledger.Transaction, error) {
	t, err := scanTransaction(r.q.QueryRowContext(ctx, `SELECT `+transactionColumns+
		` FROM ledger_transactions t WHERE t.account_id = $1 AND t.external_id = $2`, accountID, externalID))
	return t, translate(err, "transaction "+externalID)
}

// ListTransactions returns one page of accountID's transactions.
func (r ledgerRepo) ListTransactions(ctx context.Context, viewerCustomerID, accountID string, f ledger.TxFilter) ([]ledger.Transaction, int, error) {
	if _, err := r.Account(ctx, viewerCustomerID, accountID); err != nil {
		return nil, 0, err
	}
	w := visibleWhere("t.customer_id", viewerCustomerID)
	w.add("t.account_id = $%d", accountID)
	if f.Type != "" {
		w.add("t.type = $%d", string(f.Type))
	}
	if f.Status != "" {
		w.add("t.status = $%d", string(f.Status))
	}
	if !f.CreatedFrom.IsZero() {
		w.add("t.created_at >= $%d", micros(f.CreatedFrom))
	}
	if !f.CreatedTo.IsZero() {
		w.add("t.created_at <= $%d", micros(f.CreatedTo))
	}
	out := []ledger.Transaction{}
	total, err := r.page(ctx, "transactions", `FROM ledger_transactions t WHERE `+w.sql(), `SELECT `+transactionColumns,
		` ORDER BY t.created_at DESC, t.id DESC`, w.args, f.Limit, f.Offset(), func(row *sql.Rows) error {
			t, err := scanTransaction(row)
			out = append(out, t)
			return err
		})
	return out, total, err
}

// Entries returns every entry that posts to accountID, oldest first, with
// all their lines.
func (r ledgerRepo) Entries(ctx context.Context, accountID string) ([]ledger.Entry, error) {
	rows, err := r.q.QueryContext(ctx, `
		SELECT p.entry_id, p.transaction_id, p.account_id, p.bucket, p.currency, p.amount, p.created_at
		FROM ledger_postings p
		WHERE p.entry_id IN (SELECT entry_id FROM ledger_postings WHERE account_id = $1)
		ORDER BY p.created_at, p.entry_id, p.line`, accountID)
	if err != nil {
		return nil, translate(err, "postings of account "+accountID)
	}
	defer rows.Close()
	out := []ledger.Entry{}
	for rows.Next() {
		var entryID, txID, acct, bucket, cur string
		var amount, created int64
		if err := rows.Scan(&entryID, &txID, &acct, &bucket, &cur, &amount, &created); err != nil {
			return nil, translate(err, "postings of account "+accountID)
		}
		m, err := money.New(amount, cur)
		if err != nil {
			return nil, fmt.Errorf("posting of entry %s: %w", entryID, err)
		}
		if len(out) == 0 || out[len(out)-1].ID != entryID {
			out = append(out, ledger.Entry{ID: entryID, TransactionID: txID, CreatedAt: fromMicros(created)})
		}
		last := &out[len(out)-1]
		last.Postings = append(last.Postings, ledger.Posting{AccountID: acct, Bucket: ledger.Bucket(bucket), Amount: m})
	}
	return out, translate(rows.Err(), "postings of account "+accountID)
}
