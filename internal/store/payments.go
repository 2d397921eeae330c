package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"time"

	"github.com/google/uuid"

	"github.com/bankrail/bankrail/internal/audit"
	"github.com/bankrail/bankrail/internal/errs"
	"github.com/bankrail/bankrail/internal/event"
	"github.com/bankrail/bankrail/internal/payment"
)

// payments is the payment repository over a querier: a unit of work's
// transaction (tx set), or the pools outside one.
type payments struct {
	s  *Store
	q  querier
	tx *sql.Tx // nil outside a unit of work
}

var _ payment.Repository = payments{}

// writer is where writes go: the unit of work's transaction, or the write
// pool.
func (r payments) writer() querier {
	if r.tx != nil {
		return r.tx
	}
	return r.s.write
}

// Create inserts p and the moves of its history (a sandbox scenario played
// at creation) as events; the first entry, NEW_PAYMENT at CreatedAt, is the
// row itself. A payment created without moves outside a unit of work is one
// INSERT, atomic by itself.
func (r payments) Create(ctx context.Context, p payment.Payment) error {
	if len(p.History) == 0 || p.History[0].Status != payment.StatusNew || !p.History[0].CreatedAt.Equal(p.CreatedAt) {
		return fmt.Errorf("payment %s: its history must start with NEW_PAYMENT at its creation", p.ID)
	}
	// Encode before any transaction: on SQLite it holds the one writer.
	cols, err := paymentState(p)
	if err != nil {
		return err
	}
	audit.Resource(ctx, "payment", p.ID)
	if r.tx == nil && len(p.History) == 1 && audit.From(ctx) == nil { // an audited creation is a unit of work
		st, err := r.s.prepared(ctx, r.s.write, insertPayment)
		if err != nil {
			return err
		}
		_, err = st.ExecContext(ctx, paymentRow(p, cols)...)
		return translate(err, "payment "+p.ID)
	}
	if r.tx == nil {
		return r.s.InTx(ctx, func(tx *Tx) error { return tx.Payments().(payments).insert(ctx, p, cols) })
	}
	return r.insert(ctx, p, cols)
}

// paymentRow are the arguments of insertPayment.
func paymentRow(p payment.Payment, cols storedState) []any {
	return []any{p.ID, p.CustomerID, p.ClientID, p.UserID, string(p.Channel), string(p.System()), string(p.Status),
		p.Request.Currency, p.Amount(), p.Request.InternalReference, p.Request.PaymentReference, p.UniqueReference,
		p.Scheme().InstitutionID, p.ShortCode, p.CheckoutToken, cols.request,
		micros(p.CreatedAt), micros(p.UpdatedAt), cols.sender, cols.nextStatus, cols.nextAt, p.ConnectAccountID}
}

// insert writes p, encoded as cols, and its moves inside the unit of work.
func (r payments) insert(ctx context.Context, p payment.Payment, cols storedState) error {
	_, err := r.s.txExec(ctx, r.tx, insertPayment, paymentRow(p, cols)...)
	if err := translate(err, "payment "+p.ID); err != nil {
		return err
	}
	return r.appendHistory(ctx, p, 1)
}

const insertPayment = `
	INSERT INTO payments (id, customer_id, client_id, user_id, channel, payment_system, status, currency, amount,
		internal_reference, payment_reference, unique_reference, institution_id, short_code, checkout_token,
		request, created_at, updated_at, sender, next_status, next_at, connect_account_id)
	VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20, $21, $22)`

// appendHistory writes p.History[from:] as the payment's events; entry i
// is the event of seq i+1 (seq 1, NEW_PAYMENT, is the payment row).
func (r payments) appendHistory(ctx context.Context, p payment.Payment, from int) error {
	for i := from; i < len(p.History); i++ {
		u := p.History[i]
		id, err := uuid.NewV7()
		if err != nil {
			return fmt.Errorf("event id: %w", err)
		}
		_, err = r.s.txExec(ctx, r.tx, insertEventSQL, id.String(), p.CustomerID, event.SubjectPayment, p.ID, i+1,
			event.PaymentStatusChanged, string(u.Status), micros(u.CreatedAt))
		if err := translate(err, "status history of payment "+p.ID); err != nil {
			return err
		}
	}
	return nil
}

// Move saves a change of status with its new history, only while the
// payment is still in status c.From: of two requests or instances applying
// a move from the same status, one wins and the other gets CONFLICT with
// nothing written (the status machine has no cycle, so the status alone
// tells whether the payment moved meanwhile).
func (r payments) Move(ctx context.Context, c payment.Change) error {
	if r.tx == nil {
		return r.s.InTx(ctx, func(tx *Tx) error { return tx.Payments().Move(ctx, c) })
	}
	p := c.Payment
	st, err := paymentState(p)
	if err != nil {
		return err
	}
	res, err := r.tx.ExecContext(ctx, `
		UPDATE payments SET status = $3, request = $4, institution_id = $5, sender = $6,
			next_status = $7, next_at = $8, updated_at = $9
		WHERE id = $1 AND status = $2`,
		p.ID, string(c.From), string(p.Status), st.request, p.Scheme().InstitutionID, st.sender,
		st.nextStatus, st.nextAt, micros(p.UpdatedAt))
	if err := expectOne(res, err, "payment "+p.ID); errs.Is(err, errs.NotFound) {
		return errs.E(errs.Conflict, "The payment changed meanwhile; it is no longer %s.", c.From)
	} else if err != nil {
		return err
	}
	return r.appendHistory(ctx, p, c.Stored)
}

// SetSender records the paying account reported by the bank.
func (r payments) SetSender(ctx context.Context, id string, sender payment.Sender, at time.Time) error {
	b, err := json.Marshal(sender)
	if err != nil {
		return fmt.Errorf("encode sender: %w", err)
	}
	res, err := r.writer().ExecContext(ctx, `UPDATE payments SET sender = $2, updated_at = $3 WHERE id = $1`, id, string(b), micros(at))
	return expectOne(res, err, "payment "+id)
}

var selectVisiblePayment = `SELECT ` + paymentColumns + ` FROM payments p WHERE p.id = $1 AND ` + visibleTo("p.customer_id", 2)

// Get reads a payment of viewerCustomerID or of a customer below it.
// Another customer's payment is RESOURCE_NOT_FOUND, as a missing one.
func (r payments) Get(ctx context.Context, viewerCustomerID, id string) (payment.Payment, error) {
	var row *sql.Row
	if r.tx != nil {
		row = r.tx.QueryRowContext(ctx, selectVisiblePayment, id, viewerCustomerID)
	} else {
		st, err := r.s.prepared(ctx, r.s.read, selectVisiblePayment)
		if err != nil {
			return payment.Payment{}, err
		}
		row = st.QueryRowContext(ctx, id, viewerCustomerID)
	}
	p, err := scanPayment(row)
	return p, translate(err, "payment "+id)
}

// GetByID reads any payment (the payer's pages check the checkout token;
// the timed moves have no viewer).
func (r payments) GetByID(ctx context.Context, id string) (payment.Payment, error) {
	p, err := scanPayment(r.q.QueryRowContext(ctx, `SELECT `+paymentColumns+` FROM payments p WHERE p.id = $1`, id))
	return p, translate(err, "payment "+id)
}

// GetByShortCode reads a payment by the code of its short link.
func (r payments) GetByShortCode(ctx context.Context, code string) (payment.Payment, error) {
	p, err := scanPayment(r.q.QueryRowContext(ctx,
		`SELECT `+paymentColumns+` FROM payments p WHERE p.short_code = $1`, code))
	return p, translate(err, "payment link "+code)
}

// List returns one page of the payments visible to viewerCustomerID,
// newest first with the id as tie-breaker, and the number of matches. Both
// come from one snapshot.
func (r payments) List(ctx context.Context, viewerCustomerID string, f payment.ListFilter) ([]payment.Payment, int, error) {
	where, args := listConditions(viewerCustomerID, f)
	var total int
	out := []payment.Payment{}
	list := func(q querier) error {
		if err := q.QueryRowContext(ctx, `SELECT COUNT(*) FROM payments p WHERE `+where, args...).Scan(&total); err != nil {
			return translate(err, "count payments")
		}
		if total <= f.Offset() {
			return nil
		}
		n := len(args)
		rows, err := q.QueryContext(ctx, `SELECT `+paymentColumns+` FROM payments p WHERE `+where+
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
	}
	if r.tx != nil {
		return out, total, list(r.tx)
	}
	err := r.s.readTx(ctx, func(tx *sql.Tx) error { return list(tx) })
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

// Due returns up to limit ids of payments whose timed move is due on their
// customer's clock: now (the base time) plus the offset of the tenant's
// sandbox clock; the most overdue first.
func (r payments) Due(ctx context.Context, now time.Time, limit int) ([]string, error) {
	rows, err := r.q.QueryContext(ctx,
		`SELECT id FROM payments WHERE next_at IS NOT NULL AND next_at <= $3
			AND next_at <= CAST($1 AS BIGINT) + `+tenantOffsetSQL("payments.customer_id")+` ORDER BY next_at, id LIMIT $2`,
		micros(now), limit, micros(now)+maxOffsetMicros)
	if err != nil {
		return nil, translate(err, "due payments")
	}
	defer rows.Close()
	ids := []string{}
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			return nil, translate(err, "due payments")
		}
		ids = append(ids, id)
	}
	return ids, translate(rows.Err(), "due payments")
}
