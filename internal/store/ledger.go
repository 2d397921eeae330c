package store

import (
	"context"
	"database/sql"
	"fmt"
	"slices"
	"strings"

	"github.com/bankrail/bankrail/internal/errs"
	"github.com/bankrail/bankrail/internal/ledger"
	"github.com/bankrail/bankrail/internal/money"
	"github.com/bankrail/bankrail/internal/paging"
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
func (t *Tx) Ledger() ledger.Repository { return ledgerRepo{s: t.s, q: t.s.inside(t.tx), tx: t.tx} }

// Ledger is the ledger outside any unit of work: reads on the read pool;
// each write is a transaction of its own.
func (s *Store) Ledger() ledger.Repository { return ledgerRepo{s: s, q: s.onPool(s.read)} }

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

// connectAccountsSQL reads a customer's accounts of a type and status in a
// currency, oldest first (a hot query: every POST /payments runs it).
const connectAccountsSQL = `SELECT ` + accountColumns + ` FROM ledger_accounts a
	WHERE a.customer_id = $1 AND a.currency = $2 AND a.type = $3 AND a.status = $4
	ORDER BY a.created_at, a.id`

// ConnectAccounts reads customerID's ACTIVE Connect accounts in currency,
// oldest first.
func (r ledgerRepo) ConnectAccounts(ctx context.Context, customerID, currency string) ([]ledger.Account, error) {
	rows, err := r.q.QueryContext(ctx, connectAccountsSQL, customerID, currency, string(ledger.Connected), string(ledger.AccountActive))
	if err != nil {
		return nil, translate(err, "Connect accounts in "+currency)
	}
	defer rows.Close()
	out := []ledger.Account{}
	for rows.Next() {
		a, err := scanAccount(rows)
		if err != nil {
			return nil, translate(err, "Connect accounts in "+currency)
		}
		out = append(out, a)
	}
	return out, translate(rows.Err(), "Connect accounts in "+currency)
}

// ListAccounts returns one page of the accounts visible to viewerCustomerID,
// newest first, read from the ledger_accounts_customer_created index in
// order (readPage).
func (r ledgerRepo) ListAccounts(ctx context.Context, viewerCustomerID string, f ledger.AccountFilter) (paging.Page[ledger.Account], error) {
	l := keysetList{what: "accounts", table: "ledger_accounts", alias: "a", columns: accountColumns,
		orderIndex: "ledger_accounts_customer_created", viewer: viewerCustomerID}
	l.only(f.CustomerID)
	l.equal("currency", f.Currency)
	return readPage(ctx, r.s, r.tx, l, f.Page, f.Limit, f.After, scanAccount,
		func(a ledger.Account) paging.Position { return paging.Position{CreatedAt: a.CreatedAt, ID: a.ID} })
}

// Record inserts t and posts its first entry.
func (r ledgerRepo) Record(ctx context.Context, t ledger.Transaction, e ledger.Entry) error {
	if e.TransactionID != t.ID {
		return fmt.Errorf("ledger: entry %s is not of transaction %s", e.ID, t.ID)
	}
	return r.inTx(ctx, func(r ledgerRepo) error {
		_, err := r.s.txExec(ctx, r.tx, insertLedgerTransaction,
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
		res, err := r.s.txExec(ctx, r.tx, moveLedgerTransaction,
			t.ID, string(from), string(t.Status), micros(t.UpdatedAt))
		if err := expectOne(res, err, "transaction "+t.ID); errs.Is(err, errs.NotFound) {
			return errs.E(errs.Conflict, "The transaction changed meanwhile; it is no longer %s.", from)
		} else if err != nil {
			return err
		}
		return r.post(ctx, e)
	})
}

// post writes e's lines and then moves the cached balances of its
// accounts, in the order of their ids (so that two transactions lock
// accounts in the same order on PostgreSQL). The lines go in one INSERT,
// and the balances move last: on PostgreSQL the UPDATE holds the account's
// row until the unit of work commits, and every movement of one account
// queues on that lock, so the less a unit of work does after it the more
// movements an account takes per second. The UPDATE changes a balance only
// when no part of it goes below zero: on PostgreSQL it waits for a
// concurrent writer of the row and evaluates the condition again on the
// committed row; on SQLite the transaction is the only writer. A refused
// entry fails the unit of work, which rolls back what it wrote.
func (r ledgerRepo) post(ctx context.Context, e ledger.Entry) error {
	if err := ledger.Validate(e); err != nil {
		return err
	}
	args := make([]any, 0, 8*len(e.Postings))
	for i, p := range e.Postings {
		args = append(args, e.ID, i, e.TransactionID, p.AccountID, string(p.Bucket), p.Amount.Currency(), p.Amount.Minor(), micros(e.CreatedAt))
	}
	_, err := r.s.txExec(ctx, r.tx, insertPostings(len(e.Postings)), args...)
	if err := translate(err, "entry "+e.ID); err != nil {
		return err
	}
	accounts := e.Accounts()
	slices.Sort(accounts)
	for _, id := range accounts {
		cur := e.Postings[slices.IndexFunc(e.Postings, func(p ledger.Posting) bool { return p.AccountID == id })].Amount.Currency()
		if err := r.moveBalance(ctx, id, cur, e.Delta(id), "entry "+e.ID); err != nil {
			return err
		}
	}
	return nil
}

// moveBalance moves the cached balance of account id by d, refused (the
// unit of work fails) when a part of it would go below zero or the
// account is not in cur; what names the entries, for the error.
func (r ledgerRepo) moveBalance(ctx context.Context, id, cur string, d ledger.Balance, what string) error {
	res, err := r.s.txExec(ctx, r.tx, moveBalance,
		id, d.Available, d.Pending, d.Held, cur)
	if err := expectOne(res, err, "account "+id); errs.Is(err, errs.NotFound) {
		var have string
		if err := r.tx.QueryRowContext(ctx, `SELECT currency FROM ledger_accounts WHERE id = $1`, id).Scan(&have); err != nil {
			return translate(err, "account "+id)
		}
		if have != cur {
			return fmt.Errorf("ledger: %s posts %s to the %s account %s", what, cur, have, id)
		}
		return ledger.InsufficientFunds(id)
	} else if err != nil {
		return err
	}
	return nil
}

// The statements of every movement of money, prepared once (stmt.go's
// hotWrites): SQLite parses every statement it is not given prepared.
const (
	insertLedgerTransaction = `
		INSERT INTO ledger_transactions (id, account_id, customer_id, type, operation, status, amount, currency,
			payment_id, external_id, reference, counterparty_name, counterparty_iban, created_at, updated_at)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15)`
	moveLedgerTransaction = `UPDATE ledger_transactions SET status = $3, updated_at = $4 WHERE id = $1 AND status = $2`
	moveBalance           = `
		UPDATE ledger_accounts SET available = available + $2, pending = pending + $3, held = held + $4
		WHERE id = $1 AND currency = $5 AND available + $2 >= 0 AND pending + $3 >= 0 AND held + $4 >= 0`
)

// insertPostings is the INSERT of n lines of an entry (every entry of the
// ledger's moves has two: the text is the same each time, and prepared).
func insertPostings(n int) string {
	values := make([]string, n)
	for i := range values {
		k := 8 * i
		values[i] = fmt.Sprintf("($%d, $%d, $%d, $%d, $%d, $%d, $%d, $%d)", k+1, k+2, k+3, k+4, k+5, k+6, k+7, k+8)
	}
	return `INSERT INTO ledger_postings (entry_id, line, transaction_id, account_id, bucket, currency, amount, created_at)
		VALUES ` + strings.Join(values, ", ")
}

func init() {
	hotWrites = append(hotWrites, insertLedgerTransaction, moveLedgerTransaction, moveBalance, insertPostings(2))
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

// TransactionByExternalID reads the transaction of accountID with externalID
// (through the partial unique index ledger_transactions_external, which
// the planner takes only when the query repeats its condition).
func (r ledgerRepo) TransactionByExternalID(ctx context.Context, accountID, externalID string) (ledger.Transaction, error) {
	t, err := scanTransaction(r.q.QueryRowContext(ctx, `SELECT `+transactionColumns+
		` FROM ledger_transactions t WHERE t.account_id = $1 AND t.external_id = $2 AND t.external_id <> ''`, accountID, externalID))
	return t, translate(err, "transaction "+externalID)
}

// ListTransactions returns one page of accountID's transactions, newest
// first, read from the ledger_transactions_account index in order
// (readPage).
func (r ledgerRepo) ListTransactions(ctx context.Context, viewerCustomerID, accountID string, f ledger.TxFilter) (paging.Page[ledger.Transaction], error) {
	if _, err := r.Account(ctx, viewerCustomerID, accountID); err != nil {
		return paging.Page[ledger.Transaction]{}, err
	}
	l := keysetList{what: "transactions", table: "ledger_transactions", alias: "t", columns: transactionColumns,
		scope: "account_id", scopeID: accountID, from: f.CreatedFrom, to: f.CreatedTo,
		rowConds: []keysetCond{visibleCond(viewerCustomerID)}}
	l.equal("type", string(f.Type))
	l.equal("status", string(f.Status))
	return readPage(ctx, r.s, r.tx, l, f.Page, f.Limit, f.After, scanTransaction,
		func(t ledger.Transaction) paging.Position { return paging.Position{CreatedAt: t.CreatedAt, ID: t.ID} })
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
