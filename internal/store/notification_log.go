package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"time"

	"github.com/bankrail/bankrail/internal/errs"
	"github.com/bankrail/bankrail/internal/notify"
	"github.com/bankrail/bankrail/internal/paging"
)

// notificationColumns are the columns scanNotification reads.
const notificationColumns = `id, customer_id, application_id, payment_id, type, url, body, status, attempts, retry_from,
	next_attempt_at, created_at, delivered_at, last_error, chaos, chaos_hold`

// scanNotification reads notificationColumns, then extra.
func scanNotification(row interface{ Scan(...any) error }, extra ...any) (notify.Notification, error) {
	var n notify.Notification
	var body, status string
	var next, created int64
	var delivered sql.NullInt64
	dest := append([]any{&n.ID, &n.CustomerID, &n.ApplicationID, &n.PaymentID, &n.Type, &n.URL, &body, &status,
		&n.Attempts, &n.RetryFrom, &next, &created, &delivered, &n.LastError, &n.ChaosMarks, &n.ChaosHold}, extra...)
	err := row.Scan(dest...)
	n.Body, n.Status = []byte(body), notify.Status(status)
	n.NextAttemptAt, n.CreatedAt, n.DeliveredAt = fromMicros(next), fromMicros(created), fromNullMicros(delivered)
	return n, err
}

// clientOf reads the client id of a notification's application.
const clientOf = `, COALESCE((SELECT client_id FROM applications a WHERE a.id = notifications.application_id), '')`

// ListNotifications returns one page of the viewer's notifications, newest
// first, and how many match in all, read from the
// notifications_customer_created index in order (or a payment's few
// through notifications_payment), as readPage does.
func (s *Store) ListNotifications(ctx context.Context, viewer string, f notify.Filter) (notify.Page, error) {
	l := keysetList{what: "notifications", table: "notifications", columns: notificationColumns + clientOf,
		orderIndex: "notifications_customer_created", viewer: viewer, from: f.CreatedFrom, to: f.CreatedTo}
	if f.PaymentID != "" {
		l.scope, l.scopeID = "payment_id", f.PaymentID
		l.rowConds = append(l.rowConds, visibleCond(viewer))
	}
	l.equal("status", string(f.Status))
	page, err := readPage(ctx, s, nil, l, f.Page, f.Limit, f.After,
		func(row interface{ Scan(...any) error }) (notify.Notification, error) {
			var client string
			n, err := scanNotification(row, &client)
			n.ClientID = client
			return n, err
		},
		func(n notify.Notification) paging.Position { return paging.Position{CreatedAt: n.CreatedAt, ID: n.ID} })
	return notify.Page{Items: page.Items, TotalItems: page.Total, Next: page.Next}, err
}

// GetNotification returns one of the viewer's notifications with its
// attempts, oldest first.
func (s *Store) GetNotification(ctx context.Context, viewer, id string) (notify.Notification, []notify.Attempt, error) {
	var client string
	n, err := scanNotification(s.read.QueryRowContext(ctx,
		`SELECT `+notificationColumns+clientOf+` FROM notifications WHERE id = $2 AND `+visibleTo("customer_id", 1), viewer, id), &client)
	if err != nil {
		return notify.Notification{}, nil, translate(err, "notification "+id)
	}
	n.ClientID = client
	rows, err := s.read.QueryContext(ctx, `
		SELECT id, number, started_at, url, request_headers, request_body, response_status, response_body, latency_us,
			error, success, chaos
		FROM notification_attempts WHERE notification_id = $1 ORDER BY started_at, id`, id)
	if err != nil {
		return notify.Notification{}, nil, translate(err, "attempts of notification "+id)
	}
	defer rows.Close()
	attempts := []notify.Attempt{}
	for rows.Next() {
		a := notify.Attempt{NotificationID: id}
		var at, latency int64
		var headers, body string
		var success int
		if err := rows.Scan(&a.ID, &a.Number, &at, &a.URL, &headers, &body, &a.ResponseStatus, &a.ResponseBody,
			&latency, &a.Error, &success, &a.Chaos); err != nil {
			return notify.Notification{}, nil, translate(err, "attempts of notification "+id)
		}
		if err := json.Unmarshal([]byte(headers), &a.RequestHeaders); err != nil {
			return notify.Notification{}, nil, fmt.Errorf("decode attempt headers: %w", err)
		}
		a.At, a.Latency, a.RequestBody, a.Success = fromMicros(at), time.Duration(latency)*time.Microsecond, []byte(body), success == 1
		attempts = append(attempts, a)
	}
	return n, attempts, translate(rows.Err(), "attempts of notification "+id)
}

// RedeliverNotification makes one of the viewer's notifications due at now.
// A DELIVERED or FAILED one becomes PENDING again with a fresh retry
// schedule; a PENDING one is only brought forward (a lease in flight is
// kept). It stays held while its application is paused.
func (s *Store) RedeliverNotification(ctx context.Context, viewer, id string, now time.Time) (notify.Notification, error) {
	var n notify.Notification
	err := s.auditedTx(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `
			UPDATE notifications SET next_attempt_at = $3,
				retry_from = CASE WHEN status = 'PENDING' THEN retry_from ELSE attempts END,
				status = 'PENDING', delivered_at = NULL
			WHERE id = $2 AND `+visibleTo("customer_id", 1), viewer, id, micros(now))
		if err := expectOne(res, err, "notification "+id); err != nil {
			return err
		}
		var client string
		n, err = scanNotification(tx.QueryRowContext(ctx,
			`SELECT `+notificationColumns+clientOf+` FROM notifications WHERE id = $1`, id), &client)
		n.ClientID = client
		if err != nil {
			return translate(err, "notification "+id)
		}
		s.wakeAfterCommit(tx)
		return nil
	})
	if errs.Is(err, errs.NotFound) {
		return notify.Notification{}, errs.NotFoundf("Notification %s was not found.", id)
	}
	return n, err
}
