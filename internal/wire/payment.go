// Package wire converts between the public wire types generated from the
// OpenAPI document (package github.com/bankrail/bankrail/api) and the domain types, for every
// adapter that speaks the wire format: the HTTP API and the legacy API's
// mapper. Domain types carry no JSON tags; the wire is described once, by
// the document.
package wire

import (
	"github.com/bankrail/bankrail/api"
	"github.com/bankrail/bankrail/internal/bank"
	"github.com/bankrail/bankrail/internal/payment"
)

// CreateRequest converts the body of POST /payments, decoded into the
// generated wire type, to the domain request. Absent and empty stay apart
// where the domain tells them apart (amount, beneficiary and every object
// are pointers; an empty list is not a missing one); an absent string is
// the empty string.
func CreateRequest(w api.PaymentCreateRequest) payment.CreateRequest {
	r := payment.CreateRequest{
		Currency:                   w.Currency,
		Amount:                     w.Amount,
		InternalReference:          Val(w.InternalReference),
		PaymentReference:           Val(w.PaymentReference),
		PaymentSystem:              bank.PaymentSystem(w.PaymentSystem),
		TermsAndConditionsAccepted: w.TermsAndConditionsAccepted,
		MandateID:                  Val(w.MandateID),
	}
	if p := w.Payer; p != nil {
		r.Payer = &payment.Payer{Reference: Val(p.Reference), FirstName: Val(p.FirstName), LastName: Val(p.LastName),
			OrganisationName: Val(p.OrganisationName), Email: Val(p.Email), AccountIdentifiers: identifiersOf(p.AccountIdentifiers)}
	}
	if d := w.Device; d != nil {
		r.Device = &payment.Device{IP: Val(d.IP), UserAgent: Val(d.UserAgent), Fingerprint: Val(d.Fingerprint)}
	}
	if eu := w.OpenBankingEU; eu != nil {
		r.OpenBankingEU = &payment.OpenBankingEU{Type: payment.Type(Val(eu.Type)), InstitutionID: Val(eu.InstitutionID),
			StatementDescriptor: Val(eu.StatementDescriptor), ValidityPeriod: eu.ValidityPeriod,
			AccountIdentifiers: identifiersOf(eu.AccountIdentifiers)}
	}
	if uk := w.OpenBankingUK; uk != nil {
		r.OpenBankingUK = &payment.OpenBankingUK{Type: payment.Type(Val(uk.Type)), InstitutionID: Val(uk.InstitutionID)}
	}
	if b := w.Beneficiary; b != nil {
		r.Beneficiary = &payment.Beneficiary{Name: b.Name, AccountIdentifiers: identifiersOf(b.AccountIdentifiers)}
	}
	r.Communication = communicationOf(w.Communication)
	if c := w.Checkout; c != nil {
		r.Checkout = &payment.Checkout{}
		if h := c.Hosted; h != nil {
			r.Checkout.Hosted = &payment.Hosted{}
			if cs := h.Countries; cs != nil {
				r.Checkout.Hosted.Countries = &payment.Countries{}
				if cs.Available != nil {
					r.Checkout.Hosted.Countries.Available = append([]string{}, *cs.Available...)
				}
			}
		}
	}
	if w.DisplayInfo != nil {
		r.DisplayInfo = make([]payment.DisplayInfo, 0, len(*w.DisplayInfo))
		for _, d := range *w.DisplayInfo {
			r.DisplayInfo = append(r.DisplayInfo, payment.DisplayInfo{Key: d.Key, Value: d.Value})
		}
	}
	return r
}

// identifiersOf converts wire account identifiers (nil stays nil).
func identifiersOf(w *api.AccountIdentifiers) *payment.AccountIdentifiers {
	if w == nil {
		return nil
	}
	return &payment.AccountIdentifiers{IBAN: Val(w.IBAN), SwiftBic: Val(w.SwiftBIC), SortCode: Val(w.SortCode),
		AccountNumber: Val(w.AccountNumber)}
}

// communicationOf converts the communication object (nil stays nil).
func communicationOf(w *api.Communication) *payment.Communication {
	if w == nil {
		return nil
	}
	c := &payment.Communication{}
	if n := w.Notifications; n != nil {
		c.Notifications = &payment.Notifications{URL: Val(n.URL)}
	}
	if ret := w.Return; ret != nil {
		c.Return = &payment.Return{QueryString: Val(ret.QueryString)}
		if u := ret.Urls; u != nil {
			c.Return.URLs = &payment.ReturnURLs{Unified: urlOf(u.Unified), Success: urlOf(u.Success),
				Failure: urlOf(u.Failure), Pending: urlOf(u.Pending), Cancel: urlOf(u.Cancel)}
		}
	}
	return c
}

// urlOf converts one {url} object (nil stays nil).
func urlOf(w *api.URLObject) *payment.URL {
	if w == nil {
		return nil
	}
	return &payment.URL{URL: w.URL}
}
