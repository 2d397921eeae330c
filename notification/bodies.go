package notification

import (
	"encoding/json"
	"fmt"
	"slices"
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
