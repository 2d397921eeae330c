package payment

// Refundability says whether a payment can be refunded now and, when it
// cannot, why: a machine-readable code and a sentence for people. It is the
// source of the details record's refundAvailable, refundNotAvailableCode and
// refundNotAvailableReason.
type Refundability struct {
	Available bool
	Code      string // empty when Available
	Reason    string // empty when Available
}

// Codes of Refundability.
const (
	// RefundNotReceived: refunds need the funds in a Connect account (RECEIVED).
	RefundNotReceived = "PAYMENT_NOT_RECEIVED"
)

// RefundabilityOf applies the part of the refund rule that p alone
// decides: only a payment received into a Connect account (expected, and
// RECEIVED or SETTLED) can be refunded. RefundabilityAt adds what is left
// and what the account holds.
func RefundabilityOf(p Payment) Refundability {
	switch {
	case !p.Expected():
		return Refundability{Code: RefundNoConnectAccount,
			Reason: "The payment was not received into a Connect account, so bankrail holds no funds to refund."}
	case p.Status == StatusReceived || p.Status == StatusSettled:
		return Refundability{Available: true}
	}
	return Refundability{Code: RefundNotReceived,
		Reason: "Only a payment whose funds were received into a Connect account can be refunded."}
}

// More codes of Refundability (decisions.md, Refunds).
const (
	RefundNoConnectAccount  = "NO_CONNECT_ACCOUNT" // the payment was not expected on a Connect account
	RefundFullyRefunded     = "FULLY_REFUNDED"     // nothing is left to refund
	RefundInsufficientFunds = "INSUFFICIENT_FUNDS" // the account's available balance is below what is left
)

// RefundabilityAt applies the whole refund rule, in the contract's order:
// a payment not expected on a Connect account, not RECEIVED or SETTLED,
// fully refunded (refunded is the sum of its pending and confirmed
// refunds), or whose account holds less than what is left (available)
// cannot be refunded.
func RefundabilityAt(p Payment, refunded, available int64) Refundability {
	if r := RefundabilityOf(p); !r.Available {
		return r
	}
	switch left := p.Amount() - refunded; {
	case left <= 0:
		return Refundability{Code: RefundFullyRefunded, Reason: "The payment has been refunded in full."}
	case available < left:
		return Refundability{Code: RefundInsufficientFunds,
			Reason: "The Connect account's available balance is below what is left to refund."}
	}
	return Refundability{Available: true}
}
