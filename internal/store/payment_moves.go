package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"time"

	"bankrail/internal/errs"
	"bankrail/internal/payment"
)

// storedState is the encoded form of the parts of a payment that change as
// it moves.
type storedState struct {
	request, history string
	sender           sql.NullString
	nextStatus       string
	nextAt           sql.NullInt64
}

// paymentState encodes the changing parts of p.
func paymentState(p payment.Payment) (storedState, error) {
	var st storedState
	req, err := json.Marshal(p.Request)
	if err != nil {
		return st, fmt.Errorf("encode payment request: %w", err)
	}
	hist, err := json.Marshal(p.History)
	if err != nil {
		return st, fmt.Errorf("encode status history: %w", err)
	}
	st.request, st.history = string(req), string(hist)
	if p.Sender != nil {
		b, err := json.Marshal(p.Sender)
		if err != nil {
			return st, fmt.Errorf("encode sender: %w", err)
		}
		st.sender = sql.NullString{String: string(b), Valid: true}
	}
	if p.Next != nil {
		st.nextStatus, st.nextAt = string(p.Next.To), nullMicros(p.Next.At)
	}
	return st, nil
}

// GetPaymentByID reads any payment (the payer's pages check the checkout
// token; the timed moves have no viewer).
func (s *Store) GetPaymentByID(ctx context.Context, id string) (payment.Payment, error) {
	p, err := scanPayment(s.read.QueryRowContext(ctx, `SELECT `+paymentColumns+` FROM payments p WHERE p.id = $1`, id))
	return p, translate(err, "payment "+id)
}

// MovePayment saves a change of status and writes its notifications, in one
// transaction, only while the payment is still in status c.From: of two
// requests or instances applying a move from the same status, one wins and
// the other gets CONFLICT with nothing written (the status machine has no
// cycle, so the status alone tells whether the payment moved meanwhile).
func (s *Store) MovePayment(ctx context.Context, c payment.Change) error {
	p := c.Payment
	st, err := paymentState(p)
	if err != nil {
		return err
	}
	return s.inTx(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `
			UPDATE payments SET status = $3, status_history = $4, request = $5, institution_id = $6, sender = $7,
				next_status = $8, next_at = $9, updated_at = $10
			WHERE id = $1 AND status = $2`,
			p.ID, string(c.From), string(p.Status), st.history, st.request, p.Scheme().InstitutionID, st.sender,
			st.nextStatus, st.nextAt, micros(p.UpdatedAt))
		if err := expectOne(res, err, "payment "+p.ID); errs.Is(err, errs.NotFound) {
			return errs.E(errs.Conflict, "The payment changed meanwhile; it is no longer %s.", c.From)
		} else if err != nil {
			return err
		}
		_, err = s.enqueue(ctx, tx, p.UpdatedAt, c.Messages...)
		return err
	})
}

// DuePayments returns up to limit ids of payments whose timed move is due
// at now, the most overdue first.
func (s *Store) DuePayments(ctx context.Context, now time.Time, limit int) ([]string, error) {
	rows, err := s.read.QueryContext(ctx,
		`SELECT id FROM payments WHERE next_at IS NOT NULL AND next_at <= $1 ORDER BY next_at, id LIMIT $2`, micros(now), limit)
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
