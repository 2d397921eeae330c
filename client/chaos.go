package client

import (
	"context"
	"io"

	"github.com/bankrail/bankrail/api"
)

// GetNotificationChaos reads the webhook chaos settings of the caller's
// application (sandbox): the share of notifications duplicated, delayed,
// reordered, and COMPLETED sent after payment_received.
func (c *Client) GetNotificationChaos(ctx context.Context) (*api.NotificationChaos, error) {
	return decode[api.NotificationChaos](ctx, c, call{op: opGetNotificationChaos})
}

// SetNotificationChaos replaces every chaos setting of the caller's
// application (a field left out is 0). Resent after an unknown outcome:
// setting the same values twice changes nothing.
func (c *Client) SetNotificationChaos(ctx context.Context, body api.NotificationChaosSettings) (*api.NotificationChaos, error) {
	return decode[api.NotificationChaos](ctx, c, call{op: opSetNotificationChaos, body: body})
}

// RotateNotificationSecret gives the caller's application a new
// notification secret; the old one keeps signing X-Service-Signed for
// body.OverlapSeconds while the new one signs X-Service-Signed-Next. The
// answer carries the new secret once. It is not resent after an unknown
// outcome: that would rotate twice.
func (c *Client) RotateNotificationSecret(ctx context.Context, body api.NotificationSecretRotation) (*api.NotificationSecret, error) {
	return decode[api.NotificationSecret](ctx, c, call{op: opRotateNotificationSecret, body: body})
}

// ResetSandbox puts the caller's customer tree (role ADMIN), or with scope
// INSTANCE the whole instance and every sandbox clock (role OPERATOR),
// back to its seed state; params may be nil (the caller's default scope).
// See docs/testing-your-integration.md.
func (c *Client) ResetSandbox(ctx context.Context, params *api.ResetSandboxParams) (*api.SandboxState, error) {
	return decode[api.SandboxState](ctx, c, call{op: opResetSandbox, params: params})
}

// GetSandboxSnapshot streams the sandbox state of the scope (as
// ResetSandbox) as a JSON-lines file for RestoreSandbox; close it when done.
func (c *Client) GetSandboxSnapshot(ctx context.Context, params *api.GetSandboxSnapshotParams) (io.ReadCloser, error) {
	a, err := c.exchange(ctx, call{op: opGetSandboxSnapshot, params: params, accept: "application/x-ndjson", stream: true})
	if err != nil {
		return nil, err
	}
	return a.stream, nil
}

// RestoreSandbox replaces the sandbox state of the scope (as ResetSandbox)
// with snapshot, a file of GetSandboxSnapshot of the same scope and schema
// version.
func (c *Client) RestoreSandbox(ctx context.Context, snapshot []byte, params *api.RestoreSandboxParams) (*api.SandboxState, error) {
	return decode[api.SandboxState](ctx, c, call{op: opRestoreSandbox, params: params, raw: snapshot})
}
