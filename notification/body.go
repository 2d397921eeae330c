package notification

import (
	"encoding/json"
	"fmt"
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

// Gateway is the body of a gateway notification (no X-Service-Type): the
// outcome of a payment's initiation.
type Gateway struct {
	Payment                   string         `json:"payment"`
	Reference                 string         `json:"reference"`
	MerchantInternalReference string         `json:"merchantInternalReference,omitempty"`
	Amount                    int64          `json:"amount"` // minor units
	Status                    string         `json:"status"` // COMPLETED, FAILED or PENDING
	DetailedStatus            string         `json:"detailedStatus"`
	Sender                    *GatewaySender `json:"sender,omitempty"`
}

// GatewaySender is the payer of a gateway notification.
type GatewaySender struct {
	IBAN          string  `json:"iban"`
	AccountNumber *string `json:"accountNumber"`
	SortCode      *string `json:"sortCode"`
	Name          string  `json:"name"`
	Bank          Bank    `json:"bank"`
}

// Bank is the payer's bank.
type Bank struct {
	ID         string `json:"id"`
	Country    string `json:"country"`
	GroupName  string `json:"groupName"`
	BranchName string `json:"branchName"`
	BIC8       string `json:"bic8"`
}

// Connect is the body of payment_received and payment_not_received.
type Connect struct {
	Payment                   string         `json:"payment"`
	Reference                 string         `json:"reference"`
	MerchantInternalReference string         `json:"merchantInternalReference,omitempty"`
	Amount                    int64          `json:"amount"` // minor units
	Status                    string         `json:"status"` // RECEIVED or NOT_RECEIVED
	Currency                  string         `json:"currency"`
	Timestamp                 time.Time      `json:"timestamp"`
	Sender                    *ConnectSender `json:"sender,omitempty"`
}

// ConnectSender is the payer of a payment_received notification, when the
// payer's bank supplies it.
type ConnectSender struct {
	Location      string `json:"location,omitempty"`
	Name          string `json:"name,omitempty"`
	AccountNumber string `json:"accountNumber,omitempty"`
	SortCode      string `json:"sortCode,omitempty"`
	IBAN          string `json:"iban,omitempty"`
	SwiftBIC      string `json:"swiftBic,omitempty"`
	BSB           string `json:"bsb,omitempty"`
	PayID         string `json:"payID,omitempty"`
}

// Notification is a decoded notification. Exactly one of Gateway and
// Connect is set for those types; other types leave both nil and keep the
// body in Raw.
type Notification struct {
	ID      string    // X-Service-Notification-Id: deduplicate on it
	Type    string    // X-Service-Type; empty for gateway
	Timed   time.Time // X-Service-Timed (zero if unreadable)
	Gateway *Gateway
	Connect *Connect
	Raw     json.RawMessage
}

// Parse decodes a notification without verifying it; use Verifier.Read or
// call Verify first.
func Parse(h http.Header, body []byte) (Notification, error) {
	n := Notification{ID: h.Get(HeaderNotificationID), Type: h.Get(HeaderType), Raw: json.RawMessage(body)}
	n.Timed, _ = ParseTimed(h.Get(HeaderTimed))
	var err error
	switch n.Type {
	case TypeGateway:
		n.Gateway = new(Gateway)
		err = json.Unmarshal(body, n.Gateway)
	case TypePaymentReceived, TypePaymentNotReceived:
		n.Connect = new(Connect)
		err = json.Unmarshal(body, n.Connect)
	default:
		if !json.Valid(body) {
			err = fmt.Errorf("invalid JSON")
		}
	}
	if err != nil {
		return Notification{}, fmt.Errorf("notification: decode %q body: %w", n.Type, err)
	}
	return n, nil
}
