package payment

import "bankrail/internal/bank"

// Transfer types: the scheme that moves the money.
const (
	TransferFasterPayments    = "Faster Payments"
	TransferSEPACredit        = "SEPA Credit Transfer"
	TransferSEPAInstantCredit = "SEPA Instant Credit Transfer"
	TransferSWIFT             = "SWIFT"
)

// TransferType names the scheme of a payment of system sys from bank b (nil
// while the payer has not picked a bank): Faster Payments in the United
// Kingdom; in SEPA, SEPA Instant when the bank takes instant payments,
// otherwise SEPA Credit Transfer.
func TransferType(sys bank.PaymentSystem, b *bank.Bank) string {
	switch {
	case sys == bank.OpenBankingUK:
		return TransferFasterPayments
	case b != nil && b.SEPAInstant:
		return TransferSEPAInstantCredit
	case sys == bank.OpenBankingEU:
		return TransferSEPACredit
	}
	return TransferSWIFT
}
