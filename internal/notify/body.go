package notify

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/bankrail/bankrail/notification"
)

// Target says who receives a notification: the customer it concerns, the
// application that signs and receives it (by id or client id), and an
// optional per-payment URL (communication.notifications.url).
type Target struct {
	CustomerID    string
	ApplicationID string
	ClientID      string
	URL           string
}

// Compact marshals v as compact JSON without HTML escaping: the bytes that
// are signed and sent.
func Compact(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, fmt.Errorf("encode notification body: %w", err)
	}
	return bytes.TrimRight(buf.Bytes(), "\n"), nil
}

// New builds a message of type typ (empty for gateway) about paymentID with
// body marshalled as compact JSON.
func New(t Target, paymentID, typ string, body any) (Message, error) {
	b, err := Compact(body)
	if err != nil {
		return Message{}, err
	}
	m := Message{CustomerID: t.CustomerID, ApplicationID: t.ApplicationID, ClientID: t.ClientID,
		PaymentID: paymentID, Type: typ, URL: t.URL, Body: b}
	return m, m.Validate()
}

// Gateway builds a gateway notification (no X-Service-Type) ordered by the
// payment id of body.
func Gateway(t Target, body notification.Gateway) (Message, error) {
	switch body.Status {
	case notification.StatusCompleted, notification.StatusFailed, notification.StatusPending:
	default:
		return Message{}, fmt.Errorf("gateway notification: status %q must be COMPLETED, FAILED or PENDING", body.Status)
	}
	return New(t, body.Payment, notification.TypeGateway, body)
}

// Connect builds a payment_received (RECEIVED) or payment_not_received
// (NOT_RECEIVED) notification, ordered by the payment id of body.
func Connect(t Target, body notification.Connect) (Message, error) {
	typ := notification.TypePaymentReceived
	switch body.Status {
	case notification.StatusReceived:
	case notification.StatusNotReceived:
		typ = notification.TypePaymentNotReceived
		body.Sender = nil // sent with payment_received only
	default:
		return Message{}, fmt.Errorf("connect notification: status %q must be RECEIVED or NOT_RECEIVED", body.Status)
	}
	body.Timestamp = body.Timestamp.UTC()
	return New(t, body.Payment, typ, body)
}

// GatewayStatus maps a payment status to the status of the gateway
// notification it sends (decisions.md, Payments); ok is false for payment
// statuses that send none.
func GatewayStatus(paymentStatus string) (status string, ok bool) {
	switch paymentStatus {
	case "BANK_REDIRECT", "DELAYED_AT_BANK":
		return notification.StatusPending, true
	case "COMPLETED":
		return notification.StatusCompleted, true
	case "REFUSED_BY_RISK", "REFUSED_BY_BANK", "ERROR_AT_BANK", "CANCELLED_BY_USER", "ABANDONED_BY_USER":
		return notification.StatusFailed, true
	}
	return "", false
}

// Refund builds refund_confirmed (CONFIRMED), refund_failed (FAILED) or
// refund_rejected (REJECTED) of body, ordered with the notifications of the
// payment refunded.
func Refund(t Target, body notification.Refund) (Message, error) {
	typ := map[string]string{notification.StatusConfirmed: notification.TypeRefundConfirmed,
		notification.StatusFailed: notification.TypeRefundFailed, notification.StatusRejected: notification.TypeRefundRejected}[body.Status]
	if typ == "" {
		return Message{}, fmt.Errorf("refund notification: status %q must be CONFIRMED, FAILED or REJECTED", body.Status)
	}
	body.Timestamp = body.Timestamp.UTC()
	return New(t, body.Payment, typ, body)
}

// Payout builds payout_confirmed (COMPLETED) or payout_failed (FAILED,
// REJECTED) of body, ordered per payout.
func Payout(t Target, body notification.Payout) (Message, error) {
	typ := notification.TypePayoutFailed
	switch body.Status {
	case notification.StatusCompleted:
		typ = notification.TypePayoutConfirmed
	case notification.StatusFailed, notification.StatusRejected:
	default:
		return Message{}, fmt.Errorf("payout notification: status %q must be COMPLETED, FAILED or REJECTED", body.Status)
	}
	body.Timestamp = body.Timestamp.UTC()
	return New(t, body.Payout, typ, body)
}

// AccountHolderVerification builds
// account_holder_verification_result_completed of body, ordered with the
// notifications of its payout (body.TransactionID).
func AccountHolderVerification(t Target, body notification.AccountHolderVerification) (Message, error) {
	body.Timestamp = body.Timestamp.UTC()
	return New(t, body.TransactionID, notification.TypeAccountHolderVerificationResultCompleted, body)
}

// Mandate builds the mandate or amendment event typ of body, ordered per
// mandate.
func Mandate(t Target, typ string, body notification.Mandate) (Message, error) {
	if _, ok := notification.NewBody(typ).(*notification.Mandate); !ok {
		return Message{}, fmt.Errorf("mandate notification: %q is not a mandate or amendment event", typ)
	}
	body.Timestamp = body.Timestamp.UTC()
	return New(t, body.Mandate, typ, body)
}

// ChannelPayment builds channel_payment_detected or
// channel_payment_completed of body, ordered per channel.
func ChannelPayment(t Target, typ string, body notification.ChannelPayment) (Message, error) {
	if typ != notification.TypeChannelPaymentDetected && typ != notification.TypeChannelPaymentCompleted {
		return Message{}, fmt.Errorf("channel notification: %q is not a channel payment event", typ)
	}
	body.Timestamp = body.Timestamp.UTC()
	return New(t, body.Channel, typ, body)
}
