package store

import (
	"database/sql"
	"encoding/json"
	"fmt"

	"github.com/bankrail/bankrail/internal/payment"
)

// paymentColumns are what a payment is read from: its row, and the moves of
// its status history from the event log in the same query.
var paymentColumns = `p.id, p.customer_id, p.client_id, p.user_id, p.channel, p.status, p.unique_reference,
	p.short_code, p.checkout_token, p.request, ` + statusHistoryColumn + `, p.sender, p.created_at, p.updated_at,
	p.next_status, p.next_at, p.connect_account_id`

// scanPayment reads a row of paymentColumns.
func scanPayment(row interface{ Scan(...any) error }) (payment.Payment, error) {
	var p payment.Payment
	var channel, status, req, nextStatus string
	var hist, sender sql.NullString
	var created, updated int64
	var nextAt sql.NullInt64
	if err := row.Scan(&p.ID, &p.CustomerID, &p.ClientID, &p.UserID, &channel, &status, &p.UniqueReference,
		&p.ShortCode, &p.CheckoutToken, &req, &hist, &sender, &created, &updated, &nextStatus, &nextAt, &p.ConnectAccountID); err != nil {
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
	// NEW_PAYMENT at creation is the row itself; every move is an event.
	p.History = append(make([]payment.StatusUpdate, 0, 4), payment.StatusUpdate{Status: payment.StatusNew, CreatedAt: p.CreatedAt})
	if err := parseStatusHistory(hist.String, func(st string, at int64) {
		p.History = append(p.History, payment.StatusUpdate{Status: payment.Status(st), CreatedAt: fromMicros(at)})
	}); err != nil {
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

// storedState is the encoded form of the parts of a payment that change as
// it moves.
type storedState struct {
	request    string
	sender     sql.NullString
	nextStatus string
	nextAt     sql.NullInt64
}

// paymentState encodes the changing parts of p.
func paymentState(p payment.Payment) (storedState, error) {
	var st storedState
	req, err := json.Marshal(p.Request)
	if err != nil {
		return st, fmt.Errorf("encode payment request: %w", err)
	}
	st.request = string(req)
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
