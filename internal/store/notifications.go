package store

import (
	"context"
	"database/sql"
	"time"

	"github.com/bankrail/bankrail/internal/audit"
	"github.com/bankrail/bankrail/internal/errs"
	"github.com/bankrail/bankrail/internal/ids"
	"github.com/bankrail/bankrail/internal/notify"
)

// OnNotificationsDue registers fn, called (without blocking) after a
// transaction commits that made notifications due: an enqueue, a
// redelivery, a resume. The dispatcher uses it to wake up at once instead
// of at its next poll.
func (s *Store) OnNotificationsDue(fn func()) { s.queued.Store(&fn) }

// wakeAfterCommit tells the dispatcher about tx's notifications once tx
// has committed.
func (s *Store) wakeAfterCommit(tx *sql.Tx) {
	if fn := s.queued.Load(); fn != nil {
		s.onCommit(tx, "notifications due", *fn)
	}
}

// enqueue writes msgs into the outbox inside tx, the transaction of the
// state change that causes them: they are sent if and only if tx commits.
// Within a payment (PaymentID) they are delivered in the order written.
// It returns the notification ids (also their X-Service-Notification-Id).
//
// Two transactions that enqueue for the same payment must be serialized by
// the caller (they are: both change the payment's row); if they are not,
// one fails with CONFLICT instead of being misordered.
func (s *Store) enqueue(ctx context.Context, tx *sql.Tx, now time.Time, msgs ...notify.Message) ([]string, error) {
	switch {
	case len(msgs) == 0:
		return nil, nil // nothing due: the dispatcher is not woken (a keyed create woke it on every commit)
	case len(msgs) > 2:
		return s.enqueueMany(ctx, tx, now, msgs)
	}
	made := make([]string, 0, len(msgs))
	for _, m := range msgs {
		if err := m.Validate(); err != nil {
			return nil, err
		}
		appID := m.ApplicationID
		if appID == "" {
			if err := s.inside(tx).QueryRowContext(ctx, selectApplicationOfClient, m.ClientID).Scan(&appID); err != nil {
				return nil, translate(err, "application "+m.ClientID+" of a notification")
			}
		}
		id := ids.New()
		key := m.PaymentID
		if key == "" {
			key = id
		}
		_, err := s.txExec(ctx, tx, insertNotification,
			id, m.CustomerID, appID, m.PaymentID, key, m.Type, m.URL, string(m.Body), micros(now))
		if err != nil {
			return nil, translate(err, "notification")
		}
		made = append(made, id)
	}
	s.wakeAfterCommit(tx)
	return made, nil
}

// The statements of enqueue, prepared once (stmt.go's hotWrites): every
// payment's move and a statement import's thousands enqueue.
const (
	selectApplicationOfClient = `SELECT id FROM applications WHERE client_id = $1`
	insertNotification        = `
		INSERT INTO notifications (id, customer_id, application_id, payment_id, ordering_key, seq, type, url, body,
			status, next_attempt_at, created_at)
		VALUES ($1, $2, $3, $4, $5, (SELECT COALESCE(MAX(seq), 0) + 1 FROM notifications WHERE ordering_key = $5),
			$6, $7, $8, 'PENDING', $9, $9)`
)

func init() { hotWrites = append(hotWrites, selectApplicationOfClient, insertNotification) }

// EnqueueNotifications writes msgs in a transaction of their own, for a
// feature whose notification is its only change. Features that change state
// call enqueue inside their own transaction instead.
func (s *Store) EnqueueNotifications(ctx context.Context, now time.Time, msgs ...notify.Message) ([]string, error) {
	var ids []string
	err := s.inTx(ctx, func(tx *sql.Tx) error {
		var err error
		ids, err = s.enqueue(ctx, tx, now, msgs...)
		return err
	})
	return ids, err
}

// RecordTestNotification stores a test notification that was sent
// synchronously, with its one attempt, and updates the application's
// delivery health. A successful test resumes a paused application: its held
// notifications become due at now and go out in order. It reports whether
// the application was paused and is now resumed.
func (s *Store) RecordTestNotification(ctx context.Context, n notify.Notification, a notify.Attempt, now time.Time) (bool, error) {
	resumed := false
	audit.Resource(ctx, "notification", n.ID)
	err := s.auditedTx(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `
			INSERT INTO notifications (id, customer_id, application_id, payment_id, ordering_key, seq, type, url, body,
				status, attempts, next_attempt_at, created_at, delivered_at, last_error)
			VALUES ($1, $2, $3, '', $1, 1, $4, '', $5, $6, 1, $7, $7, $8, $9)`,
			n.ID, n.CustomerID, n.ApplicationID, n.Type, string(n.Body), string(n.Status), micros(n.CreatedAt),
			nullMicros(n.DeliveredAt), n.LastError)
		if err != nil {
			return translate(err, "test notification")
		}
		if err := insertAttempt(ctx, tx, a); err != nil {
			return err
		}
		if !a.Success {
			_, err := s.recordEndpointFailure(ctx, tx, n.ApplicationID, now)
			return err
		}
		resumed, err = s.resumeEndpoint(ctx, tx, n.ApplicationID, now)
		return err
	})
	return resumed, err
}

// ResumeNotifications lifts the pause of the application of clientID at
// now, whatever the state of its receiver: its failures are forgotten and
// its held notifications become due at once. It reports whether the
// application was paused.
func (s *Store) ResumeNotifications(ctx context.Context, clientID string, now time.Time) (bool, error) {
	resumed := false
	audit.Resource(ctx, "application", clientID)
	err := s.auditedTx(ctx, func(tx *sql.Tx) error {
		var appID string
		err := tx.QueryRowContext(ctx, `SELECT id FROM applications WHERE client_id = $1`, clientID).Scan(&appID)
		if err != nil {
			return translate(err, "application "+clientID)
		}
		resumed, err = s.resumeEndpoint(ctx, tx, appID, now)
		return err
	})
	return resumed, err
}

// resumeEndpoint clears the consecutive failures of an application and, if
// it was paused, lifts the pause and makes its held notifications due at
// now. It reports whether it was paused.
func (s *Store) resumeEndpoint(ctx context.Context, tx *sql.Tx, appID string, now time.Time) (bool, error) {
	var paused sql.NullInt64
	err := tx.QueryRowContext(ctx, `SELECT paused_at FROM notification_endpoints WHERE application_id = $1`+s.forUpdate(),
		appID).Scan(&paused)
	if err := translate(err, "notification endpoint"); err != nil {
		return false, ignoreNotFound(err)
	}
	if _, err := tx.ExecContext(ctx, `
		UPDATE notification_endpoints SET consecutive_failures = 0, paused_at = NULL, updated_at = $2
		WHERE application_id = $1`, appID, micros(now)); err != nil {
		return false, translate(err, "resume notifications")
	}
	if !paused.Valid {
		return false, nil
	}
	if _, err := tx.ExecContext(ctx, `
		UPDATE notifications SET next_attempt_at = $2
		WHERE application_id = $1 AND status = 'PENDING' AND next_attempt_at > $2`, appID, micros(now)); err != nil {
		return false, translate(err, "resume held notifications")
	}
	s.wakeAfterCommit(tx)
	return true, nil
}

// ignoreNotFound turns RESOURCE_NOT_FOUND into success.
func ignoreNotFound(err error) error {
	if errs.Is(err, errs.NotFound) {
		return nil
	}
	return err
}

// recordEndpointFailure counts one more consecutive failure of an
// application's deliveries and pauses it at the threshold. It reports
// whether this failure paused it.
func (s *Store) recordEndpointFailure(ctx context.Context, tx *sql.Tx, appID string, now time.Time) (bool, error) {
	var failures int
	var paused sql.NullInt64
	err := tx.QueryRowContext(ctx, `
		INSERT INTO notification_endpoints (application_id, consecutive_failures, updated_at) VALUES ($1, 1, $2)
		ON CONFLICT (application_id) DO UPDATE
			SET consecutive_failures = notification_endpoints.consecutive_failures + 1, updated_at = $2
		RETURNING consecutive_failures, paused_at`, appID, micros(now)).Scan(&failures, &paused)
	if err != nil {
		return false, translate(err, "notification endpoint")
	}
	if paused.Valid || !notify.ShouldPause(failures) {
		return false, nil
	}
	_, err = tx.ExecContext(ctx, `UPDATE notification_endpoints SET paused_at = $2 WHERE application_id = $1`, appID, micros(now))
	return err == nil, translate(err, "pause notifications")
}

// recordEndpointSuccess clears the consecutive failures of an application
// (a pause stays until a test notification succeeds).
func (s *Store) recordEndpointSuccess(ctx context.Context, tx *sql.Tx, appID string, now time.Time) error {
	_, err := tx.ExecContext(ctx, `
		UPDATE notification_endpoints SET consecutive_failures = 0, updated_at = $2
		WHERE application_id = $1 AND consecutive_failures <> 0`, appID, micros(now))
	return translate(err, "notification endpoint")
}
