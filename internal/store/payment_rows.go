package store

import (
	"cmp"
	"database/sql"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/bankrail/bankrail/internal/bank"
	"github.com/bankrail/bankrail/internal/payment"
)

// paymentColumns are what a payment is read from: its row, and the moves of
// its status history from the event log in the same query.
var paymentColumns = `p.id, p.customer_id, p.client_id, p.user_id, p.channel, p.status, p.unique_reference,
	p.short_code, p.checkout_token, p.request, ` + statusHistoryColumn + `, p.sender, p.created_at, p.updated_at,
	p.next_status, p.next_at, p.connect_account_id`

// scanPayment reads a row of paymentColumns.
func scanPayment(row interface{ Scan(...any) error }) (payment.Payment, error) {
	return scanPaymentWith(row)
}

// scanPaymentWith reads a row of paymentColumns followed by extra columns.
func scanPaymentWith(row interface{ Scan(...any) error }, extra ...any) (payment.Payment, error) {
	var p payment.Payment
	var channel, status, req, nextStatus string
	var hist, sender sql.NullString
	var created, updated int64
	var nextAt sql.NullInt64
	if err := row.Scan(append([]any{&p.ID, &p.CustomerID, &p.ClientID, &p.UserID, &channel, &status, &p.UniqueReference,
		&p.ShortCode, &p.CheckoutToken, &req, &hist, &sender, &created, &updated, &nextStatus, &nextAt, &p.ConnectAccountID}, extra...)...); err != nil {
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
	view       []any // the view columns (viewColumnNames), in order
}

// viewColumnNames are the columns of payment.View and of the sender
// (migration 00039), written with every change of the request or sender.
const viewColumnNames = `view_columns, payment_type, payer_email, device_ip, device_fingerprint, beneficiary_name,
	beneficiary_iban, beneficiary_swift_bic, beneficiary_sort_code, beneficiary_account_number,
	sender_name, sender_iban, sender_sort_code, sender_account_number`

// viewValues are the values of viewColumnNames for p: view_columns is 1
// only when the view is whole (payment.ViewOf); otherwise the columns stay
// empty and reads decode the request.
func viewValues(p payment.Payment) []any {
	v, whole := payment.ViewOf(p)
	if !whole {
		return []any{0, "", "", "", "", "", "", "", "", "", nil, "", "", ""}
	}
	out := []any{1, string(v.Type), v.PayerEmail, v.DeviceIP, v.DeviceFingerprint, v.BeneficiaryName,
		v.Account.IBAN, v.Account.SwiftBic, v.Account.SortCode, v.Account.AccountNumber}
	return append(out, senderValues(p.Sender)...)
}

// senderValues are the values of the sender columns (sender_name NULL: none).
func senderValues(s *payment.Sender) []any {
	if s == nil {
		return []any{nil, "", "", ""}
	}
	return []any{s.Name, s.IBAN, s.SortCode, s.AccountNumber}
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
	st.view = viewValues(p)
	return st, nil
}

// viewColumns read a payment for its details record: its columns and
// payment.View, and the request and sender JSON only on a row written
// before the view columns (view_columns = 0).
var viewColumns = `p.id, p.customer_id, p.client_id, p.user_id, p.channel, p.status, p.unique_reference,
	p.short_code, p.checkout_token, CASE WHEN p.view_columns = 1 THEN NULL ELSE p.request END, ` + viewHistoryColumn + `,
	CASE WHEN p.view_columns = 1 THEN NULL ELSE p.sender END, p.created_at, p.updated_at,
	p.next_status, p.next_at, p.connect_account_id,
	p.currency, p.amount, p.internal_reference, p.payment_reference, p.payment_system, p.institution_id,
	p.payment_type, p.payer_email, p.device_ip, p.device_fingerprint, p.beneficiary_name,
	p.beneficiary_iban, p.beneficiary_swift_bic, p.beneficiary_sort_code, p.beneficiary_account_number,
	p.sender_name, p.sender_iban, p.sender_sort_code, p.sender_account_number`

// viewHistoryColumn is statusHistoryColumn with each move's seq
// ("seq:STATUS:micros,...") and without ORDER BY, which made SQLite sort
// the moves in a temporary B-tree on every read: the primary key gives them
// in seq order already, and parseViewHistory sorts when they are not.
const viewHistoryColumn = `(SELECT string_agg(CAST(e.seq AS TEXT) || ':' || e.status || ':' || CAST(e.occurred_at AS TEXT), ',')
		FROM events e WHERE e.subject_type = 'payment' AND e.subject_id = p.id)`

// parseViewHistory appends the moves of viewHistoryColumn to h, in seq
// order.
func parseViewHistory(h []payment.StatusUpdate, s string) ([]payment.StatusUpdate, error) {
	type move struct {
		seq int64
		u   payment.StatusUpdate
	}
	var moves []move
	sorted := true
	for s != "" {
		item, rest, _ := strings.Cut(s, ",")
		seq, item, ok1 := strings.Cut(item, ":")
		status, at, ok2 := strings.Cut(item, ":")
		n, err1 := strconv.ParseInt(seq, 10, 64)
		us, err2 := strconv.ParseInt(at, 10, 64)
		if !ok1 || !ok2 || err1 != nil || err2 != nil {
			return h, fmt.Errorf("malformed status history entry %q", item)
		}
		if len(moves) > 0 && moves[len(moves)-1].seq > n {
			sorted = false
		}
		moves = append(moves, move{n, payment.StatusUpdate{Status: payment.Status(status), CreatedAt: fromMicros(us)}})
		s = rest
	}
	if !sorted {
		slices.SortFunc(moves, func(a, b move) int { return cmp.Compare(a.seq, b.seq) })
	}
	for _, m := range moves {
		h = append(h, m.u)
	}
	return h, nil
}

// scanPaymentView reads a row of viewColumns followed by extra columns.
// The payment's Request holds what the details record reads
// (payment.View.Request), unless the row predates the view columns: then
// it is decoded whole.
func scanPaymentView(row interface{ Scan(...any) error }, extra ...any) (payment.Payment, error) {
	var p payment.Payment
	var channel, status, nextStatus, currency, internalRef, paymentRef, system, institution, typ string
	var req, hist, sender, senderName sql.NullString
	var created, updated, amount int64
	var nextAt sql.NullInt64
	var v payment.View
	var sd payment.Sender
	if err := row.Scan(append([]any{&p.ID, &p.CustomerID, &p.ClientID, &p.UserID, &channel, &status, &p.UniqueReference,
		&p.ShortCode, &p.CheckoutToken, &req, &hist, &sender, &created, &updated, &nextStatus, &nextAt, &p.ConnectAccountID,
		&currency, &amount, &internalRef, &paymentRef, &system, &institution,
		&typ, &v.PayerEmail, &v.DeviceIP, &v.DeviceFingerprint, &v.BeneficiaryName,
		&v.Account.IBAN, &v.Account.SwiftBic, &v.Account.SortCode, &v.Account.AccountNumber,
		&senderName, &sd.IBAN, &sd.SortCode, &sd.AccountNumber}, extra...)...); err != nil {
		return payment.Payment{}, err
	}
	p.Channel, p.Status = payment.Channel(channel), payment.Status(status)
	p.CreatedAt, p.UpdatedAt = fromMicros(created), fromMicros(updated)
	if nextAt.Valid && nextStatus != "" {
		p.Next = &payment.TimedMove{To: payment.Status(nextStatus), At: fromMicros(nextAt.Int64)}
	}
	if req.Valid { // written before the view columns
		if err := json.Unmarshal([]byte(req.String), &p.Request); err != nil {
			return payment.Payment{}, fmt.Errorf("decode request of payment %s: %w", p.ID, err)
		}
		if sender.Valid {
			p.Sender = &payment.Sender{}
			if err := json.Unmarshal([]byte(sender.String), p.Sender); err != nil {
				return payment.Payment{}, fmt.Errorf("decode sender of payment %s: %w", p.ID, err)
			}
		}
	} else {
		v.Type = payment.Type(typ)
		p.Request = v.Request(currency, amount, internalRef, paymentRef, bank.PaymentSystem(system), institution)
		if senderName.Valid {
			sd.Name = senderName.String
			p.Sender = &sd
		}
	}
	var err error
	p.History = append(make([]payment.StatusUpdate, 0, 4), payment.StatusUpdate{Status: payment.StatusNew, CreatedAt: p.CreatedAt})
	if p.History, err = parseViewHistory(p.History, hist.String); err != nil {
		return payment.Payment{}, fmt.Errorf("decode status history of payment %s: %w", p.ID, err)
	}
	return p, nil
}
