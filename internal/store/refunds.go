package store

import (
	"context"
	"database/sql"

	"github.com/bankrail/bankrail/internal/audit"
	"github.com/bankrail/bankrail/internal/errs"
	"github.com/bankrail/bankrail/internal/refund"
)

// refunds is the refund repository over a unit of work's transaction or
// the read pool.
type refunds struct{ q querier }

var (
	_ refund.Repository = refunds{}
	_ refund.Repos      = (*Tx)(nil)
)

// Refunds is the refund repository inside the transaction.
func (t *Tx) Refunds() refund.Repository { return refunds{q: t.tx} }

// Refunds reads refunds outside any unit of work (on the read pool: its
// writes belong in a unit of work, Tx.Refunds).
func (s *Store) Refunds() refund.Repository { return refunds{q: s.read} }

// Create inserts r and adds its amount to the payment's total within limit.
func (r refunds) Create(ctx context.Context, f refund.Refund, limit int64) error {
	if f.Amount > limit {
		return refund.ErrOverRefund
	}
	res, err := r.q.ExecContext(ctx, `
		INSERT INTO refund_totals (payment_id, refunded) VALUES ($1, $2)
		ON CONFLICT (payment_id) DO UPDATE SET refunded = refund_totals.refunded + excluded.refunded
		WHERE refund_totals.refunded + excluded.refunded <= $3`, f.PaymentID, f.Amount, limit)
	if err := expectOne(res, err, "refunded total of payment "+f.PaymentID); errs.Is(err, errs.NotFound) {
		return refund.ErrOverRefund
	} else if err != nil {
		return err
	}
	audit.Resource(ctx, "refund", f.ID)
	_, err = r.q.ExecContext(ctx, `
		INSERT INTO refunds (id, payment_id, account_id, customer_id, client_id, notification_url, amount, currency,
			external_reference, status, transaction_id, created_at, updated_at)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)`,
		f.ID, f.PaymentID, f.AccountID, f.CustomerID, f.ClientID, f.NotificationURL, f.Amount, f.Currency,
		f.ExternalReference, string(f.Status), f.TransactionID, micros(f.CreatedAt), micros(f.UpdatedAt))
	return translate(err, "refund "+f.ID)
}

// Settle saves f's final status while it is PENDING; FAILED and REJECTED
// give the amount back to the payment's total.
func (r refunds) Settle(ctx context.Context, f refund.Refund) error {
	res, err := r.q.ExecContext(ctx, `UPDATE refunds SET status = $2, updated_at = $3 WHERE id = $1 AND status = $4`,
		f.ID, string(f.Status), micros(f.UpdatedAt), string(refund.Pending))
	if err := expectOne(res, err, "pending refund "+f.ID); err != nil {
		return err
	}
	if f.Status == refund.Confirmed {
		return nil
	}
	_, err = r.q.ExecContext(ctx, `UPDATE refund_totals SET refunded = refunded - $2 WHERE payment_id = $1`, f.PaymentID, f.Amount)
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
