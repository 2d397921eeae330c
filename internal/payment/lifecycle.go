package payment

import (
	"slices"
	"time"

	"github.com/bankrail/bankrail/internal/errs"
)

// moves is the status machine of decisions.md (Payments), and nothing else:
// a move that is not listed here is refused.
//
//	NEW_PAYMENT -> REFUSED_BY_RISK                      (terminal)
//	NEW_PAYMENT -> BANK_REDIRECT -> AUTHORISED_BY_USER -> COMPLETED
//	                             -> DELAYED_AT_BANK -> COMPLETED | REFUSED_BY_BANK
//	                             -> REFUSED_BY_BANK | ERROR_AT_BANK | CANCELLED_BY_USER   (terminal)
//	NEW_PAYMENT | BANK_REDIRECT -> ABANDONED_BY_USER    (30 minutes after creation, no completion)
//	COMPLETED -> RECEIVED -> SETTLED                    (Connect)
//	COMPLETED -> NOT_RECEIVED -> RECEIVED               (Connect: late funds still match)
//	BANK_REDIRECT | AUTHORISED_BY_USER | DELAYED_AT_BANK -> RECEIVED   (Connect: funds before the bank's answer)
var moves = map[Status][]Status{
	StatusNew:              {StatusRefusedByRisk, StatusBankRedirect, StatusAbandonedByUser},
	StatusBankRedirect:     {StatusAuthorisedByUser, StatusDelayedAtBank, StatusRefusedByBank, StatusErrorAtBank, StatusCancelledByUser, StatusAbandonedByUser, StatusReceived},
	StatusAuthorisedByUser: {StatusCompleted, StatusReceived},
	StatusDelayedAtBank:    {StatusCompleted, StatusRefusedByBank, StatusReceived},
	StatusCompleted:        {StatusReceived, StatusNotReceived},
	StatusReceived:         {StatusSettled},
	StatusNotReceived:      {StatusReceived},
}

// Time rules of the lifecycle (decisions.md: abandonment 30 minutes after
// creation; a delayed bank answers after a while).
const (
	AbandonAfter = 30 * time.Minute
	BankDelay    = 2 * time.Minute
	// BankSilence is how long a payment DELAYED_AT_BANK waits for a real
	// bank's final answer (read by its connector) before it ends
	// REFUSED_BY_BANK (docs/checkout.md, "NextGenPSD2 banks").
	BankSilence = 24 * time.Hour
)

// CanMove reports whether the table allows from -> to.
func CanMove(from, to Status) bool { return slices.Contains(moves[from], to) }

// Initiating reports whether the payer's part of the payment is still
// under way (paymentInitiationFlow PROCESSING).
func (s Status) Initiating() bool { return s.Flow() == FlowProcessing }

// TimedMove is a move that happens by itself once the clock reaches At:
// abandonment, or the answer of a bank that delayed.
type TimedMove struct {
	To Status
	At time.Time
}

// moveError explains why from -> to is refused: RESOURCE_NOT_MODIFIABLE
// once the initiation has ended, CONFLICT while it is under way.
func moveError(from, to Status) error {
	if !from.Initiating() {
		return errs.E(errs.NotModifiable, "The payment is %s: its initiation has ended and it cannot move to %s.", from, to)
	}
	return errs.E(errs.Conflict, "A payment in status %s cannot move to %s; it can move to: %v.", from, to, moves[from])
}

// move applies one move of the table to p at time at: the status, its
// history entry, updatedAt and the timed move that follows. resolve is where
// DELAYED_AT_BANK ends (COMPLETED or REFUSED_BY_BANK).
func (p *Payment) move(to Status, at time.Time, resolve Status) error {
	if !CanMove(p.Status, to) {
		return moveError(p.Status, to)
	}
	p.Status = to
	p.History = append(p.History, StatusUpdate{Status: to, CreatedAt: at})
	p.UpdatedAt = at
	p.Next = timedMoveAfter(*p, at, resolve)
	return nil
}

// timedMoveAfter is the timed move of p once it has reached its status at
// time at: abandonment while the payer has not finished, the bank's answer
// while it delays, nothing otherwise. A delay whose resolve is
// DELAYED_AT_BANK itself waits for the bank's own answer, which its
// connector brings (ParseBankOutcome): a bank silent for BankSilence ends
// it REFUSED_BY_BANK, so that no payment waits for ever.
func timedMoveAfter(p Payment, at time.Time, resolve Status) *TimedMove {
	switch p.Status {
	case StatusNew, StatusBankRedirect:
		return &TimedMove{To: StatusAbandonedByUser, At: p.CreatedAt.Add(AbandonAfter)}
	case StatusDelayedAtBank:
		if resolve == StatusDelayedAtBank {
			return &TimedMove{To: StatusRefusedByBank, At: at.Add(BankSilence)}
		}
		if !CanMove(StatusDelayedAtBank, resolve) {
			resolve = StatusCompleted
		}
		return &TimedMove{To: resolve, At: at.Add(BankDelay)}
	}
	return nil
}

// Due reports whether p's timed move should have happened by now.
func (p Payment) Due(now time.Time) bool { return p.Next != nil && !now.Before(p.Next.At) }
