package client

import (
	"context"
	"encoding/json"
	"net/http"

	"github.com/bankrail/bankrail/api"
)

// GetHome reads the instance's index (GET / with Accept: application/json):
// its mode and the paths of its document, health and guide.
func (c *Client) GetHome(ctx context.Context) (*api.HomeIndex, error) {
	return decode[api.HomeIndex](ctx, c, call{op: opGetHome})
}

// CreateDemoPayment is the start page's button (sandbox with the demo
// merchant): it creates a demo payment and answers with its checkout's
// address.
func (c *Client) CreateDemoPayment(ctx context.Context) (*Redirect, error) {
	return redirect(ctx, c, call{op: opCreateDemoPayment})
}

// CreateToken gets an access token (POST /oauth): the password or the
// refresh_token grant. WithCredentials calls it for you.
func (c *Client) CreateToken(ctx context.Context, body api.TokenRequest) (*api.TokenResponse, error) {
	return c.createToken(ctx, body, body.GrantType != "refresh_token")
}

// GetJWKS reads the public keys that verify access tokens.
func (c *Client) GetJWKS(ctx context.Context) (*api.JWKS, error) {
	return decode[api.JWKS](ctx, c, call{op: opGetJWKS})
}

// Healthz is the liveness check.
func (c *Client) Healthz(ctx context.Context) (*api.Health, error) {
	return decode[api.Health](ctx, c, call{op: opHealthz})
}

// Readyz is the readiness check: Status is "ready", or "unavailable" when
// the database does not answer (503, returned without an error).
func (c *Client) Readyz(ctx context.Context) (*api.Readiness, error) {
	return decode[api.Readiness](ctx, c, call{op: opReadyz, ok: func(s int) bool {
		return s == http.StatusOK || s == http.StatusServiceUnavailable
	}})
}

// GetOpenAPI reads the instance's OpenAPI document (JSON).
func (c *Client) GetOpenAPI(ctx context.Context) (json.RawMessage, error) {
	doc, err := decode[json.RawMessage](ctx, c, call{op: opGetOpenAPI})
	if err != nil {
		return nil, err
	}
	return *doc, nil
}

// Metrics reads the Prometheus metrics (text exposition format).
func (c *Client) Metrics(ctx context.Context) (string, error) {
	return text(ctx, c, call{op: opMetrics, accept: "text/plain"})
}
