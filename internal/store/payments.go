package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"time"

	"github.com/bankrail/bankrail/internal/audit"
	"github.com/bankrail/bankrail/internal/errs"
	"github.com/bankrail/bankrail/internal/event"
	"github.com/bankrail/bankrail/internal/ids"
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
// row itself. Its count (payment_counts.go) is written with the
// transaction's commit; outside a unit of work it is one of its own.
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
	if r.tx == nil { // with its count (payment_counts.go), a unit of work
		return r.s.InTx(ctx, func(tx *Tx) error { return tx.Payments().(payments).insert(ctx, p, cols) })
	}
	return r.insert(ctx, p, cols)
}

// paymentRow are the arguments of insertPayment.
func paymentRow(p payment.Payment, cols storedState) []any {
	return append([]any{p.ID, p.CustomerID, p.ClientID, p.UserID, string(p.Channel), string(p.System()), string(p.Status),
		p.Request.Currency, p.Amount(), p.Request.InternalReference, p.Request.PaymentReference, p.UniqueReference,
		p.Scheme().InstitutionID, p.ShortCode, p.CheckoutToken, cols.request,
		micros(p.CreatedAt), micros(p.UpdatedAt), cols.sender, cols.nextStatus, cols.nextAt, p.ConnectAccountID}, cols.view...)
}

// insert writes p, encoded as cols, and its moves inside the unit of work.
func (r payments) insert(ctx context.Context, p payment.Payment, cols storedState) error {
	what := "payment " + p.ID
	_, err := r.s.txExec(later(ctx, what), r.tx, insertPayment, paymentRow(p, cols)...)
	if err := translate(err, what); err != nil {
		return err
	}
	r.s.countInserted(r.tx, p.CustomerID, string(p.Status), p.Request.Currency)
	return r.appendHistory(ctx, p, 1)
}

const insertPayment = `
	INSERT INTO payments (id, customer_id, client_id, user_id, channel, payment_system, status, currency, amount,
		internal_reference, payment_reference, unique_reference, institution_id, short_code, checkout_token,
		request, created_at, updated_at, sender, next_status, next_at, connect_account_id, ` + viewColumnNames + `)
	VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20, $21, $22,
		$23, $24, $25, $26, $27, $28, $29, $30, $31, $32, $33, $34, $35, $36)`

// appendHistory writes p.History[from:] as the payment's events; entry i
// is the event of seq i+1 (seq 1, NEW_PAYMENT, is the payment row).
func (r payments) appendHistory(ctx context.Context, p payment.Payment, from int) error {
	for i := from; i < len(p.History); i++ {
		u := p.History[i]
		id := ids.New()
		what := "status history of payment " + p.ID
		_, err := r.s.txExec(later(ctx, what), r.tx, insertEventSQL,
			id, p.CustomerID, event.SubjectPayment, p.ID, i+1, event.PaymentStatusChanged, string(u.Status), micros(u.CreatedAt))
		if err := translate(err, what); err != nil {
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
	if err := r.update(ctx, c, st); err != nil {
		return err
	}
	return r.appendHistory(ctx, p, c.Stored)
}

// update writes c's payment, encoded as st, while it is in status c.From,
// and counts its move (payment_counts.go).
func (r payments) update(ctx context.Context, c payment.Change, st storedState) error {
	p := c.Payment
	res, err := r.s.txExec(ctx, r.tx, movePayment,
		append([]any{p.ID, string(c.From), string(p.Status), st.request, p.Scheme().InstitutionID, st.sender,
			st.nextStatus, st.nextAt, micros(p.UpdatedAt)}, st.view...)...)
	if err := expectOne(res, err, "payment "+p.ID); errs.Is(err, errs.NotFound) {
		return errs.E(errs.Conflict, "The payment changed meanwhile; it is no longer %s.", c.From)
	} else if err != nil {
		return err
	}
	r.s.countMoved(r.tx, p.CustomerID, p.Request.Currency, string(c.From), string(p.Status))
	return nil
}

// movePayment is Move's UPDATE, prepared once (stmt.go's hotWrites): a
// statement import moves thousands of payments.
const movePayment = `
	UPDATE payments SET status = $3, request = $4, institution_id = $5, sender = $6,
		next_status = $7, next_at = $8, updated_at = $9, view_columns = $10, payment_type = $11, payer_email = $12,
		device_ip = $13, device_fingerprint = $14, beneficiary_name = $15, beneficiary_iban = $16,
		beneficiary_swift_bic = $17, beneficiary_sort_code = $18, beneficiary_account_number = $19,
		sender_name = $20, sender_iban = $21, sender_sort_code = $22, sender_account_number = $23
	WHERE id = $1 AND status = $2`

func init() { hotWrites = append(hotWrites, movePayment) }

// SetSender records the paying account reported by the bank.
func (r payments) SetSender(ctx context.Context, id string, sender payment.Sender, at time.Time) error {
	b, err := json.Marshal(sender)
	if err != nil {
		return fmt.Errorf("encode sender: %w", err)
	}
	res, err := r.writer().ExecContext(ctx, `UPDATE payments SET sender = $2, updated_at = $3,
		sender_name = $4, sender_iban = $5, sender_sort_code = $6, sender_account_number = $7 WHERE id = $1`,
		append([]any{id, string(b), micros(at)}, senderValues(&sender)...)...)
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

// selectVisibleView reads a payment for its details record with the
// amounts the refund rule needs, in one query.
var selectVisibleView = `SELECT ` + viewColumns + `, ` + refundAmounts + ` FROM payments p
	WHERE p.id = $1 AND EXISTS (SELECT 1 FROM customer_tree v WHERE v.ancestor_id = $2 AND v.descendant_id = p.customer_id)`

// refundAmounts read, beside a payment p, its refunded total and the
// available balance of its Connect account (visible to the payment's
// customer, as the refund rule reads it); both 0, without a look, for a
// payment expected on no Connect account (it has no refunds).
const refundAmounts = `CASE WHEN p.connect_account_id = '' THEN 0 ELSE
		COALESCE((SELECT rt.refunded FROM refund_totals rt WHERE rt.payment_id = p.id), 0) END,
	CASE WHEN p.connect_account_id = '' THEN 0 ELSE
		COALESCE((SELECT a.available FROM ledger_accounts a WHERE a.id = p.connect_account_id AND EXISTS (
			SELECT 1 FROM customer_tree ct WHERE ct.ancestor_id = p.customer_id AND ct.descendant_id = a.customer_id)), 0) END`

// GetView reads a payment of viewerCustomerID or of a customer below it as
// its details record needs it (scanPaymentView), with its refunded total
// and its Connect account's available balance; one prepared query. Outside
// a unit of work on PostgreSQL, the reads that come while others are on
// their way go together (view_reads.go).
func (r payments) GetView(ctx context.Context, viewerCustomerID, id string) (payment.ListItem, error) {
	switch {
	case r.tx == nil && r.s.dialect == Postgres:
		return r.s.views.get(ctx, r.s, viewerCustomerID, id)
	case r.tx == nil:
		return r.s.getViewAlone(ctx, viewerCustomerID, id)
	}
	var it payment.ListItem
	var err error
	it.Payment, err = scanPaymentView(r.tx.QueryRowContext(ctx, selectVisibleView, id, viewerCustomerID), &it.Refunded, &it.Available)
	return it, translate(err, "payment "+id)
}

// selectPaymentByID is GetByID's query, prepared once (stmt.go's
// hotQueries): the payer's pages, the connector and the mock ASPSP read a
// payment by id several times a lifecycle.
var selectPaymentByID = `SELECT ` + paymentColumns + ` FROM payments p WHERE p.id = $1`

func init() { hotQueries = append(hotQueries, selectPaymentByID) }

// GetByID reads any payment (the payer's pages check the checkout token;
// the timed moves have no viewer).
func (r payments) GetByID(ctx context.Context, id string) (payment.Payment, error) {
	p, err := scanPayment(r.q.QueryRowContext(ctx, selectPaymentByID, id))
	return p, translate(err, "payment "+id)
}

// GetByShortCode reads a payment by the code of its short link.
func (r payments) GetByShortCode(ctx context.Context, code string) (payment.Payment, error) {
	p, err := scanPayment(r.q.QueryRowContext(ctx,
		`SELECT `+paymentColumns+` FROM payments p WHERE p.short_code = $1`, code))
	return p, translate(err, "payment link "+code)
}

// Due returns up to limit ids of payments whose timed move is due on their
// customer's clock: now (the base time) plus the offset of the tenant's
// sandbox clock; the most overdue first.
//
// The scan of the payments_due index is bounded by the greatest offset any
// tenant's clock has now (none in production), read first: bounded by the
// greatest possible offset (clock.MaxOffset, years) it read every pending
// payment, each with its tenant's offset, every second.
func (r payments) Due(ctx context.Context, now time.Time, limit int) ([]string, error) {
	var ahead int64
	if err := r.q.QueryRowContext(ctx, `SELECT COALESCE(MAX(offset_us), 0) FROM tenant_clocks`).Scan(&ahead); err != nil {
		return nil, translate(err, "tenant clocks")
	}
	rows, err := r.q.QueryContext(ctx,
		`SELECT id FROM payments WHERE next_at IS NOT NULL AND next_at <= $3
			AND next_at <= CAST($1 AS BIGINT) + `+tenantOffsetSQL("payments.customer_id")+` ORDER BY next_at, id LIMIT $2`,
		micros(now), limit, micros(now)+min(max(ahead, 0), maxOffsetMicros))
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
