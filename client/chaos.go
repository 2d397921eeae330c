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

// ResetSandbox puts the whole instance back to its seed state and every
// sandbox clock to now (role ADMIN; see docs/testing-your-integration.md).
func (c *Client) ResetSandbox(ctx context.Context) (*api.SandboxState, error) {
	return decode[api.SandboxState](ctx, c, call{op: opResetSandbox})
}

// GetSandboxSnapshot streams the whole sandbox state as a JSON-lines file
// for RestoreSandbox; close it when done.
func (c *Client) GetSandboxSnapshot(ctx context.Context) (io.ReadCloser, error) {
	a, err := c.exchange(ctx, call{op: opGetSandboxSnapshot, accept: "application/x-ndjson", stream: true})
	if err != nil {
		return nil, err
	}
	return a.stream, nil
}

// RestoreSandbox replaces the whole sandbox state with snapshot, a file of
// GetSandboxSnapshot of the same schema version.
func (c *Client) RestoreSandbox(ctx context.Context, snapshot []byte) (*api.SandboxState, error) {
	return decode[api.SandboxState](ctx, c, call{op: opRestoreSandbox, raw: snapshot})
}
