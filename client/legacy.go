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

// CreateLegacyToken gets a token through the legacy API (POST
// /legacy/oauth, sent as a form). WithCredentials uses POST /oauth.
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
