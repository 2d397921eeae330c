package client

import (
	"context"
	"iter"

	"github.com/bankrail/bankrail/api"
)

// ListNotifications reads one page of the delivery log, newest first,
// without attempts (GetNotification has them).
func (c *Client) ListNotifications(ctx context.Context, params *api.ListNotificationsParams) (*Page[api.Notification], error) {
	return list[api.Notification](ctx, c, call{op: opListNotifications, params: params})
}

// AllNotifications iterates over every page of ListNotifications.
func (c *Client) AllNotifications(ctx context.Context, params *api.ListNotificationsParams) iter.Seq2[api.Notification, error] {
	return all(params, func(p *api.ListNotificationsParams) **int64 { return &p.Page },
		func(p *api.ListNotificationsParams) **string { return &p.Cursor },
		func(p *api.ListNotificationsParams) (*Page[api.Notification], error) {
			return c.ListNotifications(ctx, p)
		})
}

// GetNotification reads one notification with every delivery attempt.
func (c *Client) GetNotification(ctx context.Context, id string) (*api.Notification, error) {
	return decode[api.Notification](ctx, c, call{op: opGetNotification, path: []string{id}})
}

// SendTestNotification sends a test notification to the application's URL
// now and returns it with its attempt (DELIVERED or FAILED).
func (c *Client) SendTestNotification(ctx context.Context) (*api.Notification, error) {
	return decode[api.Notification](ctx, c, call{op: opSendTestNotification})
}

// ResumeNotifications ends a pause of the application's notifications.
func (c *Client) ResumeNotifications(ctx context.Context) (*api.NotificationResume, error) {
	return decode[api.NotificationResume](ctx, c, call{op: opResumeNotifications})
}

// RedeliverNotification queues a notification for delivery again.
func (c *Client) RedeliverNotification(ctx context.Context, id string) (*api.Notification, error) {
	return decode[api.Notification](ctx, c, call{op: opRedeliverNotification, path: []string{id}})
}
