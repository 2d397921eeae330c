package payment

import (
	"time"

	"github.com/bankrail/bankrail/internal/bank"
)

// Transfer types: the scheme that moves the money.
const (
	TransferFasterPayments    = "Faster Payments"
	TransferSEPACredit        = "SEPA Credit Transfer"
	TransferSEPAInstantCredit = "SEPA Instant Credit Transfer"
	TransferSWIFT             = "SWIFT"
	TransferCHAPS             = "CHAPS"
	TransferBACS              = "BACS"
)

// TransferType names the scheme of a payment of system sys from bank b (nil
// while the payer has not picked a bank), as its registration says:
// Faster Payments in the United Kingdom; in SEPA, SEPA Instant when the
// bank takes instant payments, otherwise SEPA Credit Transfer. An
// unregistered system gets SEPA Instant from such a bank, else SWIFT.
func TransferType(sys bank.PaymentSystem, b *bank.Bank) string {
	if s, ok := SystemOf(sys); ok {
		return s.TransferType(b)
	}
	if sys == PaymentSystemPayTo {
		return TransferNPP
	}
	if b != nil && b.SEPAInstant {
		return TransferSEPAInstantCredit
	}
	return TransferSWIFT
}

// timeframes are the whole days a Connect payment waits for its funds
// after COMPLETED before it is NOT_RECEIVED, by transfer type
// (decisions.md, Connect).
var timeframes = map[string]int{
	TransferFasterPayments:    1,
	TransferSEPAInstantCredit: 1,
	TransferSEPACredit:        8,
	TransferSWIFT:             8,
	TransferCHAPS:             3,
	TransferBACS:              5,
	TransferNPP:               1,
}

// DefaultTimeframeDays is the timeframe of a transfer type not listed.
const DefaultTimeframeDays = 8

// Timeframe is how long after COMPLETED an expected (Connect) payment of
// transferType may wait for its funds before it moves to NOT_RECEIVED:
// whole 24-hour days on the clock.
func Timeframe(transferType string) time.Duration {
	days, ok := timeframes[transferType]
	if !ok {
		days = DefaultTimeframeDays
	}
	return time.Duration(days) * 24 * time.Hour
}
