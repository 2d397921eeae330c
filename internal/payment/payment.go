// Package payment holds the rules of Global API payments: the request and
// its validation, the payment record, statuses and their moves, transfer
// types, idempotency decisions and the service that creates, reads and lists
// payments. It knows nothing of HTTP or SQL: the HTTP adapter decodes and
// renders, the store persists.
package payment

import (
	"time"

	"github.com/bankrail/bankrail/internal/bank"
)

// Status is the state of a payment.
type Status string

// Payment statuses (see lifecycle.go and docs/checkout.md for the moves between them).
const (
	StatusNew              Status = "NEW_PAYMENT"
	StatusRefusedByRisk    Status = "REFUSED_BY_RISK"
	StatusBankRedirect     Status = "BANK_REDIRECT"
	StatusAuthorisedByUser Status = "AUTHORISED_BY_USER"
	StatusDelayedAtBank    Status = "DELAYED_AT_BANK"
	StatusCompleted        Status = "COMPLETED"
	StatusRefusedByBank    Status = "REFUSED_BY_BANK"
	StatusErrorAtBank      Status = "ERROR_AT_BANK"
	StatusCancelledByUser  Status = "CANCELLED_BY_USER"
	StatusAbandonedByUser  Status = "ABANDONED_BY_USER"
	StatusReceived         Status = "RECEIVED"
	StatusSettled          Status = "SETTLED"
	StatusNotReceived      Status = "NOT_RECEIVED"
)

// Statuses lists every status, for validation of filters.
var Statuses = []Status{StatusNew, StatusRefusedByRisk, StatusBankRedirect, StatusAuthorisedByUser,
	StatusDelayedAtBank, StatusCompleted, StatusRefusedByBank, StatusErrorAtBank, StatusCancelledByUser,
	StatusAbandonedByUser, StatusReceived, StatusSettled, StatusNotReceived}

// Valid reports whether s is a known status.
func (s Status) Valid() bool {
	for _, k := range Statuses {
		if s == k {
			return true
		}
	}
	return false
}

// FlowStatus is the state of paymentInitiationFlow.
type FlowStatus string

// Flow statuses.
const (
	FlowProcessing FlowStatus = "PROCESSING"
	FlowFinished   FlowStatus = "FINISHED"
	FlowAborted    FlowStatus = "ABORTED"
	FlowException  FlowStatus = "EXCEPTION"
)

// Flow returns the paymentInitiationFlow status of a payment status:
// PROCESSING while the payer acts, FINISHED from COMPLETED on, ABORTED on
// cancel or abandon, EXCEPTION on bank or risk failure.
func (s Status) Flow() FlowStatus {
	switch s {
	case StatusCompleted, StatusReceived, StatusSettled, StatusNotReceived:
		return FlowFinished
	case StatusCancelledByUser, StatusAbandonedByUser:
		return FlowAborted
	case StatusRefusedByRisk, StatusRefusedByBank, StatusErrorAtBank:
		return FlowException
	default:
		return FlowProcessing
	}
}

// Channel is how the payer is sent to pay (X-Service-Initiation-Channel).
type Channel string

// Initiation channels.
const (
	ChannelHosted Channel = "hosted" // the hosted checkout: bank picker or confirmation page
	ChannelAPI    Channel = "api"    // straight to the chosen bank's authorisation page
)

// Type is what a payment pays for.
type Type string

// Payment types.
const (
	TypeBill           Type = "BILL"
	TypeGoods          Type = "GOODS"
	TypePersonToPerson Type = "PERSON_TO_PERSON"
	TypeServices       Type = "SERVICES"
	TypeOther          Type = "OTHER"
)

// Types lists every payment type.
var Types = []Type{TypeBill, TypeGoods, TypePersonToPerson, TypeServices, TypeOther}

// StatusUpdate is one entry of a payment's status history.
type StatusUpdate struct {
	Status    Status
	CreatedAt time.Time
}

// Sender is the paying account as the payer's bank reports it.
type Sender struct {
	Name          string
	IBAN          string
	SortCode      string
	AccountNumber string
}

// Payment is a payment request and what has happened to it.
type Payment struct {
	ID              string
	CustomerID      string // the merchant that created it (the token's customer)
	ClientID        string // the application (OAuth client) it was created through
	UserID          string // the user that created it
	Channel         Channel
	Request         CreateRequest // the accepted request, normalised
	Status          Status
	History         []StatusUpdate // oldest first; the first is NEW_PAYMENT
	Sender          *Sender        // nil until the bank reports the paying account
	UniqueReference string         // the paymentReference, or one made up when absent
	ShortCode       string         // of the short link /c/{code}
	CheckoutToken   string         // authorises the payer's checkout pages
	Next            *TimedMove     // the move that happens by itself when due (abandonment, a delayed bank's answer)
	// ConnectAccountID is the Connect account the payment is expected on
	// (empty: not a Connect payment); see connect.go.
	ConnectAccountID string
	CreatedAt        time.Time
	UpdatedAt        time.Time
}

// System is the payment system of the payment.
func (p Payment) System() bank.PaymentSystem { return p.Request.PaymentSystem }

// Scheme returns the scheme details (type, institution) of the payment.
func (p Payment) Scheme() SchemeDetails { return p.Request.Scheme() }

// Type is the payment's type (OTHER when none was given).
func (p Payment) Type() Type {
	if t := p.Scheme().Type; t != "" {
		return t
	}
	return TypeOther
}

// Amount is the payment's amount in minor units.
func (p Payment) Amount() int64 {
	if p.Request.Amount == nil {
		return 0
	}
	return *p.Request.Amount
}
