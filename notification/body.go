package notification

import (
	"encoding/json"
	"net/http"
	"time"
)

// Types in X-Service-Type. Gateway notifications carry no type.
const (
	TypeGateway            = ""
	TypeTest               = "test" // POST /notifications/test; body {}
	TypePaymentReceived    = "payment_received"
	TypePaymentNotReceived = "payment_not_received"
)

// Gateway notification statuses.
const (
	StatusCompleted = "COMPLETED"
	StatusFailed    = "FAILED"
	StatusPending   = "PENDING"
)

// Connect notification statuses.
const (
	StatusReceived    = "RECEIVED"
	StatusNotReceived = "NOT_RECEIVED"
)

// Notification is a decoded notification. Body is its typed body, a
// pointer to the struct of its type (see DecodeBody): switch on it, or on
// Type. For convenience the body is also in the one field of its kind
// (Gateway, Connect, Refund, ...), the others nil. The test notification and
// types this package does not know leave Body nil; Raw always holds the
// bytes received.
type Notification struct {
	ID    string    // X-Service-Notification-Id: deduplicate on it
	Type  string    // X-Service-Type; empty for gateway
	Timed time.Time // X-Service-Timed (zero if unreadable)
	Body  any

	Gateway                   *Gateway
	Connect                   *Connect
	Refund                    *Refund
	Payout                    *Payout
	AccountHolderVerification *AccountHolderVerification
	Mandate                   *Mandate
	ChannelPayment            *ChannelPayment
	Report                    *Report

	Raw json.RawMessage
}

// Parse decodes a notification without verifying it; use Verifier.Read or
// call Verify first.
func Parse(h http.Header, body []byte) (Notification, error) {
	n := Notification{ID: h.Get(HeaderNotificationID), Type: h.Get(HeaderType), Raw: json.RawMessage(body)}
	n.Timed, _ = ParseTimed(h.Get(HeaderTimed))
	b, err := DecodeBody(n.Type, body)
	if err != nil {
		return Notification{}, err
	}
	n.Body = b
	switch b := b.(type) {
	case *Gateway:
		n.Gateway = b
	case *Connect:
		n.Connect = b
	case *Refund:
		n.Refund = b
	case *Payout:
		n.Payout = b
	case *AccountHolderVerification:
		n.AccountHolderVerification = b
	case *Mandate:
		n.Mandate = b
	case *ChannelPayment:
		n.ChannelPayment = b
	case *Report:
		n.Report = b
	}
	return n, nil
}
