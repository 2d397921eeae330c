package store

import (
	"context"
	"database/sql"

	"github.com/bankrail/bankrail/internal/audit"
	"github.com/bankrail/bankrail/internal/errs"
	"github.com/bankrail/bankrail/internal/ledger"
	"github.com/bankrail/bankrail/internal/refund"
)

// refunds is the refund repository over a unit of work's transaction or
// the read pool.
type refunds struct {
	s  *Store
	q  querier
	tx *sql.Tx // nil outside a unit of work
}

// exec runs a write, prepared inside a unit of work (stmt.go).
func (r refunds) exec(ctx context.Context, query string, args ...any) (sql.Result, error) {
	if r.tx != nil {
		return r.s.txExec(ctx, r.tx, query, args...)
	}
	return r.q.ExecContext(ctx, query, args...)
}

// The statements of a refund's writes, prepared once (stmt.go's hotWrites).
const (
	reserveRefund = `
		INSERT INTO refund_totals (payment_id, refunded) VALUES ($1, $2)
		ON CONFLICT (payment_id) DO UPDATE SET refunded = refund_totals.refunded + excluded.refunded
		WHERE refund_totals.refunded + excluded.refunded <= $3`
	insertRefund = `
		INSERT INTO refunds (id, payment_id, account_id, customer_id, client_id, notification_url, amount, currency,
			external_reference, status, transaction_id, created_at, updated_at)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)`
	settleRefund  = `UPDATE refunds SET status = $2, updated_at = $3 WHERE id = $1 AND status = $4`
	giveBackTotal = `UPDATE refund_totals SET refunded = refunded - $2 WHERE payment_id = $1`
)

func init() { hotWrites = append(hotWrites, reserveRefund, insertRefund, settleRefund, giveBackTotal) }

var (
	_ refund.Repository = refunds{}
	_ refund.Repos      = (*Tx)(nil)
)

// Refunds is the refund repository inside the transaction.
func (t *Tx) Refunds() refund.Repository { return refunds{s: t.s, q: t.tx, tx: t.tx} }

// Refunds reads refunds outside any unit of work (on the read pool: its
// writes belong in a unit of work, Tx.Refunds).
func (s *Store) Refunds() refund.Repository { return refunds{s: s, q: s.read} }

// Create reserves f's amount within limit and inserts f (Reserve, then
// Insert).
func (r refunds) Create(ctx context.Context, f refund.Refund, limit int64) error {
	if err := r.Reserve(ctx, f.PaymentID, f.Amount, limit); err != nil {
		return err
	}
	return r.Insert(ctx, f)
}

// Reserve adds amount to the payment's refunded total while it stays
// within limit: a conditional upsert, which also holds the payment's row of
// refund_totals until the unit of work ends.
func (r refunds) Reserve(ctx context.Context, paymentID string, amount, limit int64) error {
	if amount > limit {
		return refund.ErrOverRefund
	}
	res, err := r.exec(ctx, reserveRefund, paymentID, amount, limit)
	if err := expectOne(res, err, "refunded total of payment "+paymentID); errs.Is(err, errs.NotFound) {
		return refund.ErrOverRefund
	} else if err != nil {
		return err
	}
	return nil
}

// Insert inserts f (its ledger transaction must exist).
func (r refunds) Insert(ctx context.Context, f refund.Refund) error {
	audit.Resource(ctx, "refund", f.ID)
	_, err := r.exec(ctx, insertRefund,
		f.ID, f.PaymentID, f.AccountID, f.CustomerID, f.ClientID, f.NotificationURL, f.Amount, f.Currency,
		f.ExternalReference, string(f.Status), f.TransactionID, micros(f.CreatedAt), micros(f.UpdatedAt))
	return translate(err, "refund "+f.ID)
}

// Settle saves f's final status while it is PENDING; FAILED and REJECTED
// give the amount back to the payment's total. It updates the payment's
// row of refund_totals in every case: that row lock serialises the
// settlements of one payment's refunds, whose notifications share the
// payment's ordering in the outbox.
func (r refunds) Settle(ctx context.Context, f refund.Refund) error {
	res, err := r.exec(ctx, settleRefund,
		f.ID, string(f.Status), micros(f.UpdatedAt), string(refund.Pending))
	if err := expectOne(res, err, "pending refund "+f.ID); err != nil {
		return err
	}
	back := f.Amount
	if f.Status == refund.Confirmed {
		back = 0
	}
	_, err = r.exec(ctx, giveBackTotal, f.PaymentID, back)
	return translate(err, "refunded total of payment "+f.PaymentID)
}

const refundColumns = `f.id, f.payment_id, f.account_id, f.customer_id, f.client_id, f.notification_url, f.amount, f.currency,
	f.external_reference, f.status, f.transaction_id, f.created_at, f.updated_at`

func scanRefund(row interface{ Scan(...any) error }) (refund.Refund, error) {
	var f refund.Refund
	var status string
	var created, updated int64
	err := row.Scan(&f.ID, &f.PaymentID, &f.AccountID, &f.CustomerID, &f.ClientID, &f.NotificationURL, &f.Amount, &f.Currency,
		&f.ExternalReference, &status, &f.TransactionID, &created, &updated)
	f.Status, f.CreatedAt, f.UpdatedAt = refund.Status(status), fromMicros(created), fromMicros(updated)
	return f, err
}

// Get reads a refund visible to viewerCustomerID.
func (r refunds) Get(ctx context.Context, viewerCustomerID, id string) (refund.Refund, error) {
	f, err := scanRefund(r.q.QueryRowContext(ctx, `SELECT `+refundColumns+` FROM refunds f WHERE f.id = $1 AND `+
		visibleTo("f.customer_id", 2), id, viewerCustomerID))
	return f, translate(err, "refund "+id)
}

// OfTransaction reads the refund, visible to viewerCustomerID, whose
// ledger transaction is transactionID.
func (r refunds) OfTransaction(ctx context.Context, viewerCustomerID, transactionID string) (refund.Refund, error) {
	f, err := scanRefund(r.q.QueryRowContext(ctx, `SELECT `+refundColumns+` FROM refunds f WHERE f.transaction_id = $1 AND `+
		visibleTo("f.customer_id", 2), transactionID, viewerCustomerID))
	return f, translate(err, "refund of transaction "+transactionID)
}

// OfPayment lists a payment's refunds, oldest first.
func (r refunds) OfPayment(ctx context.Context, paymentID string) ([]refund.Refund, error) {
	rows, err := r.q.QueryContext(ctx, `SELECT `+refundColumns+` FROM refunds f WHERE f.payment_id = $1 ORDER BY f.created_at, f.id`, paymentID)
	if err != nil {
		return nil, translate(err, "refunds of payment "+paymentID)
	}
	defer rows.Close()
	out := []refund.Refund{}
	for rows.Next() {
		f, err := scanRefund(rows)
		if err != nil {
			return nil, translate(err, "refunds of payment "+paymentID)
		}
		out = append(out, f)
	}
	return out, translate(rows.Err(), "refunds of payment "+paymentID)
}

// Refunded is the payment's refunded total.
func (r refunds) Refunded(ctx context.Context, paymentID string) (int64, error) {
	var n int64
	err := r.q.QueryRowContext(ctx, `SELECT refunded FROM refund_totals WHERE payment_id = $1`, paymentID).Scan(&n)
	if err == sql.ErrNoRows {
		return 0, nil
	}
	return n, translate(err, "refunded total of payment "+paymentID)
}

// Standing reads the payment's refunded total and the account in one
// statement: one snapshot on both engines.
func (r refunds) Standing(ctx context.Context, customerID, paymentID, accountID string) (int64, ledger.Account, error) {
	var refunded int64
	a, err := scanAccount(newScanPlus(r.q.QueryRowContext(ctx, `SELECT `+accountColumns+`,
		COALESCE((SELECT t.refunded FROM refund_totals t WHERE t.payment_id = $2), 0)
		FROM ledger_accounts a WHERE a.id = $1 AND `+visibleTo("a.customer_id", 3), accountID, paymentID, customerID), &refunded))
	return refunded, a, translate(err, "account "+accountID)
}

// scanPlus scans a row whose leading columns another scanner reads and
// whose last ones go to extra.
type scanPlus struct {
	row   interface{ Scan(...any) error }
	extra []any
}

func newScanPlus(row interface{ Scan(...any) error }, extra ...any) scanPlus {
	return scanPlus{row: row, extra: extra}
}

func (s scanPlus) Scan(dest ...any) error { return s.row.Scan(append(dest, s.extra...)...) }
