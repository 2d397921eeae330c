// Package bank is the registry of the mock institutions a payer can pay
// from: several banks per country for the United Kingdom and the main SEPA
// countries, each with a stable id, its BIC, its logo and the payment
// systems it supports. The data is compiled in; it never changes at run time.
// Banks are reached through connectors (connector.go): a Connector starts
// the payer's authorisation and reads the bank's answer; Connectors maps
// banks to them, wired by internal/app.
package bank

import (
	"slices"
	"sort"
)

// PaymentSystem is a scheme family a payment is made through.
type PaymentSystem string

// Payment systems of the Global API.
const (
	OpenBankingEU PaymentSystem = "OPEN_BANKING_EU"
	OpenBankingUK PaymentSystem = "OPEN_BANKING_UK"
)

// PaymentSystems lists every payment system, in the order they are
// offered. Each has a registration in internal/payment (its rules).
var PaymentSystems = []PaymentSystem{OpenBankingEU, OpenBankingUK}

// Valid reports whether s is a known payment system.
func (s PaymentSystem) Valid() bool { return slices.Contains(PaymentSystems, s) }

// Bank is one institution.
type Bank struct {
	ID              string // stable uuid
	Name            string
	OfficialName    string
	BranchName      string
	ShortBranchName string
	Country         string // ISO 3166-1 alpha-2
	BIC             string
	Systems         []PaymentSystem
	SEPAInstant     bool   // takes SEPA Instant Credit Transfers
	Logo            []byte // SVG, 160x48, drawn here: no external host
	Icon            []byte // SVG, 48x48
}

// Supports reports whether the bank takes payments of system s.
func (b Bank) Supports(s PaymentSystem) bool { return slices.Contains(b.Systems, s) }

// Filter narrows a listing; empty fields match everything.
type Filter struct {
	Country string
	System  PaymentSystem
}

// Registry is an immutable set of banks.
type Registry struct {
	banks []Bank
	byID  map[string]int
	byBIC map[string]int
}

// NewRegistry builds a registry from banks, sorted by country then name.
func NewRegistry(banks []Bank) *Registry {
	r := &Registry{banks: slices.Clone(banks), byID: map[string]int{}, byBIC: map[string]int{}}
	sort.SliceStable(r.banks, func(i, j int) bool {
		if r.banks[i].Country != r.banks[j].Country {
			return r.banks[i].Country < r.banks[j].Country
		}
		return r.banks[i].Name < r.banks[j].Name
	})
	for i, b := range r.banks {
		r.byID[b.ID] = i
		r.byBIC[b.BIC] = i
	}
	return r
}

// Default is the registry of bankrail's mock banks.
func Default() *Registry { return defaultRegistry }

var defaultRegistry = NewRegistry(mockBanks())

// Get returns the bank with id.
func (r *Registry) Get(id string) (Bank, bool) {
	i, ok := r.byID[id]
	if !ok {
		return Bank{}, false
	}
	return r.banks[i], true
}

// ByBIC returns the bank whose BIC is bic (8 characters) or its branch
// (11 characters).
func (r *Registry) ByBIC(bic string) (Bank, bool) {
	if len(bic) == 11 {
		bic = bic[:8]
	}
	i, ok := r.byBIC[bic]
	if !ok {
		return Bank{}, false
	}
	return r.banks[i], true
}

// List returns the banks that match f, by country then name.
func (r *Registry) List(f Filter) []Bank {
	out := []Bank{}
	for _, b := range r.banks {
		if (f.Country == "" || b.Country == f.Country) && (f.System == "" || b.Supports(f.System)) {
			out = append(out, b)
		}
	}
	return out
}
