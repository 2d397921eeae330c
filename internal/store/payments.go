package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"time"

	"bankrail/internal/notify"
	"bankrail/internal/payment"
)

var _ payment.Store = (*Store)(nil)

// CreatePayment inserts p and, when done is set, stores the response under
// its idempotency key, and writes msgs, in one transaction.
func (s *Store) CreatePayment(ctx context.Context, p payment.Payment, done *payment.Completion, msgs ...notify.Message) error {
	cols, err := paymentState(p)
	if err != nil {
		return err
	}
	st, err := s.prepared(ctx, s.write, insertPayment)
	if err != nil {
		return err
	}
	insert := func(st *sql.Stmt) error {
		_, err := st.ExecContext(ctx,
			p.ID, p.CustomerID, p.ClientID, p.UserID, string(p.Channel), string(p.System()), string(p.Status),
			p.Request.Currency, p.Amount(), p.Request.InternalReference, p.Request.PaymentReference, p.UniqueReference,
			p.Scheme().InstitutionID, p.ShortCode, p.CheckoutToken, cols.request, cols.history,
			micros(p.CreatedAt), micros(p.UpdatedAt), cols.sender, cols.nextStatus, cols.nextAt)
		return translate(err, "payment "+p.ID)
	}
	if done == nil && len(msgs) == 0 {
		return insert(st) // one statement: its own transaction
	}
	return s.inTx(ctx, func(tx *sql.Tx) error {
		if err := insert(tx.StmtContext(ctx, st)); err != nil {
			return err
		}
		if _, err := s.enqueue(ctx, tx, p.UpdatedAt, msgs...); err != nil {
			return err
		}
		if done == nil {
			return nil
		}
		return completeIdempotencyKey(ctx, tx, done)
	})
}

const insertPayment = `
	INSERT INTO payments (id, customer_id, client_id, user_id, channel, payment_system, status, currency, amount,
		internal_reference, payment_reference, unique_reference, institution_id, short_code, checkout_token,
		request, status_history, created_at, updated_at, sender, next_status, next_at)
	VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20, $21, $22)`

const paymentColumns = `p.id, p.customer_id, p.client_id, p.user_id, p.channel, p.status, p.unique_reference,
	p.short_code, p.checkout_token, p.request, p.status_history, p.sender, p.created_at, p.updated_at,
	p.next_status, p.next_at`

func scanPayment(row interface{ Scan(...any) error }) (payment.Payment, error) {
	var p payment.Payment
	var channel, status, req, hist, nextStatus string
	var sender sql.NullString
	var created, updated int64
	var nextAt sql.NullInt64
	if err := row.Scan(&p.ID, &p.CustomerID, &p.ClientID, &p.UserID, &channel, &status, &p.UniqueReference,
		&p.ShortCode, &p.CheckoutToken, &req, &hist, &sender, &created, &updated, &nextStatus, &nextAt); err != nil {
		return payment.Payment{}, err
	}
	p.Channel, p.Status = payment.Channel(channel), payment.Status(status)
	p.CreatedAt, p.UpdatedAt = fromMicros(created), fromMicros(updated)
	if nextAt.Valid && nextStatus != "" {
		p.Next = &payment.TimedMove{To: payment.Status(nextStatus), At: fromMicros(nextAt.Int64)}
	}
	if err := json.Unmarshal([]byte(req), &p.Request); err != nil {
		return payment.Payment{}, fmt.Errorf("decode request of payment %s: %w", p.ID, err)
	}
	if err := json.Unmarshal([]byte(hist), &p.History); err != nil {
		return payment.Payment{}, fmt.Errorf("decode status history of payment %s: %w", p.ID, err)
	}
	if sender.Valid {
		p.Sender = &payment.Sender{}
		if err := json.Unmarshal([]byte(sender.String), p.Sender); err != nil {
			return payment.Payment{}, fmt.Errorf("decode sender of payment %s: %w", p.ID, err)
		}
	}
	return p, nil
}

var selectVisiblePayment = `SELECT ` + paymentColumns + ` FROM payments p WHERE p.id = $1 AND ` + visibleTo("p.customer_id", 2)

// GetPayment reads a payment of viewerCustomerID or of a customer below it.
// Another customer's payment is RESOURCE_NOT_FOUND, as a missing one.
func (s *Store) GetPayment(ctx context.Context, viewerCustomerID, id string) (payment.Payment, error) {
	st, err := s.prepared(ctx, s.read, selectVisiblePayment)
	if err != nil {
		return payment.Payment{}, err
	}
	p, err := scanPayment(st.QueryRowContext(ctx, id, viewerCustomerID))
	return p, translate(err, "payment "+id)
}

// GetPaymentByShortCode reads a payment by the code of its short link.
func (s *Store) GetPaymentByShortCode(ctx context.Context, code string) (payment.Payment, error) {
	p, err := scanPayment(s.read.QueryRowContext(ctx,
		`SELECT `+paymentColumns+` FROM payments p WHERE p.short_code = $1`, code))
	return p, translate(err, "payment link "+code)
}

// ListPayments returns one page of the payments visible to viewerCustomerID,
// newest first with the id as tie-breaker, and the number of matches. Both
// come from one snapshot.
func (s *Store) ListPayments(ctx context.Context, viewerCustomerID string, f payment.ListFilter) ([]payment.Payment, int, error) {
	where, args := listConditions(viewerCustomerID, f)
	var total int
	out := []payment.Payment{}
	err := s.readTx(ctx, func(tx *sql.Tx) error {
		if err := tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM payments p WHERE `+where, args...).Scan(&total); err != nil {
			return translate(err, "count payments")
		}
		if total <= f.Offset() {
			return nil
		}
		n := len(args)
		rows, err := tx.QueryContext(ctx, `SELECT `+paymentColumns+` FROM payments p WHERE `+where+
			fmt.Sprintf(` ORDER BY p.created_at DESC, p.id DESC LIMIT $%d OFFSET $%d`, n+1, n+2),
			append(args, f.Limit, f.Offset())...)
		if err != nil {
			return translate(err, "list payments")
		}
		defer rows.Close()
		for rows.Next() {
			p, err := scanPayment(rows)
			if err != nil {
				return translate(err, "list payments")
			}
			out = append(out, p)
		}
		return translate(rows.Err(), "list payments")
	})
	return out, total, err
}

// listConditions builds the WHERE clause of a list and its arguments.
func listConditions(viewer string, f payment.ListFilter) (string, []any) {
	w := visibleWhere("p.customer_id", viewer)
	if f.CustomerID != "" {
		w.add("p.customer_id = $%d", f.CustomerID)
	}
	if f.Status != "" {
		w.add("p.status = $%d", string(f.Status))
	}
	if f.Currency != "" {
		w.add("p.currency = $%d", f.Currency)
	}
	if f.InternalReference != "" {
		w.add("p.internal_reference = $%d", f.InternalReference)
	}
	if f.PaymentReference != "" {
		w.add("p.payment_reference = $%d", f.PaymentReference)
	}
	if !f.CreatedFrom.IsZero() {
		w.add("p.created_at >= $%d", micros(f.CreatedFrom))
	}
	if !f.CreatedTo.IsZero() {
		w.add("p.created_at <= $%d", micros(f.CreatedTo))
	}
	return w.sql(), w.args
}

// SetPaymentSender records the paying account reported by the bank.
func (s *Store) SetPaymentSender(ctx context.Context, id string, sender payment.Sender, at time.Time) error {
	b, err := json.Marshal(sender)
	if err != nil {
		return fmt.Errorf("encode sender: %w", err)
	}
	res, err := s.write.ExecContext(ctx, `UPDATE payments SET sender = $2, updated_at = $3 WHERE id = $1`, id, string(b), micros(at))
	return expectOne(res, err, "payment "+id)
}
