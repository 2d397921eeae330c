package httpapi

import (
	"github.com/bankrail/bankrail/api"
	"github.com/bankrail/bankrail/internal/payment"
)

// payerWire renders the payer as the merchant gave it (nil stays nil); its
// account by IBAN only, as the contract's record shows it.
func payerWire(p *payment.Payer) *api.PaymentPayer {
	if p == nil {
		return nil
	}
	return &api.PaymentPayer{Reference: opt(p.Reference), FirstName: opt(p.FirstName), LastName: opt(p.LastName),
		OrganisationName: opt(p.OrganisationName), Email: opt(p.Email), AccountIdentifiers: ibanWire(p.AccountIdentifiers)}
}

// ibanWire renders an account by its IBAN (nil stays nil).
func ibanWire(a *payment.AccountIdentifiers) *api.IBANIdentifier {
	if a == nil {
		return nil
	}
	return &api.IBANIdentifier{IBAN: opt(a.IBAN)}
}

// deviceWire renders the payer's device (nil stays nil).
func deviceWire(d *payment.Device) *api.Device {
	if d == nil {
		return nil
	}
	return &api.Device{IP: opt(d.IP), UserAgent: opt(d.UserAgent), Fingerprint: opt(d.Fingerprint)}
}

// beneficiaryWire renders the beneficiary as the merchant gave it.
func beneficiaryWire(b *payment.Beneficiary) api.Beneficiary {
	if b == nil {
		return api.Beneficiary{}
	}
	return api.Beneficiary{Name: b.Name, AccountIdentifiers: identifiersWire(b.AccountIdentifiers)}
}

// identifiersWire renders account identifiers; empty ones are left out.
func identifiersWire(a *payment.AccountIdentifiers) *api.AccountIdentifiers {
	if a == nil {
		return nil
	}
	return &api.AccountIdentifiers{IBAN: opt(a.IBAN), SwiftBIC: opt(a.SwiftBic), SortCode: opt(a.SortCode),
		AccountNumber: opt(a.AccountNumber)}
}

// displayInfoWire renders the lines shown to the payer (never null).
func displayInfoWire(items []payment.DisplayInfo) []api.DisplayInfo {
	out := make([]api.DisplayInfo, 0, len(items))
	for _, d := range items {
		out = append(out, api.DisplayInfo{Key: d.Key, Value: d.Value})
	}
	return out
}
