// Payment systems: every rule that differs between OPEN_BANKING_EU,
// OPEN_BANKING_UK and any later system lives in one System registration
// (systems.go). Validation, the request's scheme details, transfer types,
// receiving accounts and the legacy mapping ask SystemOf instead of
// switching on the system. The wire shapes (the request's and the record's
// details objects) are the document's and internal/wire's.
//
// To add a payment system:
//  1. name it in internal/bank (a PaymentSystem constant, listed in
//     bank.PaymentSystems) and give mock banks that support it;
//  2. define its details object (a struct with Type, InstitutionID and its
//     own fields) and add it to CreateRequest (request.go);
//  3. give the struct the Details methods (scheme, setInstitution,
//     payerIBAN, check: see system_details.go);
//  4. add one System to registrations in systems.go: ID, Object (the JSON
//     name), Currency, MaxPaymentReference, Account, Country, Field
//     (FieldOf with the field's accessor), TransferType;
//  5. give a new transfer type its NOT_RECEIVED timeframe in transfer.go;
//  6. on the wire: its object in api/openapi.yaml (then go generate ./api),
//     internal/wire's request conversion, and its entry in the HTTP
//     adapter's schemeRecords.
//
// TestEveryBankSystemIsRegistered fails until step 4 is done.
package payment

import (
	"fmt"
	"slices"
	"strings"
	"sync/atomic"

	"github.com/bankrail/bankrail/internal/bank"
)

// AccountKind is how a payment system identifies the beneficiary's account.
type AccountKind int

// Account kinds.
const (
	AccountIBAN     AccountKind = iota + 1 // beneficiary.accountIdentifiers.iban
	AccountSortCode                        // sortCode and accountNumber (United Kingdom)
)

// String names the identifiers the kind requires, as validation messages
// say it.
func (k AccountKind) String() string {
	if k == AccountSortCode {
		return "sortCode and accountNumber"
	}
	return "iban"
}

// Details is a payment system's details object in a request
// (openBankingEU, openBankingUK). Its methods are unexported: the systems
// are registered in this package.
type Details interface {
	// scheme returns the fields every details object has.
	scheme() SchemeDetails
	// setInstitution names the payer's bank.
	setInstitution(id string)
	// payerIBAN is the payer's IBAN the object carries, or "".
	payerIBAN() string
	// check validates the fields only this system has; object is its JSON name.
	check(v *validator, object string)
}

// DetailsField is where a CreateRequest holds a system's details object.
type DetailsField struct {
	// get returns the object, nil when the request has none.
	get func(r *CreateRequest) Details
	// own replaces the object by a copy of it (a new one when absent) and
	// returns the copy, so that a changed request shares nothing with the
	// original.
	own func(r *CreateRequest) Details
}

// FieldOf adapts a pointer field of CreateRequest, given by its accessor
// (func(r *CreateRequest) **OpenBankingEU { return &r.OpenBankingEU }).
func FieldOf[T any, P interface {
	*T
	Details
}](field func(r *CreateRequest) *P) DetailsField {
	return DetailsField{
		get: func(r *CreateRequest) Details {
			if p := *field(r); p != nil {
				return p
			}
			return nil
		},
		own: func(r *CreateRequest) Details {
			var c T
			if p := *field(r); p != nil {
				c = *p
			}
			p := P(&c)
			*field(r) = p
			return p
		},
	}
}

// System is the registration of one payment system: everything that
// differs between payment systems.
type System struct {
	ID                  bank.PaymentSystem
	Object              string      // JSON name of its details object in the request, e.g. openBankingEU
	Currency            string      // the one currency its payments are made in (ISO 4217)
	MaxPaymentReference int         // characters of paymentReference the scheme carries
	Account             AccountKind // the beneficiary identifiers it requires
	Country             string      // country of a receiving account without an IBAN; "" when unknown
	Field               DetailsField
	// TransferType names the scheme of a payment from bank b (nil while
	// the payer has not picked a bank).
	TransferType func(b *bank.Bank) string
}

// Details returns r's details object of this system, nil when absent.
func (s System) Details(r *CreateRequest) Details { return s.Field.get(r) }

// registry is an immutable set of registrations, in registration order.
type registry struct {
	list []System
	byID map[bank.PaymentSystem]int
}

// current is the registry every lookup reads (swapped only by tests).
var current atomic.Pointer[registry]

func init() { current.Store(newRegistry(registrations...)) }

// newRegistry checks and indexes registrations; a broken registration is a
// programming error and panics at start.
func newRegistry(systems ...System) *registry {
	r := &registry{byID: map[bank.PaymentSystem]int{}}
	objects := map[string]bool{}
	for i, s := range systems {
		switch {
		case s.ID == "" || s.Object == "" || s.Currency == "" || s.MaxPaymentReference <= 0 ||
			s.Account == 0 || s.Field.get == nil || s.TransferType == nil:
			panic(fmt.Sprintf("payment: incomplete registration of payment system %q", s.ID))
		case objects[s.Object]:
			panic(fmt.Sprintf("payment: details object %q registered twice", s.Object))
		}
		if _, dup := r.byID[s.ID]; dup {
			panic(fmt.Sprintf("payment: payment system %q registered twice", s.ID))
		}
		objects[s.Object] = true
		r.byID[s.ID] = i
		r.list = append(r.list, s)
	}
	return r
}

// SystemOf returns the registration of payment system id.
func SystemOf(id bank.PaymentSystem) (System, bool) {
	r := current.Load()
	i, ok := r.byID[id]
	if !ok {
		return System{}, false
	}
	return r.list[i], true
}

// Systems lists every registration, in registration order.
func Systems() []System { return slices.Clone(registered()) }

// registered is the current registrations, not to be changed (no copy).
func registered() []System { return current.Load().list }

// SystemForCurrency is the first system whose payments are made in
// currency, else the fallback system (whose validation then names the
// currency it takes). The legacy API chooses the system this way.
func SystemForCurrency(currency string) System {
	for _, s := range registered() {
		if s.Currency == currency {
			return s
		}
	}
	return rulesOf(fallbackSystem)
}

// rulesOf is the registration of id, or the fallback system's when id is
// missing or unknown (validation reports that; the other checks go on with
// the fallback's rules).
func rulesOf(id bank.PaymentSystem) System {
	if s, ok := SystemOf(id); ok {
		return s
	}
	if s, ok := SystemOf(fallbackSystem); ok {
		return s
	}
	return registered()[0]
}

// systemNames lists the registered systems for messages: "A or B", "A, B or C".
func systemNames() string {
	var names []string
	for _, s := range registered() {
		names = append(names, string(s.ID))
	}
	if len(names) < 2 {
		return strings.Join(names, "")
	}
	return strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1]
}

// accountNames says which beneficiary identifiers each system requires:
// "iban for A, sortCode and accountNumber for B".
func accountNames() string {
	var parts []string
	for _, s := range registered() {
		parts = append(parts, s.Account.String()+" for "+string(s.ID))
	}
	return strings.Join(parts, ", ")
}
