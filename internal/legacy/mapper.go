package legacy

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"

	"github.com/bankrail/bankrail/api"
	"github.com/bankrail/bankrail/internal/bank"
	"github.com/bankrail/bankrail/internal/errs"
	"github.com/bankrail/bankrail/internal/payment"
	"github.com/bankrail/bankrail/internal/wire"
)

// Mapping is what mapping one request found out: its payment system, where
// each Global value came from, and the failures of the mapping itself.
type Mapping struct {
	system bank.PaymentSystem
	from   map[string]string // concrete Global path -> concrete legacy path
	fails  errs.Validation
}

// SystemOf is the payment system a legacy currency code chooses: the
// system whose payments are made in it (GBP is OPEN_BANKING_UK), anything
// else OPEN_BANKING_EU (whose validation then names the currency it takes).
func SystemOf(currencyCode string) bank.PaymentSystem {
	return payment.SystemForCurrency(currencyCode).ID
}

// schemeObject is the Global object of a payment system's details.
func schemeObject(sys bank.PaymentSystem) string {
	s, ok := payment.SystemOf(sys)
	if !ok {
		return payment.SystemForCurrency("").Object
	}
	return s.Object
}

// resolve replaces SchemeObject in a Global path.
func (m *Mapping) resolve(global string) string {
	if rest, ok := strings.CutPrefix(global, SchemeObject); ok {
		return schemeObject(m.system) + rest
	}
	return global
}

// Map turns a legacy or embedded checkout request into the Global request,
// row by row of Table, plus what follows from the table (derived):
//   - paymentSystem is chosen by currencyCode (SystemOf), and its details
//     object is always present, so type and bank have a place;
//   - a beneficiary always has accountIdentifiers, which the legacy API
//     writes beside the name.
//
// A Global field given by two legacy fields (payer.email and
// shopper.email) takes their value when they agree; when they differ the
// mapping fails (NOT_EQUAL). The returned Mapping translates the Global
// validator's errors back to the request's names.
func Map(src Source) (payment.CreateRequest, *Mapping, error) {
	w, m, err := MapWire(src)
	if err != nil {
		return payment.CreateRequest{}, nil, err
	}
	return wire.CreateRequest(w), m, nil
}

// MapWire is Map's Global request as it would be sent on the wire.
func MapWire(src Source) (api.PaymentCreateRequest, *Mapping, error) {
	tree, err := toTree(src)
	if err != nil {
		return api.PaymentCreateRequest{}, nil, err
	}
	code, _ := tree["currencyCode"].(string)
	m := &Mapping{system: SystemOf(code), from: map[string]string{}}
	dst := map[string]any{"paymentSystem": string(m.system), schemeObject(m.system): map[string]any{}}
	for _, row := range Table {
		if row.Response {
			continue
		}
		for i, g := range row.Global {
			m.copy(tree, row.Legacy[i], m.resolve(g), dst)
		}
	}
	if _, ok := tree["beneficiary"]; ok {
		object(object(dst, "beneficiary"), "accountIdentifiers")
	}
	src.check(&m.fails)
	var out api.PaymentCreateRequest
	body, err := json.Marshal(dst)
	if err == nil {
		err = json.Unmarshal(body, &out)
	}
	if err != nil {
		return api.PaymentCreateRequest{}, nil, fmt.Errorf("map legacy request: %w", err)
	}
	return out, m, nil
}

// copy moves every value at the legacy path to the Global path.
func (m *Mapping) copy(tree map[string]any, legacyPath, globalPath string, dst map[string]any) {
	l, g := parsePath(legacyPath), parsePath(globalPath)
	var hits []hit
	collect(tree, l, nil, &hits)
	for _, h := range hits {
		lp, gp := concrete(l, h.idx), concrete(g, h.idx)
		prev := set(dst, g, h.idx, h.value)
		switch {
		case prev == nil:
			m.from[gp] = lp
		case !reflect.DeepEqual(prev, h.value):
			m.fails.Add(errs.NotEqual, lp, "%s differs from %s, and both give %s: send one of them, or the same value in both.", lp, m.from[gp], gp)
		}
	}
}

// toTree is src as decoded JSON (numbers kept exact).
func toTree(src Source) (map[string]any, error) {
	body, err := json.Marshal(src)
	if err != nil {
		return nil, fmt.Errorf("encode legacy request: %w", err)
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	var tree map[string]any
	if err := dec.Decode(&tree); err != nil {
		return nil, fmt.Errorf("decode legacy request: %w", err)
	}
	return tree, nil
}
