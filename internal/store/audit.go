package store

import (
	"context"
	"database/sql"
	"errors"
	"time"

	"github.com/bankrail/bankrail/internal/audit"
	"github.com/bankrail/bankrail/internal/ids"
)

// writeAudit writes the pending audit entry of ctx's request, if one waits,
// inside tx: the commit path of every unit of work (InTx) calls it, so an
// entry exists if and only if the change it records does. It is marked
// written once tx commits; a rollback leaves it pending for a later unit
// of work of the same request.
func (s *Store) writeAudit(ctx context.Context, tx *sql.Tx) error {
	p := audit.From(ctx)
	if p == nil {
		return nil
	}
	e, pending := p.Entry()
	if !pending {
		return nil
	}
	if err := insertAudit(ctx, s.inside(tx), e); err != nil {
		return err
	}
	s.onCommit(tx, "audit entry", p.Written)
	return nil
}

// auditedTx is inTx for a change made through the API that is not a
// unit of work of a domain package (the sandbox clock, notification
// redelivery, test and resume): it writes the pending audit entry of ctx's
// request in the same transaction, just before the commit, as InTx does.
// A change that fails writes nothing.
func (s *Store) auditedTx(ctx context.Context, fn func(tx *sql.Tx) error) error {
	return s.inTx(ctx, func(tx *sql.Tx) error {
		if err := fn(tx); err != nil {
			return err
		}
		return s.writeAudit(ctx, tx)
	})
}

// insertAuditSQL writes an audit entry (a hot statement: every change
// through the API runs it).
const insertAuditSQL = `
	INSERT INTO audit_log (id, occurred_at, customer_id, actor_type, actor_id, action, resource_type, resource_id, request_id, ip)
	VALUES ($1, $2, COALESCE(NULLIF($3, ''), (SELECT customer_id FROM users WHERE id = $5), ''), $4, $5, $6, $7, $8, $9, $10)`

// insertAudit writes one entry. A user's entry without a customer is put
// in the log of the user's customer. Inside a transaction on PostgreSQL it
// is queued (later): nothing reads its result.
func insertAudit(ctx context.Context, q querier, e audit.Entry) error {
	id := ids.New()
	what := "audit entry " + e.Action
	_, err := q.ExecContext(later(ctx, what), insertAuditSQL,
		id, micros(e.OccurredAt), e.CustomerID, e.ActorType, e.ActorID, e.Action, e.ResourceType, e.ResourceID,
		e.RequestID, e.IP)
	return translate(err, what)
}

// RecordFailedSignIn writes the audit entry of a refused grant, in a
// transaction of its own (nothing else changes). The actor is the user
// named username when it exists (its id, never the name typed, which may
// be a mistyped password), else the application of clientID; the entry
// goes to the user's customer, else the application's.
func (s *Store) RecordFailedSignIn(ctx context.Context, e audit.Entry, username, clientID string) error {
	return s.inTx(ctx, func(tx *sql.Tx) error {
		var userID, userCustomer, appCustomer string
		if username != "" {
			err := tx.QueryRowContext(ctx, `SELECT id, customer_id FROM users WHERE username = $1`, username).Scan(&userID, &userCustomer)
			if err != nil && !errors.Is(err, sql.ErrNoRows) {
				return translate(err, "user of a failed sign-in")
			}
		}
		if clientID != "" {
			err := tx.QueryRowContext(ctx, `SELECT customer_id FROM applications WHERE client_id = $1`, clientID).Scan(&appCustomer)
			if err != nil && !errors.Is(err, sql.ErrNoRows) {
				return translate(err, "application of a failed sign-in")
			}
		}
		e.ResourceType, e.ResourceID = "", ""
		switch {
		case userID != "":
			e.ActorType, e.ActorID, e.CustomerID = audit.ActorUser, userID, userCustomer
		case appCustomer != "":
			e.ActorType, e.ActorID, e.CustomerID = audit.ActorApplication, clientID, appCustomer
		default:
			e.ActorType, e.ActorID, e.CustomerID = audit.ActorApplication, "", ""
		}
		if appCustomer != "" {
			e.ResourceType, e.ResourceID = "application", clientID
		}
		if e.OccurredAt.IsZero() {
			e.OccurredAt = time.Now()
		}
		return insertAudit(ctx, tx, e)
	})
}
