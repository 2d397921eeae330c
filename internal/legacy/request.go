// Package legacy serves the legacy Payments API and the embedded checkout
// on the payments core: it maps their requests onto the Global payment
// request through one table (Table), translates the Global validator's
// field errors back to their field names through the same table, renders
// the migration guide from it, and names the deprecation dates. It knows
// nothing of HTTP or SQL.
package legacy

import (
	"github.com/bankrail/bankrail/api"
	"github.com/bankrail/bankrail/internal/errs"
	"github.com/bankrail/bankrail/internal/payment"
)

// Request is the body of POST /legacy/payments: the generated
// api.LegacyPaymentRequest (api/openapi.yaml), with the methods of Source.
// Every field of the interface's mapping table is in it, including those
// that are accepted and not used (payer.name, shopper.documentId,
// bankEditable); unknown fields are ignored. Table says where each one goes.
// The document gives its optional strings no pointer (an empty string is
// one not given, as the legacy API always took it) and amount a pointer (a
// missing amount is VALUE_REQUIRED, 0 is TOO_LOW).
type Request api.LegacyPaymentRequest

// Dropin is the body of POST /dropin, the embedded checkout: the generated
// api.DropinRequest. Its fields carry the legacy names and go through the
// same Table; return URLs are not part of it (an embedded checkout reports
// through events). Origin is the only field of its own: the web origin of
// the merchant page that embeds the checkout (https://shop.example). When
// given, the checkout refuses to be mounted in any other site; its events
// only ever go to the page that mounted it.
type Dropin api.DropinRequest

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
