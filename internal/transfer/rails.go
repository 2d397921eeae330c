package transfer

import (
	"github.com/bankrail/bankrail/internal/errs"
	"github.com/bankrail/bankrail/internal/pain"
)

// Covers refuses, with a VALIDATION_FAILURE naming the field, a transfer
// the production rail cannot carry: SEPA credit transfers are in euros,
// to an IBAN. currencyPath and ibanPath are the request's fields in the
// error; an empty beneficiaryIBAN with a non-empty other (a UK sort code
// and account number) is refused on ibanPath. The IBAN's own validity is
// the request's validation's.
func Covers(currency, currencyPath, beneficiaryIBAN, other, ibanPath string) error {
	var v errs.Validation
	if currency != pain.Currency {
		v.Add(errs.InvalidValue, currencyPath, "%s transfers cannot leave this instance: its bank rail is SEPA credit transfer, which carries %s only.",
			currency, pain.Currency)
	}
	if beneficiaryIBAN == "" && other != "" {
		v.Add(errs.InvalidValue, ibanPath, "A beneficiary named by sort code and account number cannot be paid: the bank rail is SEPA credit transfer, which needs an IBAN.")
	}
	return v.Err()
}
