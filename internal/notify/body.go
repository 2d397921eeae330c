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
