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

// RefundabilityOf applies the refund rule to p: only a payment whose funds
// were received into a Connect account (RECEIVED) can be refunded.
func RefundabilityOf(p Payment) Refundability {
	if p.Status == StatusReceived {
		return Refundability{Available: true}
	}
	return Refundability{Code: RefundNotReceived,
		Reason: "Only a payment whose funds were received into a Connect account can be refunded."}
}
