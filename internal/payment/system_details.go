package payment

import "bankrail/internal/errs"

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

// OpenBankingEURecord is the openBankingEU object of the payment record.
type OpenBankingEURecord struct {
	Type                Type                `json:"type"`
	InstitutionID       string              `json:"institutionId,omitempty"`
	Provider            string              `json:"provider,omitempty"`
	StatementDescriptor string              `json:"statementDescriptor,omitempty"`
	ValidityPeriod      *int64              `json:"validityPeriod,omitempty"`
	AccountIdentifiers  *AccountIdentifiers `json:"accountIdentifiers,omitempty"`
}

func (d *OpenBankingEU) record(t Type, provider string) any {
	return &OpenBankingEURecord{Type: t, InstitutionID: d.InstitutionID, Provider: provider,
		StatementDescriptor: d.StatementDescriptor, ValidityPeriod: d.ValidityPeriod, AccountIdentifiers: d.AccountIdentifiers}
}

func (d *OpenBankingUK) scheme() SchemeDetails {
	return SchemeDetails{Type: d.Type, InstitutionID: d.InstitutionID}
}

func (d *OpenBankingUK) setInstitution(id string) { d.InstitutionID = id }

func (d *OpenBankingUK) payerIBAN() string { return "" }

func (d *OpenBankingUK) check(*validator, string) {}

// OpenBankingUKRecord is the openBankingUK object of the payment record.
type OpenBankingUKRecord struct {
	Type          Type   `json:"type"`
	InstitutionID string `json:"institutionId,omitempty"`
	Provider      string `json:"provider,omitempty"`
}

func (d *OpenBankingUK) record(t Type, provider string) any {
	return &OpenBankingUKRecord{Type: t, InstitutionID: d.InstitutionID, Provider: provider}
}
