package dispatch

import (
	"context"

	"github.com/bankrail/bankrail/internal/errs"
	"github.com/bankrail/bankrail/internal/ids"
	"github.com/bankrail/bankrail/internal/notify"
	"github.com/bankrail/bankrail/notification"
)

var _ notify.Tester = (*Dispatcher)(nil)

// SendTest posts a test notification ({} with X-Service-Type: test) to the
// application of clientID now, bypassing a pause, records it in the delivery
// log, and on success resumes the application's held notifications.
func (d *Dispatcher) SendTest(ctx context.Context, customerID, clientID string) (notify.Notification, []notify.Attempt, error) {
	app, err := d.store.GetApplicationByClientID(ctx, clientID)
	if err != nil {
		return notify.Notification{}, nil, err
	}
	if app.NotificationURL == "" {
		return notify.Notification{}, nil, errs.E(errs.Conflict,
			"Application %s has no notification URL; set one before sending a test notification.", clientID)
	}
	id := ids.New()
	now := d.now(ctx, customerID)
	n := notify.Notification{ID: id, CustomerID: customerID, ApplicationID: app.ID, ClientID: clientID,
		Type: notification.TypeTest, Body: []byte(`{}`), Attempts: 1, NextAttemptAt: now, CreatedAt: now}
	c := notify.Claim{Notification: n, AppURL: app.NotificationURL, Secret: app.NotificationSecret, ClaimedAt: now}
	a, _ := d.attempt(context.WithoutCancel(ctx), c)
	n.Status, n.LastError = notify.Failed, a.Error
	if a.Success {
		n.Status, n.DeliveredAt = notify.Delivered, d.now(ctx, customerID)
	}
	resumed, err := d.store.RecordTestNotification(context.WithoutCancel(ctx), n, a, d.now(ctx, customerID))
	if err != nil {
		return notify.Notification{}, nil, err
	}
	if resumed {
		d.log.Info("notifications resumed after a successful test notification", "application_id", app.ID)
		d.metrics.resumed()
	}
	return n, []notify.Attempt{a}, nil
}
