// Package aspsp is the sandbox's mock ASPSP: each mock bank of the
// registry as a NextGenPSD2 (Berlin Group XS2A 1.3.11) bank at
// /xs2a/{bankId}/v1/..., served by the same binary. It answers payment
// initiation (POST /v1/payments/{product}) and its status (GET
// .../{paymentId}/status, GET .../{paymentId}); the payer's SCA is the mock
// bank's page (internal/checkout), which records the payer's answer here
// (Answer). Sandbox scenarios (X-Service-Testing-Scenario on the POST), the
// magic amounts and the tenant's virtual clock decide its answers
// (status.go). The official OpenAPI document describes it; bankrail's
// api/openapi.yaml does not.
package aspsp

import (
	"context"
	"time"

	"github.com/bankrail/bankrail/internal/xs2a"
)

// Payment is a payment initiated at a mock bank.
type Payment struct {
	ID             string
	BankID         string
	Product        string
	RequestID      string // X-Request-ID of the POST: a repeated POST answers this payment
	CustomerID     string // the tenant whose virtual clock the bank follows ("" none: the base clock)
	Body           xs2a.PaymentInitiation
	RedirectURI    string
	NokRedirectURI string
	// Approach is the SCA approach the bank chose: xs2a.SCARedirect, or
	// xs2a.SCADecoupled when the TPP sent TPP-Redirect-Preferred: false
	// (the payer answers on the bank's "app", the SCA page, and is not
	// sent back to the TPP).
	Approach string
	// Outcome is the payer's answer at SCA, or the scenario of the POST:
	// a sandbox outcome name (payment.ParseOutcome); "" while unanswered.
	Outcome    string
	Holder     string
	AnsweredAt time.Time // when Outcome was given (zero while unanswered)
	CreatedAt  time.Time
}

// Store keeps the mock banks' payments. It is implemented by
// internal/store.
type Store interface {
	// CreateMockPayment records p; when the bank has a payment of p's
	// RequestID already, that one is returned and nothing is written.
	CreateMockPayment(ctx context.Context, p Payment) (Payment, error)
	// MockPayment reads payment id of bank bankID (errs.NotFound).
	MockPayment(ctx context.Context, bankID, id string) (Payment, error)
	// AnswerMockPayment records the payer's answer of an unanswered
	// payment and returns it; an answered one is returned unchanged.
	AnswerMockPayment(ctx context.Context, bankID, id, outcome, holder string, at time.Time) (Payment, error)
}
