package aspsp

import (
	"strings"
	"time"

	"github.com/bankrail/bankrail/internal/payment"
	"github.com/bankrail/bankrail/internal/xs2a"
)

// Magic amounts of the mock banks (minor units of any currency).
const (
	// RejectAmount is rejected at the initiation (201 with RJCT and no
	// scaRedirect).
	RejectAmount = 666
	// UnavailableAmount: every status request of the payment answers 503.
	UnavailableAmount = 503
)

// Answer is what the mock bank says of a payment at a moment.
type Answer struct {
	Status string // the transactionStatus
	// HTTPError is the HTTP status the status request answers instead
	// (a bank error); 0 for none.
	HTTPError int
	Messages  []xs2a.TPPMessage
}

// StatusAt is what the bank says of p at now (the tenant's virtual time):
// RCVD until the payer answers (or a scenario did); then the status of the
// outcome, a delay (DELAYED_AT_BANK>...) being PDNG for payment.BankDelay
// after the answer. ERROR_AT_BANK and the UnavailableAmount answer 500 and
// 503.
func StatusAt(p Payment, now time.Time) Answer {
	if minor, err := xs2a.ParseAmount(p.Body.InstructedAmount); err == nil {
		switch minor {
		case RejectAmount:
			return Answer{Status: "RJCT", Messages: []xs2a.TPPMessage{{Category: "ERROR", Code: "ERROR", Text: "The bank rejected the amount."}}}
		case UnavailableAmount:
			return Answer{HTTPError: 503}
		}
	}
	if p.Outcome == "" {
		return Answer{Status: "RCVD"}
	}
	steps := strings.Split(p.Outcome, ">")
	final := steps[len(steps)-1]
	if steps[0] == string(payment.StatusDelayedAtBank) && now.Before(p.AnsweredAt.Add(payment.BankDelay)) {
		return Answer{Status: "PDNG"}
	}
	switch payment.Status(final) {
	case payment.StatusCompleted, payment.StatusNotReceived:
		return Answer{Status: "ACSC"}
	case payment.StatusRefusedByBank, payment.StatusRefusedByRisk:
		return Answer{Status: "RJCT", Messages: []xs2a.TPPMessage{{Category: "ERROR", Code: "ERROR", Text: "The bank refused the payment."}}}
	case payment.StatusErrorAtBank:
		return Answer{HTTPError: 500}
	}
	return Answer{Status: "CANC"} // CANCELLED_BY_USER, ABANDONED_BY_USER
}
