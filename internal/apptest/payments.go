package apptest

import (
	"net/http"
	"testing"
)

// Banks and accounts of the registry for payment tests.
const (
	BankDE = "ba4c0276-0000-4000-8000-000000000001" // Rheinische Volksbank, Köln
	BankAT = "ba4c0040-0000-4000-8000-000000000001" // Donau Bank, Wien
	BankGB = "ba4c0826-0000-4000-8000-000000000001" // Thames Mutual Bank
	IBANDE = "DE89370400440532013000"
)

// EUPayment is a valid OPEN_BANKING_EU request of 10.50 EUR from Anna
// Müller to Test Shop GmbH, without a bank: the payer picks one of DE or AT.
func EUPayment() map[string]any {
	return map[string]any{
		"currency": "EUR", "amount": 1050, "internalReference": "order-42", "paymentReference": "Order 42",
		"payer":         map[string]any{"firstName": "Anna", "lastName": "Müller", "email": "anna@example.com"},
		"paymentSystem": "OPEN_BANKING_EU",
		"openBankingEU": map[string]any{"type": "GOODS"},
		"beneficiary":   map[string]any{"name": "Test Shop GmbH", "accountIdentifiers": map[string]any{"iban": IBANDE}},
		"checkout":      map[string]any{"hosted": map[string]any{"countries": map[string]any{"available": []string{"DE", "AT"}}}},
		"displayInfo":   []map[string]string{{"key": "Order", "value": "42"}, {"key": "Items", "value": "2 books"}},
	}
}

// Created is the part of a new payment's record that payer tests need.
type Created struct {
	ID                    string `json:"id"`
	Status                string `json:"status"`
	PaymentInitiationFlow struct {
		Details struct {
			Redirect struct {
				URL       string `json:"url"`
				DirectURL string `json:"directUrl"`
			} `json:"redirect"`
		} `json:"details"`
	} `json:"paymentInitiationFlow"`
}

// RedirectURL is the payer's short link.
func (c Created) RedirectURL() string { return c.PaymentInitiationFlow.Details.Redirect.URL }

// DirectURL is the payer's full checkout (or bank) address.
func (c Created) DirectURL() string { return c.PaymentInitiationFlow.Details.Redirect.DirectURL }

// CreatePayment creates a payment on channel (hosted or api) with optional
// extra headers and fails the test unless it is created.
func (e *Env) CreatePayment(t testing.TB, token, channel string, body any, headers map[string]string) Created {
	t.Helper()
	h := map[string]string{"X-Service-Api-Version": "1", "X-Service-Initiation-Channel": channel}
	for k, v := range headers {
		h[k] = v
	}
	resp := e.Do(t, Request{Method: "POST", Path: "/payments", Token: token, Body: body, Header: h})
	if resp.Status != http.StatusCreated {
		t.Fatalf("create payment: %d %s", resp.Status, resp.Body)
	}
	var c Created
	resp.JSON(t, &c)
	return c
}
