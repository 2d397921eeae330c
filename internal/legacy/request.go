// Package legacy serves the legacy Payments API and the embedded checkout
// on the payments core: it maps their requests onto the Global payment
// request through one table (Table), translates the Global validator's
// field errors back to their field names through the same table, renders
// the migration guide from it, and names the deprecation dates. It knows
// nothing of HTTP or SQL.
package legacy

import (
	"github.com/bankrail/bankrail/internal/errs"
	"github.com/bankrail/bankrail/internal/payment"
)

// Request is the body of POST /legacy/payments. Every field of the
// interface's mapping table is here, including those that are accepted and
// not used (payer.name, shopper.documentId, bankEditable); unknown fields are
// ignored. Table says where each one goes.
type Request struct {
	Common
	Payer             *Payer `json:"payer,omitempty"`
	Callback          string `json:"callback,omitempty"`
	PaymentSuccessURL string `json:"paymentSuccessUrl,omitempty"`
	PaymentFailureURL string `json:"paymentFailureUrl,omitempty"`
	PaymentPendingURL string `json:"paymentPendingUrl,omitempty"`
	PaymentCancelURL  string `json:"paymentCancelUrl,omitempty"`
	BankEditable      *bool  `json:"bankEditable,omitempty"`
}

// Common are the fields the legacy payment request and the embedded
// checkout's request share.
type Common struct {
	CurrencyCode              string          `json:"currencyCode,omitempty"`
	Amount                    *int64          `json:"amount,omitempty"`
	Type                      string          `json:"type,omitempty"`
	UniqueReference           string          `json:"uniqueReference,omitempty"`
	MerchantInternalReference string          `json:"merchantInternalReference,omitempty"`
	Shopper                   *Shopper        `json:"shopper,omitempty"`
	Bank                      string          `json:"bank,omitempty"`
	NotificationURL           string          `json:"notificationUrl,omitempty"`
	CheckoutCountries         []string        `json:"checkoutCountries"`
	SummaryDetails            []SummaryDetail `json:"summaryDetails"`
	Beneficiary               *Beneficiary    `json:"beneficiary,omitempty"`
}

// Payer is the legacy payer object.
type Payer struct {
	Reference string `json:"reference,omitempty"`
	Email     string `json:"email,omitempty"`
	Name      string `json:"name,omitempty"` // accepted, not used
	IP        string `json:"ip,omitempty"`
}

// Shopper is the legacy shopper object (also the embedded checkout's).
type Shopper struct {
	Reference        string `json:"reference,omitempty"`
	Email            string `json:"email,omitempty"`
	FirstName        string `json:"firstName,omitempty"`
	LastName         string `json:"lastName,omitempty"`
	OrganisationName string `json:"organisationName,omitempty"`
	IP               string `json:"ip,omitempty"`
	DocumentID       string `json:"documentId,omitempty"` // accepted, not used
}

// SummaryDetail is one line shown to the payer.
type SummaryDetail struct {
	Label string `json:"label"`
	Value string `json:"value"`
}

// Beneficiary is the legacy beneficiary: the account identifiers sit
// beside the name.
type Beneficiary struct {
	Name          string `json:"name,omitempty"`
	IBAN          string `json:"iban,omitempty"`
	SwiftBic      string `json:"swiftBic,omitempty"`
	SortCode      string `json:"sortCode,omitempty"`
	AccountNumber string `json:"accountNumber,omitempty"`
}

// Dropin is the body of POST /dropin, the embedded checkout. Its fields
// carry the legacy names and go through the same Table; return URLs are not
// part of it (an embedded checkout reports through events). Origin is the
// only field of its own.
type Dropin struct {
	Common
	// Origin is the web origin of the merchant page that embeds the
	// checkout (https://shop.example). When given, the checkout refuses to
	// be mounted in any other site; its events only ever go to the page
	// that mounted it.
	Origin string `json:"origin,omitempty"`
}

// Source is a request that Table maps: *Request or *Dropin.
type Source interface {
	// check adds the failures of the source's own fields (those that have
	// no Global counterpart).
	check(v *errs.Validation)
	// scope is what, besides the Global request, makes two requests
	// different for idempotency.
	scope() string
}

func (*Request) check(*errs.Validation) {}

func (*Request) scope() string { return "" }

// scope: the token is bound to the origin, so another origin is another
// request.
func (d *Dropin) scope() string { return " origin=" + d.Origin }

func (d *Dropin) check(v *errs.Validation) {
	if d.Origin == "" {
		return
	}
	if _, ok := payment.CanonicalOrigin(d.Origin); !ok {
		v.Add(errs.InvalidFormat, "origin", "origin must be a web origin such as https://shop.example (scheme, host and port only), got %q.", d.Origin)
	}
}
