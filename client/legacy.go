package client

import (
	"context"

	"github.com/bankrail/bankrail/api"
)

// CreateLegacyPayment creates a payment through the legacy Payments API
// (POST /legacy/payments, deprecated). Errors come in the legacy shape:
// the *Error has no Code, its Fields are the legacy errorList. params may
// be nil (X-Service-Api-Version 1, a made-up Idempotency-Key).
func (c *Client) CreateLegacyPayment(ctx context.Context, body api.LegacyPaymentRequest, params *api.CreateLegacyPaymentParams) (*api.LegacyPaymentCreated, error) {
	return decode[api.LegacyPaymentCreated](ctx, c, call{op: opCreateLegacyPayment, body: body, params: params})
}

// GetLegacyNameMatchScore is GetNameMatchScore through the legacy API.
func (c *Client) GetLegacyNameMatchScore(ctx context.Context, id string, params *api.GetLegacyNameMatchScoreParams) (*api.LegacyNameMatchScore, error) {
	return decode[api.LegacyNameMatchScore](ctx, c, call{op: opGetLegacyNameMatchScore, path: []string{id}, params: params})
}

// GetLegacyPayment reads a payment through the legacy API (GET
// /legacy/payments/{id}): id, status, merchantInternalReference, amount
// and currency.
func (c *Client) GetLegacyPayment(ctx context.Context, id string) (*api.LegacyPayment, error) {
	return decode[api.LegacyPayment](ctx, c, call{op: opGetLegacyPayment, path: []string{id}})
}

// RequestLegacyRefund is RequestRefund through the legacy API; an
// Idempotency-Key is made up unless params carries one.
func (c *Client) RequestLegacyRefund(ctx context.Context, paymentID string, body api.RefundRequest, params *api.RequestLegacyRefundParams) (*api.Refund, error) {
	return decode[api.Refund](ctx, c, call{op: opRequestLegacyRefund, path: []string{paymentID}, body: body, params: params})
}

// CancelLegacyPayment cancels a payment the payer has not authorised yet
// (POST /legacy/payments/{id}/cancel): it ends ABANDONED_BY_USER. Sending
// it again answers the same, so it is retried like a read.
func (c *Client) CancelLegacyPayment(ctx context.Context, id string) (*api.LegacyCancelled, error) {
	return decode[api.LegacyCancelled](ctx, c, call{op: opCancelLegacyPayment, path: []string{id}})
}

// CreateLegacyToken gets a token through the legacy API (POST
// /legacy/oauth, sent as a form; the endpoint takes JSON too). Its errors
// carry the legacy exception. WithCredentials uses POST /oauth.
func (c *Client) CreateLegacyToken(ctx context.Context, body api.TokenRequest) (*api.TokenResponse, error) {
	return decode[api.TokenResponse](ctx, c, call{op: opCreateLegacyToken, body: body})
}

// GetMigrationGuide reads the migration guide from the legacy API to the
// Global API (Markdown).
func (c *Client) GetMigrationGuide(ctx context.Context) (string, error) {
	return text(ctx, c, call{op: opGetMigrationGuide, accept: "text/markdown"})
}

// CreateDropin creates an embedded checkout session (POST /dropin); an
// Idempotency-Key is made up unless params carries one.
func (c *Client) CreateDropin(ctx context.Context, body api.DropinRequest, params *api.CreateDropinParams) (*api.DropinCreated, error) {
	return decode[api.DropinCreated](ctx, c, call{op: opCreateDropin, body: body, params: params})
}

// GetCheckoutLibrary reads the embedded checkout's JavaScript library.
func (c *Client) GetCheckoutLibrary(ctx context.Context) (string, error) {
	return text(ctx, c, call{op: opGetCheckoutLibrary, accept: "text/javascript"})
}
