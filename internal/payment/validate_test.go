package payment

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/bankrail/bankrail/internal/bank"
	"github.com/bankrail/bankrail/internal/errs"
)

// Test fixtures: banks of the default registry and valid account data.
const (
	testBankDE = "ba4c0276-0000-4000-8000-000000000001"
	testBankGB = "ba4c0826-0000-4000-8000-000000000001"
	testIBANDE = "DE89370400440532013000"
	testIBANGB = "GB82WEST12345698765432"
)

var testLimits = Limits{MaxMajor: 10_000} // 1,000,000 minor units of EUR

// validEU is a complete, valid OPEN_BANKING_EU request.
func validEU() CreateRequest {
	amount, validity := int64(1050), int64(3600)
	accepted := true
	return CreateRequest{
		Currency: "EUR", Amount: &amount, InternalReference: "order-42", PaymentReference: "Order 42",
		Payer:         &Payer{Reference: "cust-1", FirstName: "Anna", LastName: "Müller", Email: "anna@example.com"},
		Device:        &Device{IP: "203.0.113.7", UserAgent: "Mozilla/5.0", Fingerprint: "fp-1"},
		PaymentSystem: bank.OpenBankingEU,
		OpenBankingEU: &OpenBankingEU{Type: TypeGoods, InstitutionID: testBankDE, StatementDescriptor: "SHOP",
			ValidityPeriod: &validity, AccountIdentifiers: &AccountIdentifiers{IBAN: testIBANDE}},
		Beneficiary: &Beneficiary{Name: "Test Shop GmbH", AccountIdentifiers: &AccountIdentifiers{IBAN: testIBANDE, SwiftBic: "RHVBDEFF"}},
		Communication: &Communication{
			Notifications: &Notifications{URL: "https://shop.example/notify"},
			Return: &Return{QueryString: "order=42", URLs: &ReturnURLs{Unified: &URL{"https://shop.example/return"},
				Success: &URL{"https://shop.example/ok"}, Failure: &URL{"https://shop.example/ko"},
				Pending: &URL{"https://shop.example/wait"}, Cancel: &URL{"https://shop.example/cancel"}}},
		},
		Checkout:                   &Checkout{Hosted: &Hosted{Countries: &Countries{Available: []string{"DE", "AT"}}}},
		DisplayInfo:                []DisplayInfo{{Key: "Order", Value: "42"}},
		TermsAndConditionsAccepted: &accepted,
	}
}

// validUK is a complete, valid OPEN_BANKING_UK request.
func validUK() CreateRequest {
	amount := int64(999)
	return CreateRequest{
		Currency: "GBP", Amount: &amount, PaymentReference: "INV 7",
		Payer:         &Payer{OrganisationName: "Acme Ltd"},
		PaymentSystem: bank.OpenBankingUK,
		OpenBankingUK: &OpenBankingUK{Type: TypeBill, InstitutionID: testBankGB},
		Beneficiary:   &Beneficiary{Name: "Test Shop Ltd", AccountIdentifiers: &AccountIdentifiers{SortCode: "40-47-84", AccountNumber: "70872490"}},
	}
}

func ptr[T any](v T) *T { return &v }

// fieldErrors returns the (type, path) pairs of a validation error.
func fieldErrors(t *testing.T, err error) []string {
	t.Helper()
	if err == nil {
		return nil
	}
	e, ok := err.(*errs.Error)
	if !ok || e.Code != errs.ValidationFailure {
		t.Fatalf("error %v is not a VALIDATION_FAILURE", err)
	}
	var out []string
	for _, f := range e.Fields {
		if f.Message == "" {
			t.Errorf("%s at %s has no message", f.Type, f.PropertyPath)
		}
		out = append(out, f.Type+" "+f.PropertyPath)
	}
	return out
}

func TestValidateAcceptsValidRequests(t *testing.T) {
	t.Parallel()
	for name, r := range map[string]CreateRequest{"EU": validEU(), "UK": validUK()} {
		for _, ch := range []Channel{ChannelHosted, ChannelAPI} {
			if err := Validate(&r, ch, testLimits, bank.Default()); err != nil {
				t.Errorf("%s on %s: %v (%v)", name, ch, err, fieldErrors(t, err))
			}
		}
	}
	minimal := CreateRequest{Currency: "EUR", Amount: ptr(int64(1)), PaymentSystem: bank.OpenBankingEU,
		OpenBankingEU: &OpenBankingEU{}, Beneficiary: &Beneficiary{Name: "B", AccountIdentifiers: &AccountIdentifiers{IBAN: testIBANDE}}}
	if err := Validate(&minimal, ChannelHosted, testLimits, bank.Default()); err != nil {
		t.Errorf("minimal hosted request: %v", fieldErrors(t, err))
	}
}

func TestValidateRejects(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		base    func() CreateRequest
		channel Channel
		edit    func(r *CreateRequest)
		want    []string // "TYPE path", every one expected
	}{
		{"currency missing", validEU, ChannelHosted, func(r *CreateRequest) { r.Currency = "" }, []string{"VALUE_REQUIRED currency"}},
		{"currency not ISO", validEU, ChannelHosted, func(r *CreateRequest) { r.Currency = "EURO" }, []string{"INVALID_VALUE currency"}},
		{"currency lower case", validEU, ChannelHosted, func(r *CreateRequest) { r.Currency = "eur" }, []string{"INVALID_VALUE currency"}},
		{"currency of another system", validUK, ChannelHosted, func(r *CreateRequest) { r.Currency = "EUR" }, []string{"INVALID_VALUE currency"}},
		{"amount missing", validEU, ChannelHosted, func(r *CreateRequest) { r.Amount = nil }, []string{"VALUE_REQUIRED amount"}},
		{"amount zero", validEU, ChannelHosted, func(r *CreateRequest) { r.Amount = ptr(int64(0)) }, []string{"TOO_LOW amount"}},
		{"amount negative", validEU, ChannelHosted, func(r *CreateRequest) { r.Amount = ptr(int64(-5)) }, []string{"TOO_LOW amount"}},
		{"amount above maximum", validEU, ChannelHosted, func(r *CreateRequest) { r.Amount = ptr(int64(1_000_001)) }, []string{"TOO_HIGH amount"}},
		{"internal reference too long", validEU, ChannelHosted, func(r *CreateRequest) { r.InternalReference = strings.Repeat("x", 256) }, []string{"TOO_LONG internalReference"}},
		{"payment reference too long for SEPA", validEU, ChannelHosted, func(r *CreateRequest) { r.PaymentReference = strings.Repeat("x", 141) }, []string{"TOO_LONG paymentReference"}},
		{"payment reference too long for Faster Payments", validUK, ChannelHosted, func(r *CreateRequest) { r.PaymentReference = strings.Repeat("x", 19) }, []string{"TOO_LONG paymentReference"}},
		{"payment reference characters", validEU, ChannelHosted, func(r *CreateRequest) { r.PaymentReference = "Order #42" }, []string{"INVALID_FORMAT paymentReference"}},
		{"payer email", validEU, ChannelHosted, func(r *CreateRequest) { r.Payer.Email = "anna.example.com" }, []string{"INVALID_FORMAT payer.email"}},
		{"payer name too long", validEU, ChannelHosted, func(r *CreateRequest) { r.Payer.LastName = strings.Repeat("é", 141) }, []string{"TOO_LONG payer.lastName"}},
		{"payer name control character", validEU, ChannelHosted, func(r *CreateRequest) { r.Payer.FirstName = "An\x00na" }, []string{"INVALID_FORMAT payer.firstName"}},
		{"payer iban checksum", validEU, ChannelHosted, func(r *CreateRequest) {
			r.Payer.AccountIdentifiers = &AccountIdentifiers{IBAN: "DE89370400440532013001"}
		}, []string{"CHECKSUM_FAILED payer.accountIdentifiers.iban"}},
		{"device ip", validEU, ChannelHosted, func(r *CreateRequest) { r.Device.IP = "300.1.1.1" }, []string{"INVALID_FORMAT device.ip"}},
		{"device user agent too long", validEU, ChannelHosted, func(r *CreateRequest) { r.Device.UserAgent = strings.Repeat("a", 1025) }, []string{"TOO_LONG device.userAgent"}},
		{"payment system missing", validEU, ChannelHosted, func(r *CreateRequest) { r.PaymentSystem = "" }, []string{"VALUE_REQUIRED paymentSystem"}},
		{"payment system unknown", validEU, ChannelHosted, func(r *CreateRequest) { r.PaymentSystem = "SWIFT" }, []string{"INVALID_VALUE paymentSystem"}},
		{"EU details missing", validEU, ChannelHosted, func(r *CreateRequest) { r.OpenBankingEU = nil }, []string{"VALUE_REQUIRED openBankingEU"}},
		{"UK details missing", validUK, ChannelHosted, func(r *CreateRequest) { r.OpenBankingUK = nil }, []string{"VALUE_REQUIRED openBankingUK"}},
		{"details of the other system", validUK, ChannelHosted, func(r *CreateRequest) { r.OpenBankingEU = &OpenBankingEU{} }, []string{"FIELD_NOT_ALLOWED openBankingEU"}},
		{"type unknown", validEU, ChannelHosted, func(r *CreateRequest) { r.OpenBankingEU.Type = "DONATION" }, []string{"INVALID_VALUE openBankingEU.type"}},
		{"institution required on api", validEU, ChannelAPI, func(r *CreateRequest) { r.OpenBankingEU.InstitutionID = "" }, []string{"VALUE_REQUIRED openBankingEU.institutionId"}},
		{"institution not a uuid", validEU, ChannelHosted, func(r *CreateRequest) { r.OpenBankingEU.InstitutionID = "bank-1" }, []string{"INVALID_FORMAT openBankingEU.institutionId"}},
		{"institution unknown", validEU, ChannelHosted, func(r *CreateRequest) {
			r.OpenBankingEU.InstitutionID = "6a0c3f5e-2b1d-4c8e-9f00-000000000001"
		}, []string{"INVALID_VALUE openBankingEU.institutionId"}},
		{"institution of the other system", validEU, ChannelHosted, func(r *CreateRequest) { r.OpenBankingEU.InstitutionID = testBankGB }, []string{"INVALID_VALUE openBankingEU.institutionId"}},
		{"UK institution of the EU", validUK, ChannelAPI, func(r *CreateRequest) { r.OpenBankingUK.InstitutionID = testBankDE }, []string{"INVALID_VALUE openBankingUK.institutionId"}},
		{"validity too short", validEU, ChannelHosted, func(r *CreateRequest) { r.OpenBankingEU.ValidityPeriod = ptr(int64(59)) }, []string{"TOO_LOW openBankingEU.validityPeriod"}},
		{"validity too long", validEU, ChannelHosted, func(r *CreateRequest) { r.OpenBankingEU.ValidityPeriod = ptr(int64(MaxValidityPeriod + 1)) }, []string{"TOO_HIGH openBankingEU.validityPeriod"}},
		{"statement descriptor too long", validEU, ChannelHosted, func(r *CreateRequest) { r.OpenBankingEU.StatementDescriptor = strings.Repeat("s", 36) }, []string{"TOO_LONG openBankingEU.statementDescriptor"}},
		{"beneficiary missing", validEU, ChannelHosted, func(r *CreateRequest) { r.Beneficiary = nil }, []string{"VALUE_REQUIRED beneficiary"}},
		{"beneficiary name missing", validEU, ChannelHosted, func(r *CreateRequest) { r.Beneficiary.Name = " " }, []string{"VALUE_REQUIRED beneficiary.name"}},
		{"beneficiary account missing", validEU, ChannelHosted, func(r *CreateRequest) { r.Beneficiary.AccountIdentifiers = nil }, []string{"VALUE_REQUIRED beneficiary.accountIdentifiers"}},
		{"EU beneficiary iban missing", validEU, ChannelHosted, func(r *CreateRequest) { r.Beneficiary.AccountIdentifiers.IBAN = "" }, []string{"VALUE_REQUIRED beneficiary.accountIdentifiers.iban"}},
		{"iban too long", validEU, ChannelHosted, func(r *CreateRequest) {
			r.Beneficiary.AccountIdentifiers.IBAN = "DE89" + strings.Repeat("0", 33)
		}, []string{"TOO_LONG beneficiary.accountIdentifiers.iban"}},
		{"iban checksum", validEU, ChannelHosted, func(r *CreateRequest) {
			r.Beneficiary.AccountIdentifiers.IBAN = "DE88370400440532013000"
		}, []string{"CHECKSUM_FAILED beneficiary.accountIdentifiers.iban"}},
		{"iban too short", validEU, ChannelHosted, func(r *CreateRequest) { r.Beneficiary.AccountIdentifiers.IBAN = "DE89" }, []string{"TOO_SHORT beneficiary.accountIdentifiers.iban"}},
		{"iban format", validEU, ChannelHosted, func(r *CreateRequest) {
			r.Beneficiary.AccountIdentifiers.IBAN = "DE89-3704-0044-0532-0130"
		}, []string{"INVALID_FORMAT beneficiary.accountIdentifiers.iban"}},
		{"bic format", validEU, ChannelHosted, func(r *CreateRequest) { r.Beneficiary.AccountIdentifiers.SwiftBic = "RHVB" }, []string{"INVALID_FORMAT beneficiary.accountIdentifiers.swiftBic"}},
		{"UK sort code and account missing", validUK, ChannelHosted, func(r *CreateRequest) {
			r.Beneficiary.AccountIdentifiers = &AccountIdentifiers{}
		}, []string{"VALUE_REQUIRED beneficiary.accountIdentifiers.sortCode", "VALUE_REQUIRED beneficiary.accountIdentifiers.accountNumber"}},
		{"UK sort code format", validUK, ChannelHosted, func(r *CreateRequest) { r.Beneficiary.AccountIdentifiers.SortCode = "40478" }, []string{"INVALID_FORMAT beneficiary.accountIdentifiers.sortCode"}},
		{"UK account number format", validUK, ChannelHosted, func(r *CreateRequest) { r.Beneficiary.AccountIdentifiers.AccountNumber = "7087249A" }, []string{"INVALID_FORMAT beneficiary.accountIdentifiers.accountNumber"}},
		{"notification url", validEU, ChannelHosted, func(r *CreateRequest) { r.Communication.Notifications.URL = "ftp://shop.example/n" }, []string{"INVALID_FORMAT communication.notifications.url"}},
		{"notification url relative", validEU, ChannelHosted, func(r *CreateRequest) { r.Communication.Notifications.URL = "/notify" }, []string{"INVALID_FORMAT communication.notifications.url"}},
		{"notification url with credentials", validEU, ChannelHosted, func(r *CreateRequest) {
			r.Communication.Notifications.URL = "https://user:pw@shop.example/n"
		}, []string{"INVALID_FORMAT communication.notifications.url"}},
		{"notification url empty", validEU, ChannelHosted, func(r *CreateRequest) { r.Communication.Notifications.URL = "" }, []string{"VALUE_REQUIRED communication.notifications.url"}},
		{"return url", validEU, ChannelHosted, func(r *CreateRequest) { r.Communication.Return.URLs.Cancel.URL = "not a url" }, []string{"INVALID_FORMAT communication.return.urls.cancel.url"}},
		{"return url too long", validEU, ChannelHosted, func(r *CreateRequest) {
			r.Communication.Return.URLs.Success.URL = "https://shop.example/" + strings.Repeat("a", MaxURLLength)
		}, []string{"TOO_LONG communication.return.urls.success.url"}},
		{"query string too long", validEU, ChannelHosted, func(r *CreateRequest) { r.Communication.Return.QueryString = strings.Repeat("q", 1025) }, []string{"TOO_LONG communication.return.queryString"}},
		{"checkout countries", validEU, ChannelHosted, func(r *CreateRequest) {
			r.Checkout.Hosted.Countries.Available = []string{"DE", "UK", "DE"}
		}, []string{"INVALID_VALUE checkout.hosted.countries.available[1]", "NOT_UNIQUE checkout.hosted.countries.available[2]"}},
		{"checkout countries empty", validEU, ChannelHosted, func(r *CreateRequest) { r.Checkout.Hosted.Countries.Available = []string{} }, []string{"TOO_FEW checkout.hosted.countries.available"}},
		{"display info too many", validEU, ChannelHosted, func(r *CreateRequest) { r.DisplayInfo = make([]DisplayInfo, 11) }, []string{"TOO_MANY displayInfo"}},
		{"display info fields", validEU, ChannelHosted, func(r *CreateRequest) {
			r.DisplayInfo = []DisplayInfo{{Key: "", Value: "x"}, {Key: strings.Repeat("k", 51), Value: ""}}
		}, []string{"VALUE_REQUIRED displayInfo[0].key", "TOO_LONG displayInfo[1].key", "VALUE_REQUIRED displayInfo[1].value"}},
		{"every failure at once", validEU, ChannelAPI, func(r *CreateRequest) {
			r.Currency, r.Amount, r.OpenBankingEU.InstitutionID = "", ptr(int64(0)), ""
			r.Beneficiary.AccountIdentifiers.IBAN = "DE" + strings.Repeat("1", 40)
		}, []string{"VALUE_REQUIRED currency", "TOO_LOW amount", "VALUE_REQUIRED openBankingEU.institutionId", "TOO_LONG beneficiary.accountIdentifiers.iban"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r := tt.base()
			tt.edit(&r)
			got := fieldErrors(t, Validate(&r, tt.channel, testLimits, bank.Default()))
			if !slices.Equal(got, tt.want) {
				t.Fatalf("errors %q, want exactly %q", got, tt.want)
			}
		})
	}
}

func TestValidateNormalises(t *testing.T) {
	t.Parallel()
	r := validUK()
	r.Beneficiary.AccountIdentifiers.IBAN = " gb82 west 1234 5698 7654 32"
	r.OpenBankingUK.InstitutionID = strings.ToUpper(testBankGB)
	if err := Validate(&r, ChannelAPI, testLimits, bank.Default()); err != nil {
		t.Fatalf("Validate: %v", fieldErrors(t, err))
	}
	ids := r.Beneficiary.AccountIdentifiers
	if ids.IBAN != testIBANGB || ids.SortCode != "404784" || r.OpenBankingUK.InstitutionID != testBankGB {
		t.Fatalf("not normalised: %+v, institution %s", ids, r.OpenBankingUK.InstitutionID)
	}
}

func TestFingerprintIgnoresFormatting(t *testing.T) {
	t.Parallel()
	var a, b CreateRequest
	if err := json.Unmarshal([]byte(`{"currency":"EUR","amount":5,"unknown":1}`), &a); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal([]byte(`{ "amount": 5, "currency": "EUR" }`), &b); err != nil {
		t.Fatal(err)
	}
	if Fingerprint("POST /payments", ChannelHosted, a) != Fingerprint("POST /payments", ChannelHosted, b) {
		t.Fatal("same request, different fingerprints")
	}
	if Fingerprint("POST /payments", ChannelHosted, a) == Fingerprint("POST /payments", ChannelAPI, a) {
		t.Fatal("the channel must count")
	}
	b.Amount = ptr(int64(6))
	if Fingerprint("POST /payments", ChannelHosted, a) == Fingerprint("POST /payments", ChannelHosted, b) {
		t.Fatal("the amount must count")
	}
}
