package httpapi_test

import (
	"net/http"
	"testing"

	"github.com/bankrail/bankrail/internal/apptest"
)

// Banks of the registry used by the tests.
const (
	bankDE        = "ba4c0276-0000-4000-8000-000000000001" // takes SEPA Instant
	bankDEPlain   = "ba4c0276-0000-4000-8000-000000000003"
	bankGB        = "ba4c0826-0000-4000-8000-000000000001"
	ibanDE        = "DE89370400440532013000"
	paymentsPath  = "/payments"
	channelHeader = "X-Service-Initiation-Channel"
)

// euBody is a valid OPEN_BANKING_EU request with every field of the contract.
func euBody() map[string]any {
	return map[string]any{
		"currency": "EUR", "amount": 1050, "internalReference": "order-42", "paymentReference": "Order 42",
		"payer":         map[string]any{"reference": "cust-1", "firstName": "Anna", "lastName": "Müller", "email": "anna@example.com"},
		"device":        map[string]any{"ip": "203.0.113.7", "userAgent": "Mozilla/5.0", "fingerprint": "fp-1"},
		"paymentSystem": "OPEN_BANKING_EU",
		"openBankingEU": map[string]any{"type": "GOODS", "institutionId": bankDE, "statementDescriptor": "SHOP", "validityPeriod": 3600,
			"accountIdentifiers": map[string]any{"iban": "GB82 WEST 1234 5698 7654 32"}},
		"beneficiary": map[string]any{"name": "Test Shop GmbH", "accountIdentifiers": map[string]any{"iban": ibanDE, "swiftBic": "RHVBDEFF"}},
		"communication": map[string]any{
			"notifications": map[string]any{"url": "https://shop.example/notify"},
			"return": map[string]any{"queryString": "order=42", "urls": map[string]any{
				"unified": map[string]any{"url": "https://shop.example/r"}, "success": map[string]any{"url": "https://shop.example/ok"},
				"failure": map[string]any{"url": "https://shop.example/ko"}, "pending": map[string]any{"url": "https://shop.example/wait"},
				"cancel": map[string]any{"url": "https://shop.example/cancel"}}},
		},
		"checkout":                   map[string]any{"hosted": map[string]any{"countries": map[string]any{"available": []string{"DE", "AT"}}}},
		"displayInfo":                []map[string]string{{"key": "Order", "value": "42"}},
		"termsAndConditionsAccepted": true,
	}
}

// ukBody is a valid OPEN_BANKING_UK request.
func ukBody() map[string]any {
	return map[string]any{
		"currency": "GBP", "amount": 999, "paymentReference": "INV 7",
		"payer":         map[string]any{"organisationName": "Acme Ltd"},
		"paymentSystem": "OPEN_BANKING_UK",
		"openBankingUK": map[string]any{"type": "BILL", "institutionId": bankGB},
		"beneficiary":   map[string]any{"name": "Test Shop Ltd", "accountIdentifiers": map[string]any{"sortCode": "40-47-84", "accountNumber": "70872490"}},
	}
}

// paymentHeaders are the headers of a POST /payments; extra ones override
// (an empty value removes a header).
func paymentHeaders(extra map[string]string) map[string]string {
	h := map[string]string{"X-Service-Api-Version": "1", channelHeader: "hosted"}
	for k, v := range extra {
		h[k] = v
	}
	return h
}

// postPayment sends POST /payments.
func postPayment(t testing.TB, env *apptest.Env, token string, body any, headers map[string]string) *apptest.Response {
	t.Helper()
	return env.Do(t, apptest.Request{Method: "POST", Path: paymentsPath, Token: token, Body: body, Header: paymentHeaders(headers)})
}

// record is the part of the Global payment record the tests read.
type record struct {
	ID                    string `json:"id"`
	Currency              string `json:"currency"`
	Amount                int64  `json:"amount"`
	PaymentReference      string `json:"paymentReference"`
	InternalReference     string `json:"internalReference"`
	PaymentSystem         string `json:"paymentSystem"`
	Status                string `json:"status"`
	TransferType          string `json:"transferType"`
	CreatedAt             string `json:"createdAt"`
	PaymentInitiationFlow struct {
		Status  string `json:"status"`
		Details struct {
			Reason   string `json:"reason"`
			Redirect struct {
				URL       string `json:"url"`
				DirectURL string `json:"directUrl"`
			} `json:"redirect"`
		} `json:"details"`
	} `json:"paymentInitiationFlow"`
	OpenBankingEU *struct {
		Type, InstitutionID, Provider string
		AccountIdentifiers            struct{ IBAN string }
	} `json:"openBankingEU"`
	Beneficiary struct {
		Name               string
		AccountIdentifiers struct{ IBAN, SortCode, AccountNumber, SwiftBic string }
	} `json:"beneficiary"`
}

// mustCreate creates a payment and returns its record.
func mustCreate(t testing.TB, env *apptest.Env, token string, body any, headers map[string]string) record {
	t.Helper()
	resp := postPayment(t, env, token, body, headers)
	if resp.Status != http.StatusCreated {
		t.Fatalf("create payment: %d %s", resp.Status, resp.Body)
	}
	var rec record
	resp.JSON(t, &rec)
	return rec
}

// with returns a copy of body with key set to v.
func with(body map[string]any, key string, v any) map[string]any {
	out := make(map[string]any, len(body))
	for k, x := range body {
		out[k] = x
	}
	if v == nil {
		delete(out, key)
	} else {
		out[key] = v
	}
	return out
}
