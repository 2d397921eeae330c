package notification

import (
	"encoding/json"
	"fmt"
	"slices"
	"time"
)

// Types in X-Service-Type beyond payments' (body.go) and reports'
// (report.go): every notification bankrail sends has one of these types, or
// none (gateway).
const (
	TypeRefundConfirmed = "refund_confirmed"
	TypeRefundFailed    = "refund_failed"
	TypeRefundRejected  = "refund_rejected"

	TypePayoutConfirmed = "payout_confirmed"
	TypePayoutFailed    = "payout_failed" // also for a REJECTED payout

	TypeAccountHolderVerificationResultCompleted = "account_holder_verification_result_completed"

	TypeMandateAuthorised                = "mandate_authorised"
	TypeMandateDeclined                  = "mandate_declined"
	TypeMandateSuspended                 = "mandate_suspended"
	TypeMandateCancelled                 = "mandate_cancelled"
	TypeMandateExpired                   = "mandate_expired"
	TypeMandateAmendmentRequested        = "mandate_amendment_requested"
	TypeMandateAmended                   = "mandate_amended"
	TypeMandateAmendmentDeclined         = "mandate_amendment_declined"
	TypeMandateAmendmentRequestAbandoned = "mandate_amendment_request_abandoned"
	TypeChannelPaymentDetected           = "channel_payment_detected"
	TypeChannelPaymentCompleted          = "channel_payment_completed"
)

// Refund statuses in refund notifications.
const (
	StatusConfirmed = "CONFIRMED" // refund_confirmed: the money left
	StatusRejected  = "REJECTED"  // refund_rejected (and payout_failed of a REJECTED payout)
	// StatusFailed ("FAILED", body.go) is refund_failed and payout_failed.
)

// Refund is the body of refund_confirmed, refund_failed and
// refund_rejected.
type Refund struct {
	Refund            string    `json:"refund"`  // the refund's id: GET /refunds/{id}
	Payment           string    `json:"payment"` // the payment refunded
	ExternalReference string    `json:"externalReference"`
	Amount            int64     `json:"amount"` // minor units
	Currency          string    `json:"currency"`
	Status            string    `json:"status"` // CONFIRMED, FAILED or REJECTED
	Timestamp         time.Time `json:"timestamp"`
}

// Payout is the body of payout_confirmed (status COMPLETED) and
// payout_failed (FAILED or REJECTED).
type Payout struct {
	Payout           string    `json:"payout"` // the payout's id: GET /payouts/{id}
	AccountID        string    `json:"accountId"`
	Amount           int64     `json:"amount"` // minor units
	Currency         string    `json:"currency"`
	PaymentReference string    `json:"paymentReference"`
	Status           string    `json:"status"` // COMPLETED, FAILED or REJECTED
	Timestamp        time.Time `json:"timestamp"`
}

// AccountHolderVerification is the body of
// account_holder_verification_result_completed: the result of a payout's
// account holder verification is known.
type AccountHolderVerification struct {
	AccountHolderVerification string    `json:"accountHolderVerification"` // GET /account-holder-verifications/{id}
	TransactionID             string    `json:"transactionId"`             // the payout's id
	Status                    string    `json:"status"`                    // COMPLETED
	Result                    string    `json:"result"`                    // MATCH, CLOSE_MATCH, NO_MATCH or ERROR
	Timestamp                 time.Time `json:"timestamp"`
}

// Mandate is the body of the mandate events (mandate_authorised,
// mandate_declined, mandate_suspended, mandate_cancelled, mandate_expired:
// Status is the mandate's) and of the amendment events
// (mandate_amendment_requested, mandate_amended,
// mandate_amendment_declined, mandate_amendment_request_abandoned:
// Amendment is set and Status is the amendment's).
type Mandate struct {
	Mandate   string    `json:"mandate"`
	Amendment string    `json:"amendment,omitempty"`
	Status    string    `json:"status"`
	Timestamp time.Time `json:"timestamp"`
}

// ChannelPayment is the body of channel_payment_detected (status
// PROCESSING, Credited null) and channel_payment_completed (COMPLETED).
type ChannelPayment struct {
	ChannelPayment string         `json:"channelPayment"` // GET /channel-payments/{id}
	Channel        string         `json:"channel"`
	Status         string         `json:"status"`
	Paid           ChannelPaid    `json:"paid"`
	Credited       *ChannelCredit `json:"credited"` // null until credited
	Timestamp      time.Time      `json:"timestamp"`
}

// ChannelPaid is what a deposit paid, in the token.
type ChannelPaid struct {
	Amount   string `json:"amount"`   // a decimal number with up to 6 fractional digits, e.g. "10.500000"
	Currency string `json:"currency"` // the token: USDC, EURC
}

// ChannelCredit is what a deposit credited to the Connect account.
type ChannelCredit struct {
	Amount   int64  `json:"amount"` // minor units of Currency
	Currency string `json:"currency"`
}

// NewBody returns a pointer to a new, zero body of the struct a
// notification of type typ carries, or nil for a type without a typed body
// (test, and types this package does not know).
func NewBody(typ string) any {
	switch typ {
	case TypeGateway:
		return new(Gateway)
	case TypePaymentReceived, TypePaymentNotReceived:
		return new(Connect)
	case TypeRefundConfirmed, TypeRefundFailed, TypeRefundRejected:
		return new(Refund)
	case TypePayoutConfirmed, TypePayoutFailed:
		return new(Payout)
	case TypeAccountHolderVerificationResultCompleted:
		return new(AccountHolderVerification)
	case TypeMandateAuthorised, TypeMandateDeclined, TypeMandateSuspended, TypeMandateCancelled, TypeMandateExpired,
		TypeMandateAmendmentRequested, TypeMandateAmended, TypeMandateAmendmentDeclined, TypeMandateAmendmentRequestAbandoned:
		return new(Mandate)
	case TypeChannelPaymentDetected, TypeChannelPaymentCompleted:
		return new(ChannelPayment)
	case TypeReportAvailable:
		return new(Report)
	}
	return nil
}

// Types lists every X-Service-Type this package decodes into a struct
// (TypeGateway, the empty type, first), and TypeTest, whose body is {}.
func Types() []string {
	return slices.Clone(types)
}

var types = []string{TypeGateway, TypeTest, TypePaymentReceived, TypePaymentNotReceived,
	TypeRefundConfirmed, TypeRefundFailed, TypeRefundRejected, TypePayoutConfirmed, TypePayoutFailed,
	TypeAccountHolderVerificationResultCompleted,
	TypeMandateAuthorised, TypeMandateDeclined, TypeMandateSuspended, TypeMandateCancelled, TypeMandateExpired,
	TypeMandateAmendmentRequested, TypeMandateAmended, TypeMandateAmendmentDeclined, TypeMandateAmendmentRequestAbandoned,
	TypeChannelPaymentDetected, TypeChannelPaymentCompleted, TypeReportAvailable}

// DecodeBody decodes the body of a notification of type typ (the
// X-Service-Type; "" for gateway) into the struct that type carries and
// returns a pointer to it: *Gateway, *Connect, *Refund, *Payout,
// *AccountHolderVerification, *Mandate, *ChannelPayment or *Report. For
// TypeTest and for a type this package does not know (one added to bankrail
// later) it returns nil and checks only that the body is JSON. Fields the
// struct does not know are ignored, so that a receiver keeps working when a
// body gains a field.
func DecodeBody(typ string, body []byte) (any, error) {
	v := NewBody(typ)
	if v == nil {
		if !json.Valid(body) {
			return nil, fmt.Errorf("notification: decode %q body: invalid JSON", typ)
		}
		return nil, nil
	}
	if err := json.Unmarshal(body, v); err != nil {
		return nil, fmt.Errorf("notification: decode %q body: %w", typ, err)
	}
	return v, nil
}
