package xs2a

import "github.com/bankrail/bankrail/internal/payment"

// Phase is what a transactionStatus of the standard says of a payment, as
// bankrail reads it (docs/checkout.md, "NextGenPSD2 transaction statuses").
type Phase int

// Phases.
const (
	// Unknown: a code that is not in the standard's table (or none).
	Unknown Phase = iota
	// Received (RCVD): the bank has the initiation; the payer has not
	// authorised it (yet).
	Received
	// Pending: authorised or under checks, not yet accepted for execution
	// (PDNG, ACTC, ACCP, ACFC, PATC, PART).
	Pending
	// Accepted: accepted for execution or executed (ACSP, ACSC, ACCC, ACWC,
	// ACWP): the initiation has succeeded.
	Accepted
	// Rejected (RJCT).
	Rejected
	// Cancelled (CANC): by the payer at the bank, or the bank's SCA expired.
	Cancelled
)

// phases is the table of every transactionStatus of the standard
// (1.3.11, schema transactionStatus).
var phases = map[string]Phase{
	"RCVD": Received,
	"PDNG": Pending, "ACTC": Pending, "ACCP": Pending, "ACFC": Pending, "PATC": Pending, "PART": Pending,
	"ACSP": Accepted, "ACSC": Accepted, "ACCC": Accepted, "ACWC": Accepted, "ACWP": Accepted,
	"RJCT": Rejected,
	"CANC": Cancelled,
}

// PhaseOf is the phase of a transactionStatus code.
func PhaseOf(code string) Phase { return phases[code] }

// StatusCodes are the standard's transactionStatus codes, for tests and
// the mock ASPSP.
func StatusCodes() []string {
	out := make([]string, 0, len(phases))
	for c := range phases {
		out = append(out, c)
	}
	return out
}

// Final reports whether the phase is the bank's last word.
func (p Phase) Final() bool { return p == Accepted || p == Rejected || p == Cancelled }

// Reading is what bankrail learnt of a payment at its bank at one moment.
type Reading struct {
	Phase  Phase
	Code   string // the transactionStatus as the bank sent it ("" when none could be read)
	Reason string // the bank's tppMessages, else why the status could not be read
	// Failed: the status could not be read (timeout, 5xx, malformed JSON,
	// an unknown code).
	Failed bool
	// Nok: the bank sent the payer back to TPP-Nok-Redirect-URI.
	Nok bool
	// PSUMessage is what the bank asks of the payer (decoupled SCA).
	PSUMessage string
}

// OnReturn is the outcome (payment.ParseBankOutcome's names) a reading
// brings about when the payer comes back from the bank to a payment at
// BANK_REDIRECT. Every reading has one: the payer always gets a defined
// page.
func OnReturn(r Reading) string {
	switch {
	case r.Failed:
		return string(payment.StatusErrorAtBank)
	case r.Phase == Accepted:
		return string(payment.StatusCompleted)
	case r.Phase == Rejected:
		return string(payment.StatusRefusedByBank)
	case r.Phase == Cancelled, r.Phase == Received && r.Nok:
		return string(payment.StatusCancelledByUser)
	}
	// Pending, or RCVD after the ok redirect: the bank has not answered
	// yet; the poll job brings its answer.
	return string(payment.StatusDelayedAtBank)
}

// InBackground is the outcome a reading of the poll job brings about for a
// payment in status current, and whether there is one: only the bank's
// final word moves a payment (a failed or pending reading is read again).
func InBackground(current payment.Status, r Reading) (string, bool) {
	if r.Failed || !r.Phase.Final() {
		return "", false
	}
	switch {
	case r.Phase == Accepted:
		return string(payment.StatusCompleted), true
	case current == payment.StatusDelayedAtBank:
		// The table allows only COMPLETED and REFUSED_BY_BANK after DELAYED_AT_BANK.
		return string(payment.StatusRefusedByBank), true
	case r.Phase == Rejected:
		return string(payment.StatusRefusedByBank), true
	}
	return string(payment.StatusCancelledByUser), true
}
