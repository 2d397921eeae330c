package payment

import (
	"github.com/google/uuid"

	"github.com/bankrail/bankrail/internal/bank"
	"github.com/bankrail/bankrail/internal/iso"
)

// namespace of the ids derived from account details (uuid v5), so that the
// same beneficiary account always gets the same ids.
var accountNamespace = uuid.MustParse("6f1d2c3b-8a4e-5b6c-9d7e-0f1a2b3c4d5e")

// Account identification types of the details record.
const (
	IdentificationIBAN          = "IBAN"
	IdentificationSwiftBic      = "SWIFT_BIC"
	IdentificationSortCode      = "SORT_CODE"
	IdentificationAccountNumber = "ACCOUNT_NUMBER"
)

// Identification is one {type, value} of an account.
type Identification struct {
	Type  string
	Value string
}

// ReceivingAccount is the account that receives a payment, derived from its
// beneficiary: ids are stable for the same customer and account details.
type ReceivingAccount struct {
	AccountID       string
	BeneficiaryID   string
	Name            string
	Identifiers     AccountIdentifiers
	Identifications []Identification
	Country         string     // ISO 3166-1 alpha-2
	Bank            *bank.Bank // the beneficiary's bank, when its BIC is one of the registry
}

// ReceivingAccountOf derives the receiving account of p.
func ReceivingAccountOf(p Payment, banks *bank.Registry) ReceivingAccount {
	ids := p.Request.Identifiers()
	name := ""
	if p.Request.Beneficiary != nil {
		name = p.Request.Beneficiary.Name
	}
	acc := ReceivingAccount{Name: name, Identifiers: ids}
	key := ids.IBAN + "|" + ids.SortCode + "|" + ids.AccountNumber
	acc.AccountID = uuid.NewSHA1(accountNamespace, []byte("account|"+p.CustomerID+"|"+key)).String()
	acc.BeneficiaryID = uuid.NewSHA1(accountNamespace, []byte("beneficiary|"+p.CustomerID+"|"+name+"|"+key)).String()
	for _, id := range []Identification{
		{IdentificationIBAN, ids.IBAN}, {IdentificationSwiftBic, ids.SwiftBic},
		{IdentificationSortCode, ids.SortCode}, {IdentificationAccountNumber, ids.AccountNumber},
	} {
		if id.Value != "" {
			acc.Identifications = append(acc.Identifications, id)
		}
	}
	if ids.IBAN != "" {
		acc.Country = iso.IBANCountry(ids.IBAN)
	} else if sys, ok := SystemOf(p.System()); ok {
		acc.Country = sys.Country // "" when the system does not say
	}
	if ids.SwiftBic != "" {
		if b, ok := banks.ByBIC(ids.SwiftBic); ok {
			acc.Bank = &b
		}
	}
	return acc
}
