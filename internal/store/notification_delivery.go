package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/bankrail/bankrail/internal/ids"
	"github.com/bankrail/bankrail/internal/notify"
)

// attachApplications fills the URL, secret and client id of each claim's
// application, read now so that a changed URL or secret applies at once.
func (s *Store) attachApplications(ctx context.Context, claims []notify.Claim) error {
	if len(claims) == 0 {
		return nil
	}
	type app struct {
		clientID, url, secret string
		chaos                 notify.Chaos
		rotation              notify.Rotation
		holding               bool
	}
	apps := map[string]app{}
	var args []any
	var ph []string
	for _, c := range claims {
		if _, ok := apps[c.ApplicationID]; !ok {
			apps[c.ApplicationID] = app{}
			args = append(args, c.ApplicationID)
			ph = append(ph, fmt.Sprintf("$%d", len(args)))
		}
	}
	rows, err := s.read.QueryContext(ctx, `SELECT a.id, a.client_id, a.notification_url, a.notification_secret,
			COALESCE(e.previous_secret, ''), e.previous_secret_until, `+chaosColumns+`,
			CASE WHEN COALESCE(c.reorder_percent, 0) > 0 THEN (SELECT COUNT(*) FROM (SELECT 1 FROM notifications h
				WHERE h.application_id = a.id AND h.status = 'PENDING' AND h.chaos_hold = '`+notify.ChaosReordered+`' LIMIT 1) x)
			ELSE 0 END
		FROM applications a
		LEFT JOIN notification_endpoints e ON e.application_id = a.id
		LEFT JOIN notification_chaos c ON c.application_id = a.id
		WHERE a.id IN (`+strings.Join(ph, ", ")+`)`, args...)
	if err != nil {
		return translate(err, "applications of notifications")
	}
	defer rows.Close()
	for rows.Next() {
		var id string
		var a app
		var until sql.NullInt64
		var holding int
		dest := append([]any{&id, &a.clientID, &a.url, &a.secret, &a.rotation.PreviousSecret, &until},
			append(chaosDest(&a.chaos), &holding)...)
		if err := rows.Scan(dest...); err != nil {
			return translate(err, "applications of notifications")
		}
		a.rotation.PreviousUntil, a.holding = fromNullMicros(until), holding > 0
		apps[id] = a
	}
	if err := rows.Err(); err != nil {
		return translate(err, "applications of notifications")
	}
	for i := range claims {
		a := apps[claims[i].ApplicationID]
		claims[i].ClientID, claims[i].AppURL, claims[i].Secret = a.clientID, a.url, a.secret
		claims[i].Chaos, claims[i].Rotation, claims[i].HoldingReorder = a.chaos, a.rotation, a.holding
	}
	return nil
}

// CompleteDeliveries records the outcomes of attempts in one transaction:
// each attempt, the notification's next state (only while the worker still
// holds its lease), and the application's consecutive failures, in the
// order of outcomes. It returns the applications that these failures
// paused. Statements are batched: a few per call, not a few per outcome.
func (s *Store) CompleteDeliveries(ctx context.Context, outcomes []notify.Outcome) ([]string, error) {
	var paused []string
	err := s.inTx(ctx, func(tx *sql.Tx) error {
		paused = paused[:0]
		attempted, err := deferChaos(ctx, tx, outcomes)
		if err != nil {
			return err
		}
		for chunk := range slices.Chunk(attempted, 200) {
			attempts := make([]notify.Attempt, 0, len(chunk))
			for _, o := range chunk {
				attempts = append(attempts, o.Attempt)
				if o.Duplicate != nil {
					attempts = append(attempts, *o.Duplicate)
				}
			}
			if err := insertAttempts(ctx, tx, attempts); err != nil {
				return err
			}
			if err := settleNotifications(ctx, tx, chunk); err != nil {
				return err
			}
		}
		if err := releaseChaosHolds(ctx, tx, attempted); err != nil {
			return err
		}
		cleared := map[string]bool{} // applications whose failures are already zero
		for _, o := range attempted {
			if !o.Attempt.Success && !notify.CountsTowardPause(o.Attempt) {
				continue // no receiver was asked: neither a failure nor a success
			}
			if o.Attempt.Success {
				if !cleared[o.ApplicationID] {
					if err := s.recordEndpointSuccess(ctx, tx, o.ApplicationID, o.At); err != nil {
						return err
					}
					cleared[o.ApplicationID] = true
				}
				continue
			}
			cleared[o.ApplicationID] = false
			pausedNow, err := s.recordEndpointFailure(ctx, tx, o.ApplicationID, o.At)
			if err != nil {
				return err
			}
			if pausedNow {
				paused = append(paused, o.ApplicationID)
			}
		}
		s.wakeAfterCommit(tx) // the next notification of each payment may now be due
		return nil
	})
	return paused, err
}

// settleNotifications moves each notification to its outcome's state in
// one statement, where the lease is still the worker's.
func settleNotifications(ctx context.Context, tx *sql.Tx, outcomes []notify.Outcome) error {
	rows := make([]string, len(outcomes))
	args := make([]any, 0, 6*len(outcomes))
	for i, o := range outcomes {
		var delivered sql.NullInt64
		if o.Status == notify.Delivered {
			delivered = nullMicros(o.At)
		}
		next := o.NextAttemptAt
		if next.IsZero() {
			next = o.At
		}
		n := len(args)
		rows[i] = fmt.Sprintf(`SELECT CAST($%d AS TEXT) AS id, CAST($%d AS TEXT) AS lease, CAST($%d AS TEXT) AS status,
			CAST($%d AS BIGINT) AS next, CAST($%d AS BIGINT) AS delivered, CAST($%d AS TEXT) AS err`, n+1, n+2, n+3, n+4, n+5, n+6)
		args = append(args, o.NotificationID, o.LeaseID, string(o.Status), micros(next), delivered, o.Attempt.Error)
	}
	_, err := tx.ExecContext(ctx, `
		UPDATE notifications SET status = v.status, next_attempt_at = v.next, delivered_at = v.delivered,
			last_error = v.err, locked_until = NULL, lease_id = NULL, chaos_hold = ''
		FROM (`+strings.Join(rows, " UNION ALL ")+`) AS v
		WHERE notifications.id = v.id AND notifications.lease_id = v.lease`, args...)
	return translate(err, "settle notifications")
}

// ReleaseNotifications gives back leases without an attempt (the worker
// stopped before the receiver answered), so that another worker may deliver
// them at once.
func (s *Store) ReleaseNotifications(ctx context.Context, claims []notify.Claim) error {
	return s.inTx(ctx, func(tx *sql.Tx) error {
		for _, c := range claims {
			if _, err := tx.ExecContext(ctx, `
				UPDATE notifications SET locked_until = NULL, lease_id = NULL, attempts = attempts - 1
				WHERE id = $1 AND lease_id = $2`, c.ID, c.LeaseID); err != nil {
				return translate(err, "release notification "+c.ID)
			}
		}
		return nil
	})
}

// insertAttempt records one delivery attempt.
func insertAttempt(ctx context.Context, tx *sql.Tx, a notify.Attempt) error {
	return insertAttempts(ctx, tx, []notify.Attempt{a})
}

// insertAttempts records delivery attempts in one statement.
func insertAttempts(ctx context.Context, tx *sql.Tx, attempts []notify.Attempt) error {
	rows := make([]string, len(attempts))
	args := make([]any, 0, 13*len(attempts))
	for i, a := range attempts {
		headers, err := json.Marshal(a.RequestHeaders)
		if err != nil {
			return fmt.Errorf("encode attempt headers: %w", err)
		}
		if a.ID == "" {
			a.ID = ids.New()
		}
		success := 0
		if a.Success {
			success = 1
		}
		ph := make([]string, 13)
		for j := range ph {
			ph[j] = fmt.Sprintf("$%d", len(args)+j+1)
		}
		rows[i] = "(" + strings.Join(ph, ", ") + ")"
		args = append(args, a.ID, a.NotificationID, a.Number, micros(a.At), a.URL, string(headers), string(a.RequestBody),
			a.ResponseStatus, a.ResponseBody, a.Latency.Microseconds(), a.Error, success, a.Chaos)
	}
	_, err := tx.ExecContext(ctx, `
		INSERT INTO notification_attempts (id, notification_id, number, started_at, url, request_headers, request_body,
			response_status, response_body, latency_us, error, success, chaos)
		VALUES `+strings.Join(rows, ", "), args...)
	return translate(err, "notification attempts")
}

// NotificationStats counts the PENDING notifications and the paused
// applications of every instance (for metrics).
func (s *Store) NotificationStats(ctx context.Context) (pending, paused int, err error) {
	err = s.read.QueryRowContext(ctx, `
		SELECT (SELECT COUNT(*) FROM notifications WHERE status = 'PENDING'),
		       (SELECT COUNT(*) FROM notification_endpoints WHERE paused_at IS NOT NULL)`).Scan(&pending, &paused)
	return pending, paused, translate(err, "notification stats")
}

// ExtendNotificationLeases moves the leases of the notifications still
// held under leases (claimed and not yet settled nor released) to until:
// the dispatcher's heartbeat, one statement.
func (s *Store) ExtendNotificationLeases(ctx context.Context, leases []string, until time.Time) error {
	if len(leases) == 0 {
		return nil
	}
	args := []any{micros(until)}
	in := inList(&args, leases)
	_, err := s.write.ExecContext(ctx, `UPDATE notifications SET locked_until = $1 WHERE lease_id IN (`+in+`)`, args...)
	return translate(err, "extend notification leases")
}
