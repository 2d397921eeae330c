package legacy

import (
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/bankrail/bankrail/internal/bank"
	"github.com/bankrail/bankrail/internal/errs"
	"github.com/bankrail/bankrail/internal/payment"
)

// validate maps a legacy body and runs the Global validator, as
// Service.Create does, returning the failures in legacy names.
func validate(t *testing.T, body string, src Source) []errs.FieldError {
	t.Helper()
	if err := json.Unmarshal([]byte(body), src); err != nil {
		t.Fatalf("body %s: %v", body, err)
	}
	g, m, err := Map(src)
	if err != nil {
		t.Fatal(err)
	}
	err = m.Translate(payment.Validate(&g, payment.ChannelHosted, payment.Limits{MaxMajor: 10_000}, bank.Default()))
	var e *errs.Error
	if err == nil {
		return nil
	}
	if !errors.As(err, &e) || e.Code != errs.ValidationFailure {
		t.Fatalf("got %v, want a VALIDATION_FAILURE", err)
	}
	return e.Fields
}

func TestValidationErrorsInLegacyNames(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("x", 1025)
	for _, tc := range []struct {
		name string
		body string
		want []string // "TYPE property"
	}{
		{"every field wrong", `{"currencyCode":"EURO","amount":0,"type":"FOOD","uniqueReference":"Order #42",
			"merchantInternalReference":"a\u0007b","payer":{"email":"nope"},"shopper":{"firstName":"` + strings.Repeat("A", 141) + `","ip":"1.2.3"},
			"bank":"not-a-uuid","callback":"` + long + `","notificationUrl":"ftp://shop.example","paymentCancelUrl":"nope",
			"checkoutCountries":["DE","XX","DE"],"summaryDetails":[{"label":"","value":"x"}],"beneficiary":{"name":""}}`,
			[]string{"INVALID_VALUE currencyCode", "TOO_LOW amount", "INVALID_FORMAT merchantInternalReference", "INVALID_FORMAT uniqueReference",
				"TOO_LONG shopper.firstName", "INVALID_FORMAT payer.email", "INVALID_FORMAT shopper.ip", "INVALID_VALUE type",
				"INVALID_FORMAT bank", "VALUE_REQUIRED beneficiary.name", "VALUE_REQUIRED beneficiary.iban",
				"INVALID_FORMAT notificationUrl", "TOO_LONG callback", "INVALID_FORMAT paymentCancelUrl",
				"INVALID_VALUE checkoutCountries[1]", "NOT_UNIQUE checkoutCountries[2]", "VALUE_REQUIRED summaryDetails[0].label"}},
		{"nothing", `{}`, []string{"VALUE_REQUIRED currencyCode", "VALUE_REQUIRED amount", "VALUE_REQUIRED beneficiary"}},
		{"currency of another payment system", `{"currencyCode":"USD","amount":1,"beneficiary":{"name":"S","iban":"DE89370400440532013000"}}`,
			[]string{"INVALID_VALUE currencyCode"}},
		{"UK account missing", `{"currencyCode":"GBP","amount":1,"uniqueReference":"A reference too long for FPS","beneficiary":{"name":"S"}}`,
			[]string{"TOO_LONG uniqueReference", "VALUE_REQUIRED beneficiary.sortCode", "VALUE_REQUIRED beneficiary.accountNumber"}},
		{"IBAN checksum and BIC", `{"currencyCode":"EUR","amount":1,"beneficiary":{"name":"S","iban":"DE89370400440532013001","swiftBic":"XX"}}`,
			[]string{"CHECKSUM_FAILED beneficiary.iban", "INVALID_FORMAT beneficiary.swiftBic"}},
		{"bank of another country's scheme", `{"currencyCode":"GBP","amount":1,"bank":"ba4c0276-0000-4000-8000-000000000001","beneficiary":{"name":"S","sortCode":"404784","accountNumber":"70872490"}}`,
			[]string{"INVALID_VALUE bank"}},
		{"too many summary lines", `{"currencyCode":"EUR","amount":1,"beneficiary":{"name":"S","iban":"DE89370400440532013000"},"summaryDetails":[` +
			strings.TrimSuffix(strings.Repeat(`{"label":"a","value":"b"},`, 11), ",") + `]}`, []string{"TOO_MANY summaryDetails"}},
		{"no countries", `{"currencyCode":"EUR","amount":1,"beneficiary":{"name":"S","iban":"DE89370400440532013000"},"checkoutCountries":[]}`,
			[]string{"TOO_FEW checkoutCountries"}},
		{"payer and shopper disagree", `{"currencyCode":"EUR","amount":1,"beneficiary":{"name":"S","iban":"DE89370400440532013000"},
			"payer":{"email":"a@example.com","ip":"203.0.113.7"},"shopper":{"email":"b@example.com","ip":"203.0.113.7"}}`,
			[]string{"NOT_EQUAL shopper.email"}},
		{"payer and shopper agree", `{"currencyCode":"EUR","amount":1,"beneficiary":{"name":"S","iban":"DE89370400440532013000"},
			"payer":{"email":"a@example.com","ip":"203.0.113.7"},"shopper":{"email":"a@example.com","ip":"203.0.113.7"}}`, nil},
		{"both spellings of the names, equal", `{"currencyCode":"EUR","amount":1,"beneficiary":{"name":"S","iban":"DE89370400440532013000"},
			"shopper":{"firstName":"Anna","first_name":"Anna","lastName":"Müller","last_name":"Müller"}}`, nil},
		{"both spellings of the names, different", `{"currencyCode":"EUR","amount":1,"beneficiary":{"name":"S","iban":"DE89370400440532013000"},
			"shopper":{"firstName":"Anna","first_name":"Anne","last_name":"Müller"}}`, []string{"NOT_EQUAL shopper.first_name"}},
		{"a snake_case name too long", `{"currencyCode":"EUR","amount":1,"beneficiary":{"name":"S","iban":"DE89370400440532013000"},
			"shopper":{"first_name":"` + strings.Repeat("A", 141) + `"}}`, []string{"TOO_LONG shopper.first_name"}},
		{"disagreement and validation together", `{"currencyCode":"EUR","amount":-1,"beneficiary":{"name":"S","iban":"DE89370400440532013000"},
			"payer":{"ip":"203.0.113.7"},"shopper":{"ip":"203.0.113.8"}}`, []string{"NOT_EQUAL shopper.ip", "TOO_LOW amount"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var got []string
			for _, f := range validate(t, tc.body, &Request{}) {
				got = append(got, f.Type+" "+f.PropertyPath)
				if !strings.HasPrefix(f.Message, f.PropertyPath) && f.Type != errs.InvalidValue {
					t.Errorf("message %q does not name %s", f.Message, f.PropertyPath)
				}
				if strings.Contains(f.Message, "accountIdentifiers") || strings.Contains(f.Message, "displayInfo") {
					t.Errorf("message %q uses a Global name", f.Message)
				}
			}
			if !slices.Equal(got, tc.want) {
				t.Fatalf("failures\n got %q\nwant %q", got, tc.want)
			}
		})
	}
}

func TestDropinOrigin(t *testing.T) {
	t.Parallel()
	ok := `{"currencyCode":"EUR","amount":1,"shopper":{"reference":"c1"},"beneficiary":{"name":"S","iban":"DE89370400440532013000"}`
	for origin, want := range map[string][]string{
		"":                          nil,
		"https://shop.example":      nil,
		"https://shop.example/pay":  {"INVALID_FORMAT origin"},
		"javascript:alert(1)":       {"INVALID_FORMAT origin"},
		"http://127.0.0.1:9000":     nil,
		"https://shop.example:8443": nil,
	} {
		var got []string
		for _, f := range validate(t, ok+`,"origin":"`+origin+`"}`, &Dropin{}) {
			got = append(got, f.Type+" "+f.PropertyPath)
		}
		if !slices.Equal(got, want) {
			t.Errorf("origin %q: %q, want %q", origin, got, want)
		}
	}
}

func TestPathOfEveryGlobalField(t *testing.T) {
	t.Parallel()
	m := &Mapping{system: bank.OpenBankingUK, from: map[string]string{}}
	for g, want := range map[string]string{
		"currency":                                "currencyCode",
		"openBankingUK.type":                      "type",
		"openBankingUK.institutionId":             "bank",
		"payer.firstName":                         "shopper.firstName",
		"payer.reference":                         "payer.reference", // the first row that gives it
		"device.ip":                               "payer.ip",
		"communication.return.urls.pending.url":   "paymentPendingUrl",
		"checkout.hosted.countries.available[3]":  "checkoutCountries[3]",
		"displayInfo[2].value":                    "summaryDetails[2].value",
		"displayInfo":                             "summaryDetails",
		"beneficiary":                             "beneficiary",
		"beneficiary.accountIdentifiers":          "beneficiary",
		"beneficiary.accountIdentifiers.sortCode": "beneficiary.sortCode",
		"openBankingUK":                           "openBankingUK", // always sent: no legacy counterpart
		"payer.accountIdentifiers.iban":           "payer.accountIdentifiers.iban",
		"communication.return.urls.unified.url":   "communication.return.urls.unified.url",
	} {
		if got := m.Path(g); got != want {
			t.Errorf("Path(%q) = %q, want %q", g, got, want)
		}
	}
}
