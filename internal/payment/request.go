package payment

import (
	"slices"

	"github.com/bankrail/bankrail/internal/bank"
)

// CreateRequest is the body of POST /payments. Optional parts are pointers
// so that "absent" and "empty" can be told apart; unknown fields are ignored.
type CreateRequest struct {
	Currency                   string
	Amount                     *int64
	InternalReference          string
	PaymentReference           string
	Payer                      *Payer
	Device                     *Device
	PaymentSystem              bank.PaymentSystem
	OpenBankingEU              *OpenBankingEU
	OpenBankingUK              *OpenBankingUK
	Beneficiary                *Beneficiary
	Communication              *Communication
	Checkout                   *Checkout
	DisplayInfo                []DisplayInfo
	TermsAndConditionsAccepted *bool
	MandateID                  string // a payment against a mandate (mandate.go); "" for none
}

// Payer is who pays, as the merchant knows them.
type Payer struct {
	Reference          string
	FirstName          string
	LastName           string
	OrganisationName   string
	Email              string
	AccountIdentifiers *AccountIdentifiers
}

// Name is the payer's full name: the organisation's, or first and last.
func (p *Payer) Name() string {
	if p == nil {
		return ""
	}
	if p.OrganisationName != "" {
		return p.OrganisationName
	}
	switch {
	case p.FirstName == "":
		return p.LastName
	case p.LastName == "":
		return p.FirstName
	}
	return p.FirstName + " " + p.LastName
}

// Device is the payer's device.
type Device struct {
	IP          string
	UserAgent   string
	Fingerprint string
}

// AccountIdentifiers identify a bank account.
type AccountIdentifiers struct {
	IBAN          string
	SwiftBic      string
	SortCode      string
	AccountNumber string
}

// OpenBankingEU are the details of an OPEN_BANKING_EU payment.
type OpenBankingEU struct {
	Type                Type
	InstitutionID       string
	StatementDescriptor string
	ValidityPeriod      *int64
	AccountIdentifiers  *AccountIdentifiers
}

// OpenBankingUK are the details of an OPEN_BANKING_UK payment.
type OpenBankingUK struct {
	Type          Type
	InstitutionID string
}

// Beneficiary is the account that receives the money.
type Beneficiary struct {
	Name               string
	AccountIdentifiers *AccountIdentifiers
}

// Communication is where the merchant is told and where the payer returns.
type Communication struct {
	Notifications *Notifications
	Return        *Return
}

// Notifications names the URL that receives this payment's notifications.
type Notifications struct {
	URL string
}

// Return says where the payer goes back to after the checkout.
type Return struct {
	URLs        *ReturnURLs
	QueryString string
}

// ReturnURLs are the return addresses per outcome; unified serves them all.
type ReturnURLs struct {
	Unified *URL
	Success *URL
	Failure *URL
	Pending *URL
	Cancel  *URL
}

// URL wraps one address.
type URL struct {
	URL string
}

// Checkout configures the hosted checkout.
type Checkout struct {
	Hosted *Hosted
}

// Hosted configures the hosted checkout's pages.
type Hosted struct {
	Countries *Countries
}

// Countries limits the countries offered in the bank picker.
type Countries struct {
	Available []string
}

// DisplayInfo is one line shown to the payer on the checkout.
type DisplayInfo struct {
	Key   string
	Value string
}

// SchemeDetails are the fields shared by the openBankingEU and openBankingUK
// objects.
type SchemeDetails struct {
	Type          Type
	InstitutionID string
}

// Scheme returns the type and institution of the request's details object
// (of its payment system); empty when it has none.
func (r *CreateRequest) Scheme() SchemeDetails {
	if d := r.details(); d != nil {
		return d.scheme()
	}
	return SchemeDetails{}
}

// details is the details object of the request's payment system, nil when
// the system is unknown or the object absent.
func (r *CreateRequest) details() Details {
	if s, ok := SystemOf(r.PaymentSystem); ok {
		return s.Field.get(r)
	}
	return nil
}

// Identifiers returns the beneficiary's account identifiers (never nil).
func (r *CreateRequest) Identifiers() AccountIdentifiers {
	if r.Beneficiary == nil || r.Beneficiary.AccountIdentifiers == nil {
		return AccountIdentifiers{}
	}
	return *r.Beneficiary.AccountIdentifiers
}

// withInstitution returns a copy of r whose scheme object names the
// institution id (the bank the payer picked). The original is not changed.
func (r CreateRequest) withInstitution(id string) CreateRequest {
	if s, ok := SystemOf(r.PaymentSystem); ok {
		s.Field.own(&r).setInstitution(id)
	}
	return r
}

// AvailableCountries are the countries the hosted checkout offers
// (checkout.hosted.countries.available); nil means every country.
func (r *CreateRequest) AvailableCountries() []string {
	if r.Checkout == nil || r.Checkout.Hosted == nil || r.Checkout.Hosted.Countries == nil {
		return nil
	}
	return r.Checkout.Hosted.Countries.Available
}

// CountryAvailable reports whether the checkout may offer banks of country.
func (r *CreateRequest) CountryAvailable(country string) bool {
	list := r.AvailableCountries()
	return len(list) == 0 || slices.Contains(list, country)
}

// NotificationURL is the payment's own notification URL, if any.
func (r *CreateRequest) NotificationURL() string {
	if r.Communication == nil || r.Communication.Notifications == nil {
		return ""
	}
	return r.Communication.Notifications.URL
}

// PayerIBAN is the payer's IBAN when the merchant gave it: in a details
// object (openBankingEU.accountIdentifiers), else in payer.
func (r *CreateRequest) PayerIBAN() string {
	for _, s := range registered() {
		if d := s.Field.get(r); d != nil && d.payerIBAN() != "" {
			return d.payerIBAN()
		}
	}
	if r.Payer != nil && r.Payer.AccountIdentifiers != nil {
		return r.Payer.AccountIdentifiers.IBAN
	}
	return ""
}
