package legacy

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/bankrail/bankrail/api"
)

// base is the smallest valid legacy request; each row's case adds its fields.
const base = `"currencyCode":"EUR","amount":1050,"beneficiary":{"name":"Test Shop GmbH","iban":"DE89370400440532013000"}`

// rowCases has one case per row of Table, keyed by the row's first legacy
// field: a legacy request in, the Global fields it must give out. Every
// other Global field must be what base alone gives.
var rowCases = map[string]struct {
	legacy string         // JSON members added to base
	global map[string]any // Global path -> value in the Global request's JSON
}{
	"currencyCode": {`"currencyCode":"GBP","beneficiary":{"name":"Shop Ltd","sortCode":"404784","accountNumber":"70872490"}`,
		map[string]any{"currency": "GBP", "paymentSystem": "OPEN_BANKING_UK", "openBankingUK": map[string]any{},
			"openBankingEU": nil, "beneficiary.accountIdentifiers.sortCode": "404784", "beneficiary.accountIdentifiers.accountNumber": "70872490",
			"beneficiary.name": "Shop Ltd"}},
	"amount":                    {`"amount":99`, map[string]any{"amount": 99.0}},
	"type":                      {`"type":"BILL"`, map[string]any{"openBankingEU.type": "BILL"}},
	"uniqueReference":           {`"uniqueReference":"Order 42"`, map[string]any{"paymentReference": "Order 42"}},
	"merchantInternalReference": {`"merchantInternalReference":"order-42"`, map[string]any{"internalReference": "order-42"}},
	"payer.reference": {`"payer":{"reference":"cust-1","email":"anna@example.com"}`,
		map[string]any{"payer": map[string]any{"reference": "cust-1", "email": "anna@example.com"}}},
	"payer.name": {`"payer":{"name":"Anna Müller"}`, map[string]any{"payer": nil}},
	"payer.ip":   {`"payer":{"ip":"203.0.113.7"}`, map[string]any{"device": map[string]any{"ip": "203.0.113.7"}}},
	"shopper.reference": {`"shopper":{"reference":"cust-1","email":"anna@example.com","firstName":"Anna","lastName":"Müller","organisationName":"Acme"}`,
		map[string]any{"payer": map[string]any{"reference": "cust-1", "email": "anna@example.com", "firstName": "Anna", "lastName": "Müller", "organisationName": "Acme"}}},
	"shopper.first_name": {`"shopper":{"reference":"cust-1","first_name":"Anna","last_name":"Müller"}`,
		map[string]any{"payer": map[string]any{"reference": "cust-1", "firstName": "Anna", "lastName": "Müller"}}},
	"shopper.ip":         {`"shopper":{"ip":"2001:db8::1"}`, map[string]any{"device": map[string]any{"ip": "2001:db8::1"}, "payer": nil}},
	"shopper.documentId": {`"shopper":{"documentId":"X1234567"}`, map[string]any{"payer": nil}},
	"bank": {`"bank":"ba4c0276-0000-4000-8000-000000000001"`,
		map[string]any{"openBankingEU": map[string]any{"institutionId": "ba4c0276-0000-4000-8000-000000000001"}}},
	"callback":        {`"callback":"order=42"`, map[string]any{"communication": map[string]any{"return": map[string]any{"queryString": "order=42"}}}},
	"notificationUrl": {`"notificationUrl":"https://shop.example/n"`, map[string]any{"communication.notifications.url": "https://shop.example/n"}},
	"paymentSuccessUrl": {`"paymentSuccessUrl":"https://s.example/ok","paymentFailureUrl":"https://s.example/ko","paymentPendingUrl":"https://s.example/wait","paymentCancelUrl":"https://s.example/back"`,
		map[string]any{"communication.return.urls": map[string]any{"success": map[string]any{"url": "https://s.example/ok"},
			"failure": map[string]any{"url": "https://s.example/ko"}, "pending": map[string]any{"url": "https://s.example/wait"},
			"cancel": map[string]any{"url": "https://s.example/back"}}}},
	"checkoutCountries": {`"checkoutCountries":["DE","AT"]`, map[string]any{"checkout.hosted.countries.available": []any{"DE", "AT"}}},
	"bankEditable":      {`"bankEditable":false`, map[string]any{}},
	"summaryDetails[].label": {`"summaryDetails":[{"label":"Order","value":"42"},{"label":"Items","value":"2 books"}]`,
		map[string]any{"displayInfo": []any{map[string]any{"key": "Order", "value": "42"}, map[string]any{"key": "Items", "value": "2 books"}}}},
	"beneficiary.name": {`"beneficiary":{"name":"Other Shop","iban":"DE89370400440532013000"}`, map[string]any{"beneficiary.name": "Other Shop"}},
	"beneficiary.iban": {`"beneficiary":{"name":"Test Shop GmbH","iban":"DE89370400440532013000","swiftBic":"RHVBDEFF","sortCode":"404784","accountNumber":"70872490"}`,
		map[string]any{"beneficiary.accountIdentifiers": map[string]any{"iban": "DE89370400440532013000", "swiftBic": "RHVBDEFF", "sortCode": "404784", "accountNumber": "70872490"}}},
	"checkoutUrl": {}, // a response field: see TestCheckoutURLRow and the HTTP tests
}

func TestEveryRowHasACase(t *testing.T) {
	t.Parallel()
	seen := map[string]bool{}
	for _, r := range Table {
		if _, ok := rowCases[r.Legacy[0]]; !ok {
			t.Errorf("row %v has no case in rowCases", r.Legacy)
		}
		seen[r.Legacy[0]] = true
	}
	for k := range rowCases {
		if !seen[k] {
			t.Errorf("rowCases[%q] is no row of Table", k)
		}
	}
}

func TestMappingRows(t *testing.T) {
	t.Parallel()
	want := globalTree(t, mapJSON(t, "{"+base+"}"))
	for _, r := range Table {
		if r.Response {
			continue
		}
		tc := rowCases[r.Legacy[0]]
		t.Run(r.Legacy[0], func(t *testing.T) {
			t.Parallel()
			got := globalTree(t, mapJSON(t, "{"+base+","+tc.legacy+"}"))
			expected := globalTree(t, mapJSON(t, "{"+base+"}"))
			for path, v := range tc.global {
				setTree(expected, path, v)
			}
			if !reflect.DeepEqual(got, expected) {
				g, _ := json.Marshal(got)
				e, _ := json.Marshal(expected)
				t.Fatalf("legacy {%s}\n got Global %s\nwant Global %s", tc.legacy, g, e)
			}
		})
	}
	if want["paymentSystem"] != "OPEN_BANKING_EU" || want["openBankingEU"] == nil {
		t.Fatalf("base maps to %v", want)
	}
}

// TestCheckoutURLRow: the response row names the Global field that holds
// the same address as checkoutUrl.
func TestCheckoutURLRow(t *testing.T) {
	t.Parallel()
	r := Table[len(Table)-1]
	if !r.Response || r.Legacy[0] != "checkoutUrl" || r.Global[0] != "paymentInitiationFlow.details.redirect.directUrl" {
		t.Fatalf("last row %+v", r)
	}
}

func mapJSON(t *testing.T, body string) api.PaymentCreateRequest {
	t.Helper()
	var r Request
	if err := json.Unmarshal([]byte(body), &r); err != nil {
		t.Fatalf("legacy body %s: %v", body, err)
	}
	g, m, err := MapWire(&r)
	if err != nil || m.Failed() {
		t.Fatalf("map %s: %v %v", body, err, m.Translate(nil))
	}
	return g
}

// globalTree is the Global request as decoded JSON.
func globalTree(t *testing.T, g api.PaymentCreateRequest) map[string]any {
	t.Helper()
	b, err := json.Marshal(g)
	if err != nil {
		t.Fatal(err)
	}
	var out map[string]any
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	return out
}

// setTree sets (or with nil, deletes) the value at a dotted path.
func setTree(tree map[string]any, path string, v any) {
	parts := strings.Split(path, ".")
	m := tree
	for _, p := range parts[:len(parts)-1] {
		m = object(m, p)
	}
	if v == nil {
		delete(m, parts[len(parts)-1])
		return
	}
	m[parts[len(parts)-1]] = v
}

// TestEmptyStringIsNotGiven: the legacy API takes an optional string sent
// empty as one left out (the generated request type gives them no pointer,
// api/openapi.yaml), so an empty payer.email neither disagrees with
// shopper.email nor makes a Global object of its own.
func TestEmptyStringIsNotGiven(t *testing.T) {
	t.Parallel()
	given := `"shopper":{"reference":"cust-1","email":"anna@example.com","ip":"203.0.113.7"}`
	empty := `"type":"","uniqueReference":"","merchantInternalReference":"","bank":"","notificationUrl":"","callback":"",
		"paymentSuccessUrl":"","paymentFailureUrl":"","paymentPendingUrl":"","paymentCancelUrl":"",
		"payer":{"reference":"","email":"","name":"","ip":""},
		"shopper":{"reference":"cust-1","email":"anna@example.com","ip":"203.0.113.7","firstName":"","lastName":"","organisationName":"","documentId":""},
		"beneficiary":{"name":"Test Shop GmbH","iban":"DE89370400440532013000","swiftBic":"","sortCode":"","accountNumber":""}`
	want := globalTree(t, mapJSON(t, "{"+base+","+given+"}"))
	got := globalTree(t, mapJSON(t, "{"+base+","+empty+"}"))
	if !reflect.DeepEqual(got, want) {
		g, _ := json.Marshal(got)
		w, _ := json.Marshal(want)
		t.Fatalf("empty strings\n got Global %s\nwant Global %s", g, w)
	}
}
