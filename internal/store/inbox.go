package store

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/bankrail/bankrail/internal/inbox"
	"github.com/bankrail/bankrail/internal/paging"
)

// inboxEntries is the sandbox inbox over a querier (a transaction to write,
// the read pool to list).
type inboxEntries struct{ q querier }

var _ inbox.Repository = inboxEntries{}

// Add keeps one received notification. The body is kept as text with
// invalid UTF-8 replaced (PostgreSQL TEXT refuses it).
func (r inboxEntries) Add(ctx context.Context, e inbox.Entry) error {
	headers, err := json.Marshal(e.Headers)
	if err != nil {
		return fmt.Errorf("encode inbox headers: %w", err)
	}
	valid := 0
	if e.SignatureValid {
		valid = 1
	}
	body := strings.ReplaceAll(strings.ToValidUTF8(string(e.Body), "\uFFFD"), "\x00", "")
	_, err = r.q.ExecContext(ctx, `
		INSERT INTO sandbox_inbox (id, customer_id, application_id, notification_id, type, received_at, headers, body,
			signature_valid, error)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`,
		e.ID, e.CustomerID, e.ApplicationID, e.NotificationID, e.Type, micros(e.ReceivedAt), string(headers), body, valid, e.Error)
	return translate(err, "sandbox inbox entry")
}

// Trim drops the entries of applicationID older than its newest keep.
func (r inboxEntries) Trim(ctx context.Context, applicationID string, keep int) error {
	_, err := r.q.ExecContext(ctx, `
		DELETE FROM sandbox_inbox WHERE application_id = $1 AND id NOT IN (
			SELECT id FROM sandbox_inbox WHERE application_id = $1 ORDER BY received_at DESC, id DESC LIMIT $2)`,
		applicationID, keep)
	return translate(err, "trim sandbox inbox")
}

// List returns one page of the entries the viewer may see, newest first.
func (r inboxEntries) List(ctx context.Context, viewer string, page, limit int) (inbox.Page, error) {
	var p inbox.Page
	cond := visibleTo("i.customer_id", 1)
	if err := r.q.QueryRowContext(ctx, `SELECT COUNT(*) FROM sandbox_inbox i WHERE `+cond, viewer).Scan(&p.TotalItems); err != nil {
		return inbox.Page{}, translate(err, "count sandbox inbox")
	}
	rows, err := r.q.QueryContext(ctx, `
		SELECT i.id, i.customer_id, i.application_id, COALESCE(a.client_id, ''), i.notification_id, i.type, i.received_at,
			i.headers, i.body, i.signature_valid, i.error
		FROM sandbox_inbox i LEFT JOIN applications a ON a.id = i.application_id
		WHERE `+cond+` ORDER BY i.received_at DESC, i.id DESC LIMIT $2 OFFSET $3`, viewer, limit, paging.Offset(page, limit))
	if err != nil {
		return inbox.Page{}, translate(err, "list sandbox inbox")
	}
	defer rows.Close()
	p.Items = []inbox.Entry{}
	for rows.Next() {
		var e inbox.Entry
		var at int64
		var headers, body string
		var valid int
		if err := rows.Scan(&e.ID, &e.CustomerID, &e.ApplicationID, &e.ClientID, &e.NotificationID, &e.Type, &at,
			&headers, &body, &valid, &e.Error); err != nil {
			return inbox.Page{}, translate(err, "list sandbox inbox")
		}
		if err := json.Unmarshal([]byte(headers), &e.Headers); err != nil {
			return inbox.Page{}, fmt.Errorf("decode inbox headers: %w", err)
		}
		e.ReceivedAt, e.Body, e.SignatureValid = fromMicros(at), []byte(body), valid == 1
		p.Items = append(p.Items, e)
	}
	return p, translate(rows.Err(), "list sandbox inbox")
}
