package payment

import "github.com/bankrail/bankrail/internal/bank"

// registrations are the payment systems of the Global API, one entry each
// (see system.go for adding one).
var registrations = []System{
	{
		ID: bank.OpenBankingEU, Object: "openBankingEU", Currency: "EUR",
		MaxPaymentReference: MaxPaymentReferenceEU, Account: AccountIBAN,
		Field: FieldOf(func(r *CreateRequest) **OpenBankingEU { return &r.OpenBankingEU }),
		// SEPA Instant when the bank takes instant payments, else SEPA Credit Transfer.
		TransferType: func(b *bank.Bank) string {
			if b != nil && b.SEPAInstant {
				return TransferSEPAInstantCredit
			}
			return TransferSEPACredit
		},
	},
	{
		ID: bank.OpenBankingUK, Object: "openBankingUK", Currency: "GBP",
		MaxPaymentReference: MaxPaymentReferenceUK, Account: AccountSortCode, Country: "GB",
		Field:        FieldOf(func(r *CreateRequest) **OpenBankingUK { return &r.OpenBankingUK }),
		TransferType: func(*bank.Bank) string { return TransferFasterPayments },
	},
}

// fallbackSystem lends its rules to a request whose paymentSystem is
// missing or unknown, and is the legacy API's choice for a currency no
// system takes.
const fallbackSystem = bank.OpenBankingEU
