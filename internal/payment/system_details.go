package payment

import "github.com/bankrail/bankrail/internal/errs"

// The Details methods of the registered systems' objects.

func (d *OpenBankingEU) scheme() SchemeDetails {
	return SchemeDetails{Type: d.Type, InstitutionID: d.InstitutionID}
}

func (d *OpenBankingEU) setInstitution(id string) { d.InstitutionID = id }

func (d *OpenBankingEU) payerIBAN() string {
	if d.AccountIdentifiers == nil {
		return ""
	}
	return d.AccountIdentifiers.IBAN
}

// check validates statementDescriptor, validityPeriod (seconds) and the
// payer's IBAN, which only SEPA carries.
func (d *OpenBankingEU) check(v *validator, object string) {
	v.text(object+".statementDescriptor", d.StatementDescriptor, MaxStatementDescriptor)
	path := object + ".validityPeriod"
	if p := d.ValidityPeriod; p != nil && *p < MinValidityPeriod {
		v.Add(errs.TooLow, path, "%s is in seconds and must be at least %d.", path, MinValidityPeriod)
	} else if p != nil && *p > MaxValidityPeriod {
		v.Add(errs.TooHigh, path, "%s is in seconds and must be at most %d (30 days).", path, MaxValidityPeriod)
	}
	if d.AccountIdentifiers != nil && d.AccountIdentifiers.IBAN != "" {
		d.AccountIdentifiers.IBAN = v.iban(object+".accountIdentifiers.iban", d.AccountIdentifiers.IBAN)
	}
}

func (d *OpenBankingUK) scheme() SchemeDetails {
	return SchemeDetails{Type: d.Type, InstitutionID: d.InstitutionID}
}

func (d *OpenBankingUK) setInstitution(id string) { d.InstitutionID = id }

func (d *OpenBankingUK) payerIBAN() string { return "" }

func (d *OpenBankingUK) check(*validator, string) {}
