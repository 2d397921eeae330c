// Package mandate is bankrail's mandates domain: PayTo (AUD) and variable
// recurring payment (VRP, GBP) mandates, their states and moves (authorise,
// decline, suspend, resume, cancel, expire on the clock), their validity
// and payment limit; and amendments, the merchant's requests to change a
// mandate's terms that the payer approves or declines (the contract's four
// rules, one open amendment per mandate, abandonment after 5 days on the
// clock, recall). The rules are pure functions; the Service runs each use
// case in one unit of work with its events and notifications. It knows
// nothing of HTTP or SQL.
package mandate

import (
	"time"
)

// Type is the kind of a mandate.
type Type string

// Types of mandates and the currency each is held in.
const (
	PayTo Type = "PAYTO" // Australia's PayTo, in AUD
	VRP   Type = "VRP"   // UK variable recurring payments, in GBP
)

// Currency is the one currency of mandates of type t.
func (t Type) Currency() string {
	switch t {
	case PayTo:
		return "AUD"
	case VRP:
		return "GBP"
	}
	return ""
}

// PaymentSystem is the payment system that carries payments against
// mandates of type t.
func (t Type) PaymentSystem() string {
	if t == PayTo {
		return "NPP_PAY_TO_AU"
	}
	return "OPEN_BANKING_UK"
}

// Status is where a mandate is in its life.
type Status string

// Mandate statuses.
const (
	Requested Status = "REQUESTED" // created, waiting for the payer at the bank
	Active    Status = "ACTIVE"    // authorised: payments may be taken
	Suspended Status = "SUSPENDED" // paused by the merchant; may resume
	Declined  Status = "DECLINED"  // the payer refused it (terminal)
	Cancelled Status = "CANCELLED" // ended by the merchant (terminal)
	Expired   Status = "EXPIRED"   // validity.to passed (terminal)
)

// Amendable reports whether an amendment may be requested in status s
// (the contract's first rule).
func (s Status) Amendable() bool { return s == Active || s == Suspended }

// AccountIdentifiers name the payer's account: an IBAN or sort code and
// account number (VRP), or a BSB and account number (PayTo).
type AccountIdentifiers struct {
	IBAN          string
	SortCode      string
	AccountNumber string
	BSB           string
}

// Payer is who pays under a mandate.
type Payer struct {
	Name               string
	AccountIdentifiers AccountIdentifiers
}

// Validity is when a mandate may be used: from From on, until To (zero:
// no end).
type Validity struct {
	From time.Time
	To   time.Time
}

// Covers reports whether t lies within the validity.
func (v Validity) Covers(t time.Time) bool {
	return !t.Before(v.From) && (v.To.IsZero() || t.Before(v.To))
}

// Mandate is a payer's standing authority for a merchant to take payments.
type Mandate struct {
	ID         string
	CustomerID string // the merchant
	ClientID   string // the application that created it: its notifications go there
	UserID     string
	Type       Type
	Status     Status
	Currency   string
	Payer      Payer
	Validity   Validity
	// PaymentLimit is the most one payment may take (PayTo: payTo.limits.payment.amount); 0 for VRP.
	PaymentLimit int64
	UsedAt       time.Time // the first payment against it; zero while unused
	CreatedAt    time.Time
	UpdatedAt    time.Time
	Token        string // the payer's capability: the mock bank's page needs it
	Version      int    // bumped by every change: a save applies only over the version read
}

// Used reports whether a payment has been taken against the mandate.
func (m Mandate) Used() bool { return !m.UsedAt.IsZero() }

// ExpiryDue reports whether the mandate must expire at now: not ended yet,
// and validity.to has passed.
func (m Mandate) ExpiryDue(now time.Time) bool {
	return !m.Validity.To.IsZero() && !now.Before(m.Validity.To) && m.Status.live()
}

// live reports a status a mandate can still leave.
func (s Status) live() bool { return s == Requested || s == Active || s == Suspended }
