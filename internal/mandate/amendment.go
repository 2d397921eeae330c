package mandate

import (
	"time"

	"github.com/bankrail/bankrail/internal/errs"
)

// AmendmentStatus is where an amendment is in its life.
type AmendmentStatus string

// Amendment statuses.
const (
	AwaitingApproval AmendmentStatus = "AWAITING_APPROVAL" // waiting for the payer
	Approved         AmendmentStatus = "APPROVED"          // the payer approved: the mandate changed
	Rejected         AmendmentStatus = "DECLINED"          // the payer declined
	Abandoned        AmendmentStatus = "ABANDONED"         // no answer within AbandonAfter
	Recalled         AmendmentStatus = "RECALLED"          // withdrawn by the merchant: read as 404
)

// Track and initiator of amendments made through the API.
const (
	TrackBilateral    = "BILATERAL"
	InitiatorCustomer = "CUSTOMER"
)

// AbandonAfter is how long the payer has to answer an amendment, on the
// service clock.
const AbandonAfter = 5 * 24 * time.Hour

// Details say why an amendment left AWAITING_APPROVAL.
type Details struct {
	Reason string
	Code   string
}

// Changes are the terms an amendment asks to change; nil parts stay as
// they are.
type Changes struct {
	ValidityFrom *time.Time
	ValidityTo   *time.Time
	PaymentLimit *int64 // payTo.limits.payment.amount
}

// HasValidity reports whether the changes touch validity.
func (c Changes) HasValidity() bool { return c.ValidityFrom != nil || c.ValidityTo != nil }

// Amendment is a request to change a mandate's terms.
type Amendment struct {
	ID         string
	MandateID  string
	CustomerID string // the mandate's merchant
	Track      string
	Initiator  string
	Status     AmendmentStatus
	Details    *Details // nil while AWAITING_APPROVAL
	Changes    Changes
	Token      string // the payer's capability: the mock bank's page needs it
	CreatedAt  time.Time
	UpdatedAt  time.Time
}

// Open reports whether the amendment still waits for the payer.
func (a Amendment) Open() bool { return a.Status == AwaitingApproval }

// AbandonAt is when an open amendment is abandoned.
func (a Amendment) AbandonAt() time.Time { return a.CreatedAt.Add(AbandonAfter) }

// AbandonDue reports whether the amendment must be abandoned at now.
func (a Amendment) AbandonDue(now time.Time) bool { return a.Open() && !now.Before(a.AbandonAt()) }

// Answer is how an open amendment ends.
type Answer struct {
	To      AmendmentStatus
	Event   string // the event it records
	Details Details
	Notify  bool
}

// The ways an amendment ends.
var (
	Approve = Answer{Approved, EventAmended,
		Details{"The payer approved the amendment; the mandate's terms changed.", "APPROVED_BY_PAYER"}, true}
	Refuse = Answer{Rejected, EventAmendmentDeclined,
		Details{"The payer declined the amendment; the mandate is unchanged.", "DECLINED_BY_PAYER"}, true}
	Abandon = Answer{Abandoned, EventAmendmentRequestAbandoned,
		Details{"The payer did not answer within 5 days; the mandate is unchanged.", "NO_ANSWER"}, true}
	Recall = Answer{Recalled, EventAmendmentRecalled,
		Details{"The merchant recalled the amendment.", "RECALLED_BY_MERCHANT"}, false}
)

// Apply ends open amendment a with ans at now: RESOURCE_NOT_MODIFIABLE
// when it was answered already.
func (ans Answer) Apply(a Amendment, now time.Time) (Amendment, error) {
	if !a.Open() {
		return Amendment{}, errs.E(errs.NotModifiable, "The amendment is %s: it can no longer be answered or recalled.", a.Status)
	}
	d := ans.Details
	a.Status, a.Details, a.UpdatedAt = ans.To, &d, now
	return a, nil
}

// ApplyTo returns m with the changes of an approved amendment, at now.
func (c Changes) ApplyTo(m Mandate, now time.Time) Mandate {
	if c.ValidityFrom != nil {
		m.Validity.From = *c.ValidityFrom
	}
	if c.ValidityTo != nil {
		m.Validity.To = *c.ValidityTo
	}
	if c.PaymentLimit != nil {
		m.PaymentLimit = *c.PaymentLimit
	}
	m.UpdatedAt = now
	return m
}
