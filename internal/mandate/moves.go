package mandate

import (
	"slices"
	"time"

	"github.com/bankrail/bankrail/internal/errs"
)

// Event types of mandates and amendments (decisions.md), also the
// X-Service-Type of their notifications. EventResumed, EventRequested,
// EventAmendmentRecalled and EventUsed are kept in the event log only: the contract's list
// of mandate notifications does not name them.
const (
	EventRequested                 = "mandate_requested"
	EventAuthorised                = "mandate_authorised"
	EventDeclined                  = "mandate_declined"
	EventSuspended                 = "mandate_suspended"
	EventResumed                   = "mandate_resumed"
	EventCancelled                 = "mandate_cancelled"
	EventExpired                   = "mandate_expired"
	EventAmendmentRequested        = "mandate_amendment_requested"
	EventAmended                   = "mandate_amended"
	EventAmendmentDeclined         = "mandate_amendment_declined"
	EventAmendmentRequestAbandoned = "mandate_amendment_request_abandoned"
	EventAmendmentRecalled         = "mandate_amendment_recalled"
	// EventUsed is the first payment against a mandate (usedAt set); event log only.
	EventUsed = "mandate_used"
)

// Move is one way a mandate changes status.
type Move struct {
	Name   string   // for messages: "authorise"
	From   []Status // where it may start
	To     Status
	Event  string // the event it records
	Notify bool   // whether the merchant is notified
}

// The moves of a mandate.
var (
	Authorise = Move{"authorise", []Status{Requested}, Active, EventAuthorised, true}
	Decline   = Move{"decline", []Status{Requested}, Declined, EventDeclined, true}
	Suspend   = Move{"suspend", []Status{Active}, Suspended, EventSuspended, true}
	Resume    = Move{"resume", []Status{Suspended}, Active, EventResumed, false}
	Cancel    = Move{"cancel", []Status{Requested, Active, Suspended}, Cancelled, EventCancelled, true}
	Expire    = Move{"expire", []Status{Requested, Active, Suspended}, Expired, EventExpired, true}
)

// Apply moves m by mv at now: RESOURCE_NOT_MODIFIABLE when m's status is
// not one mv starts from.
func (mv Move) Apply(m Mandate, now time.Time) (Mandate, error) {
	if !slices.Contains(mv.From, m.Status) {
		return Mandate{}, errs.E(errs.NotModifiable, "A %s mandate cannot be %s.", m.Status, mv.past())
	}
	m.Status, m.UpdatedAt = mv.To, now
	return m, nil
}

// past is the move's name as a past participle, for messages.
func (mv Move) past() string {
	switch mv.Name {
	case "authorise":
		return "authorised"
	case "decline":
		return "declined"
	case "suspend":
		return "suspended"
	case "resume":
		return "resumed"
	case "cancel":
		return "cancelled"
	}
	return "expired"
}
