package store

import (
	"context"
	"database/sql"
	"time"

	"github.com/bankrail/bankrail/internal/audit"
	"github.com/bankrail/bankrail/internal/notify"
	"github.com/bankrail/bankrail/notification"
)

var _ notify.ChaosStore = (*Store)(nil)

// chaosColumns are an application's chaos settings from notification_chaos
// c (LEFT JOINed: zero when it has none), read by chaosDest.
const chaosColumns = `COALESCE(c.duplicate_percent, 0), COALESCE(c.delay_percent, 0), COALESCE(c.delay_seconds, 0),
	COALESCE(c.reorder_percent, 0), COALESCE(c.completed_after_received_percent, 0), COALESCE(c.seed, 0)`

// chaosDest are the scan destinations of chaosColumns.
func chaosDest(c *notify.Chaos) []any {
	return []any{&c.DuplicatePercent, &c.DelayPercent, &c.DelaySeconds, &c.ReorderPercent, &c.CompletedAfterReceivedPercent, &c.Seed}
}

// NotificationChaos returns the chaos settings and the secret rotation of
// the application of clientID.
func (s *Store) NotificationChaos(ctx context.Context, clientID string) (notify.Chaos, notify.Rotation, error) {
	var c notify.Chaos
	var r notify.Rotation
	var until sql.NullInt64
	err := s.read.QueryRowContext(ctx, `SELECT `+chaosColumns+`, COALESCE(e.previous_secret, ''), e.previous_secret_until
		FROM applications a
		LEFT JOIN notification_chaos c ON c.application_id = a.id
		LEFT JOIN notification_endpoints e ON e.application_id = a.id
		WHERE a.client_id = $1`, clientID).Scan(append(chaosDest(&c), &r.PreviousSecret, &until)...)
	r.PreviousUntil = fromNullMicros(until)
	return c, r, translate(err, "application "+clientID)
}

// SetNotificationChaos replaces the chaos settings of the application of
// clientID.
func (s *Store) SetNotificationChaos(ctx context.Context, clientID string, c notify.Chaos, now time.Time) error {
	audit.Resource(ctx, "application", clientID)
	return s.auditedTx(ctx, func(tx *sql.Tx) error {
		var appID string
		if err := tx.QueryRowContext(ctx, `SELECT id FROM applications WHERE client_id = $1`, clientID).Scan(&appID); err != nil {
			return translate(err, "application "+clientID)
		}
		_, err := tx.ExecContext(ctx, `
			INSERT INTO notification_chaos (application_id, duplicate_percent, delay_percent, delay_seconds, reorder_percent,
				completed_after_received_percent, seed, updated_at)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
			ON CONFLICT (application_id) DO UPDATE SET duplicate_percent = $2, delay_percent = $3, delay_seconds = $4,
				reorder_percent = $5, completed_after_received_percent = $6, seed = $7, updated_at = $8`,
			appID, c.DuplicatePercent, c.DelayPercent, c.DelaySeconds, c.ReorderPercent, c.CompletedAfterReceivedPercent,
			c.Seed, micros(now))
		return translate(err, "notification chaos")
	})
}

// RotateNotificationSecret makes secret the notification secret of the
// application of clientID; the secret it replaces keeps signing (a second
// signature) until until. A rotation during another's overlap drops the
// oldest secret at once.
func (s *Store) RotateNotificationSecret(ctx context.Context, clientID, secret string, until, now time.Time) (notify.Rotation, error) {
	audit.Resource(ctx, "application", clientID)
	r := notify.Rotation{Secret: secret}
	err := s.auditedTx(ctx, func(tx *sql.Tx) error {
		var appID string
		err := tx.QueryRowContext(ctx, `SELECT id, notification_secret FROM applications WHERE client_id = $1`+s.forUpdate(),
			clientID).Scan(&appID, &r.PreviousSecret)
		if err != nil {
			return translate(err, "application "+clientID)
		}
		if _, err := tx.ExecContext(ctx, `UPDATE applications SET notification_secret = $2 WHERE id = $1`, appID, secret); err != nil {
			return translate(err, "rotate notification secret")
		}
		var prev sql.NullInt64
		if until.After(now) {
			prev, r.PreviousUntil = nullMicros(until), until
		} else {
			r.PreviousSecret = ""
		}
		_, err = tx.ExecContext(ctx, `
			INSERT INTO notification_endpoints (application_id, consecutive_failures, updated_at, previous_secret, previous_secret_until)
			VALUES ($1, 0, $2, $3, $4)
			ON CONFLICT (application_id) DO UPDATE SET previous_secret = $3, previous_secret_until = $4, updated_at = $2`,
			appID, micros(now), r.PreviousSecret, prev)
		return translate(err, "rotate notification secret")
	})
	return r, err
}

// deferChaos records the outcomes that chaos held back (no attempt: the
// attempt counted at claim is given back, the notification is marked and
// due again later, out of its payment's order when it is rekeyed) and
// returns the others.
func deferChaos(ctx context.Context, tx *sql.Tx, outcomes []notify.Outcome) ([]notify.Outcome, error) {
	attempted := outcomes[:0:0]
	for _, o := range outcomes {
		p := o.Deferred
		if p == nil {
			attempted = append(attempted, o)
			continue
		}
		rekey := ""
		if p.Rekey {
			rekey = ", ordering_key = id, seq = 1"
		}
		_, err := tx.ExecContext(ctx, `
			UPDATE notifications SET next_attempt_at = $3, attempts = attempts - 1, locked_until = NULL, lease_id = NULL,
				chaos = CASE WHEN chaos = '' THEN $4 ELSE chaos || ',' || $4 END, chaos_hold = $5`+rekey+`
			WHERE id = $1 AND lease_id = $2`, o.NotificationID, o.LeaseID, micros(p.Until), p.Mark, p.Hold)
		if err != nil {
			return nil, translate(err, "defer notification "+o.NotificationID)
		}
	}
	return attempted, nil
}

// releaseChaosHolds makes due at once (on the delivery's own clock) the
// notifications that a success releases: those its application held for
// reordering, created before it, of another payment; and, for a
// payment_received, its payment's COMPLETED held by rule-1 chaos. Only
// applications with those behaviours on release anything.
func releaseChaosHolds(ctx context.Context, tx *sql.Tx, outcomes []notify.Outcome) error {
	for _, o := range outcomes {
		if !o.Releases || !o.Attempt.Success {
			continue
		}
		received := "" // the payment whose rule-1 hold this delivery ends, if any
		if o.Type == notification.TypePaymentReceived {
			received = o.Payment
		}
		_, err := tx.ExecContext(ctx, `UPDATE notifications SET next_attempt_at = $1, chaos_hold = ''
			WHERE status = 'PENDING' AND application_id = $2 AND (
				(chaos_hold = $3 AND ordering_key <> $4 AND id < $5) OR
				(chaos_hold = $6 AND payment_id = $7 AND payment_id <> ''))`,
			micros(o.At), o.ApplicationID, notify.ChaosReordered, o.Key, o.NotificationID,
			notify.ChaosCompletedAfterReceived, received)
		if err != nil {
			return translate(err, "release notifications held by chaos")
		}
	}
	return nil
}
