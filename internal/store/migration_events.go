package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"time"

	"github.com/pressly/goose/v3"

	"github.com/bankrail/bankrail/internal/event"
	"github.com/bankrail/bankrail/internal/ids"
)

// The event log (version 5) is a Go migration because it moves each
// payment's status history out of the payments.status_history JSON column
// into rows, which SQL alone could only do with each engine's own JSON
// functions. The DDL is the portable subset, as in the .sql migrations.
const eventsDDL = `
CREATE TABLE events (
    subject_type TEXT NOT NULL,           -- payment, refund, payout, ...
    subject_id   TEXT NOT NULL,
    seq          INTEGER NOT NULL,        -- position among the subject's events, from 1
    id           TEXT NOT NULL,           -- uuid v7: time ordered, for references and cursors
    customer_id  TEXT NOT NULL,           -- the owner of the subject
    type         TEXT NOT NULL,           -- payment.status_changed, ...
    status       TEXT NOT NULL DEFAULT '',
    occurred_at  BIGINT NOT NULL,
    PRIMARY KEY (subject_type, subject_id, seq)
)%s;
-- "What became SETTLED yesterday" for a customer or the customers below a
-- PSP: by owner, type and time.
CREATE INDEX events_customer_type_time ON events (customer_id, type, occurred_at)`

// eventsTableOptions makes the event log a clustered table on SQLite (one
// B-tree for rows and primary key: an append writes two B-trees, not
// four). PostgreSQL has no such option; its heap is append friendly.
func eventsTableOptions(d Dialect) string {
	if d == SQLite {
		return " WITHOUT ROWID"
	}
	return ""
}

// goMigrations are the migrations written in Go, for engine d.
func goMigrations(d Dialect) []*goose.Migration {
	up := func(ctx context.Context, tx *sql.Tx) error { return eventsUp(ctx, tx, d) }
	rateLimits := func(ctx context.Context, tx *sql.Tx) error { return rateLimitsUp(ctx, tx, d) }
	return []*goose.Migration{
		goose.NewGoMigration(5, &goose.GoFunc{RunTx: up}, &goose.GoFunc{RunTx: eventsDown}),
		goose.NewGoMigration(appendOnlyVersion, &goose.GoFunc{RunTx: appendOnlyMigration(appendOnlyUp, d)},
			&goose.GoFunc{RunTx: appendOnlyMigration(appendOnlyDown, d)}),
		goose.NewGoMigration(rateLimitsVersion, &goose.GoFunc{RunTx: rateLimits}, &goose.GoFunc{RunTx: rateLimitsDown}),
		goose.NewGoMigration(paymentCountsVersion, &goose.GoFunc{RunTx: paymentCountsMigration(paymentCountsUp, d)},
			&goose.GoFunc{RunTx: paymentCountsMigration(paymentCountsDown, d)}),
		goose.NewGoMigration(storeCountsVersion, &goose.GoFunc{RunTx: paymentCountsMigration(storeCountsUp, d)},
			&goose.GoFunc{RunTx: paymentCountsMigration(storeCountsDown, d)}),
		goose.NewGoMigration(countKeysVersion, &goose.GoFunc{RunTx: paymentCountsMigration(countKeysUp, d)},
			&goose.GoFunc{RunTx: paymentCountsMigration(countKeysDown, d)}),
		goose.NewGoMigration(keysForeignKeyVersion, &goose.GoFunc{RunTx: keysForeignKeyMigration(keysForeignKeyUp, d)},
			&goose.GoFunc{RunTx: keysForeignKeyMigration(keysForeignKeyDown, d)}),
	}
}

// legacyStatusUpdate is an entry of the status_history JSON of version 2.
type legacyStatusUpdate struct {
	Status    string    `json:"newStatus"`
	CreatedAt time.Time `json:"createdAt"`
}

// eventsUp creates the event log, moves every payment's status history into
// it and drops the JSON column; idempotency keys lose their HTTP status.
func eventsUp(ctx context.Context, tx *sql.Tx, d Dialect) error {
	if _, err := tx.ExecContext(ctx, fmt.Sprintf(eventsDDL, eventsTableOptions(d))); err != nil {
		return fmt.Errorf("create events: %w", err)
	}
	type row struct{ id, customer, history string }
	rows, err := tx.QueryContext(ctx, `SELECT id, customer_id, status_history FROM payments ORDER BY created_at, id`)
	if err != nil {
		return fmt.Errorf("read status histories: %w", err)
	}
	var all []row
	for rows.Next() {
		var r row
		if err := rows.Scan(&r.id, &r.customer, &r.history); err != nil {
			rows.Close()
			return fmt.Errorf("read status histories: %w", err)
		}
		all = append(all, r)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return fmt.Errorf("read status histories: %w", err)
	}
	for _, r := range all {
		var hist []legacyStatusUpdate
		if err := json.Unmarshal([]byte(r.history), &hist); err != nil {
			return fmt.Errorf("decode status history of payment %s: %w", r.id, err)
		}
		for i, u := range hist {
			if i == 0 {
				continue // NEW_PAYMENT at creation is the payment row itself
			}
			if err := insertEvent(ctx, tx, event.Event{ID: ids.New(), CustomerID: r.customer,
				SubjectType: event.SubjectPayment, SubjectID: r.id, Seq: i + 1, Type: event.PaymentStatusChanged,
				Status: u.Status, OccurredAt: u.CreatedAt}); err != nil {
				return err
			}
		}
	}
	if _, err := tx.ExecContext(ctx, `ALTER TABLE payments DROP COLUMN status_history`); err != nil {
		return fmt.Errorf("drop payments.status_history: %w", err)
	}
	// Idempotency keys keep the domain's result; the status code is the
	// HTTP adapter's to choose.
	if _, err := tx.ExecContext(ctx, `ALTER TABLE idempotency_keys DROP COLUMN response_status`); err != nil {
		return fmt.Errorf("drop idempotency_keys.response_status: %w", err)
	}
	return nil
}

// eventsDown puts the status histories back into payments.status_history
// and drops the event log.
func eventsDown(ctx context.Context, tx *sql.Tx) error {
	if _, err := tx.ExecContext(ctx, `ALTER TABLE idempotency_keys ADD COLUMN response_status INTEGER`); err != nil {
		return fmt.Errorf("add idempotency_keys.response_status: %w", err)
	}
	if _, err := tx.ExecContext(ctx, `ALTER TABLE payments ADD COLUMN status_history TEXT NOT NULL DEFAULT '[]'`); err != nil {
		return fmt.Errorf("add payments.status_history: %w", err)
	}
	hist := map[string][]legacyStatusUpdate{}
	created, err := tx.QueryContext(ctx, `SELECT id, created_at FROM payments`)
	if err != nil {
		return fmt.Errorf("read payments: %w", err)
	}
	for created.Next() {
		var id string
		var at int64
		if err := created.Scan(&id, &at); err != nil {
			created.Close()
			return fmt.Errorf("read payments: %w", err)
		}
		hist[id] = []legacyStatusUpdate{{Status: "NEW_PAYMENT", CreatedAt: fromMicros(at)}}
	}
	created.Close()
	rows, err := tx.QueryContext(ctx, `SELECT subject_id, status, occurred_at FROM events
		WHERE subject_type = $1 AND type = $2 ORDER BY subject_id, seq`, event.SubjectPayment, event.PaymentStatusChanged)
	if err != nil {
		return fmt.Errorf("read payment events: %w", err)
	}
	for rows.Next() {
		var id, status string
		var at int64
		if err := rows.Scan(&id, &status, &at); err != nil {
			rows.Close()
			return fmt.Errorf("read payment events: %w", err)
		}
		hist[id] = append(hist[id], legacyStatusUpdate{Status: status, CreatedAt: fromMicros(at)})
	}
	rows.Close()
	for id, h := range hist {
		b, _ := json.Marshal(h) // plain structs: cannot fail
		if _, err := tx.ExecContext(ctx, `UPDATE payments SET status_history = $2 WHERE id = $1`, id, string(b)); err != nil {
			return fmt.Errorf("restore status history of %s: %w", id, err)
		}
	}
	_, err = tx.ExecContext(ctx, `DROP TABLE events`)
	return err
}
