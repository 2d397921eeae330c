package store

import (
	"context"
	"database/sql"
	"time"

	"github.com/bankrail/bankrail/internal/errs"
	"github.com/bankrail/bankrail/internal/mandate"
)

// amendments is the amendment repository over a querier, as mandates.
type amendments struct {
	s  *Store
	q  querier
	tx *sql.Tx
}

var _ mandate.AmendmentRepository = amendments{}

const amendmentColumns = `a.id, a.mandate_id, a.customer_id, a.track, a.initiator, a.status, a.details_reason, a.details_code,
	a.valid_from, a.valid_to, a.payment_limit, a.token, a.created_at, a.updated_at`

// scanAmendment reads one row of amendmentColumns.
func scanAmendment(row interface{ Scan(...any) error }) (mandate.Amendment, error) {
	var a mandate.Amendment
	var status, reason, code string
	var from, to, limit sql.NullInt64
	var created, updated int64
	if err := row.Scan(&a.ID, &a.MandateID, &a.CustomerID, &a.Track, &a.Initiator, &status, &reason, &code,
		&from, &to, &limit, &a.Token, &created, &updated); err != nil {
		return mandate.Amendment{}, err
	}
	a.Status = mandate.AmendmentStatus(status)
	if code != "" {
		a.Details = &mandate.Details{Reason: reason, Code: code}
	}
	if from.Valid {
		t := fromMicros(from.Int64)
		a.Changes.ValidityFrom = &t
	}
	if to.Valid {
		t := fromMicros(to.Int64)
		a.Changes.ValidityTo = &t
	}
	if limit.Valid {
		a.Changes.PaymentLimit = &limit.Int64
	}
	a.CreatedAt, a.UpdatedAt = fromMicros(created), fromMicros(updated)
	return a, nil
}

// nullTime is a nullable stored time from an optional one.
func nullTime(t *time.Time) sql.NullInt64 {
	if t == nil {
		return sql.NullInt64{}
	}
	return nullMicros(*t)
}

// Create inserts a and its EventAmendmentRequested event; the mandate's
// open amendment makes it CONFLICT.
func (r amendments) Create(ctx context.Context, a mandate.Amendment) error {
	if err := inUnitOfWork(r.tx, "create amendment"); err != nil {
		return err
	}
	var limit sql.NullInt64
	if a.Changes.PaymentLimit != nil {
		limit = sql.NullInt64{Int64: *a.Changes.PaymentLimit, Valid: true}
	}
	_, err := r.tx.ExecContext(ctx, `
		INSERT INTO mandate_amendments (id, mandate_id, customer_id, track, initiator, status, valid_from, valid_to,
			payment_limit, token, created_at, updated_at)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)`,
		a.ID, a.MandateID, a.CustomerID, a.Track, a.Initiator, string(a.Status), nullTime(a.Changes.ValidityFrom),
		nullTime(a.Changes.ValidityTo), limit, a.Token, micros(a.CreatedAt), micros(a.UpdatedAt))
	if isUniqueViolation(err) {
		return errs.E(errs.Conflict, "The mandate has an amendment awaiting the payer's approval; recall it or wait for the answer.")
	}
	if err := translate(err, "amendment "+a.ID); err != nil {
		return err
	}
	return appendNextEvent(ctx, r.tx, a.CustomerID, mandate.SubjectAmendment, a.ID, mandate.EventAmendmentRequested, string(a.Status), a.CreatedAt)
}

// Get reads an amendment visible to viewerCustomerID; a recalled one is
// NotFound.
func (r amendments) Get(ctx context.Context, viewerCustomerID, id string) (mandate.Amendment, error) {
	a, err := scanAmendment(r.q.QueryRowContext(ctx, `SELECT `+amendmentColumns+` FROM mandate_amendments a
		WHERE a.id = $2 AND a.status <> 'RECALLED' AND `+visibleTo("a.customer_id", 1), viewerCustomerID, id))
	return a, translate(err, "amendment "+id)
}

// GetByID reads any amendment.
func (r amendments) GetByID(ctx context.Context, id string) (mandate.Amendment, error) {
	a, err := scanAmendment(r.q.QueryRowContext(ctx, `SELECT `+amendmentColumns+` FROM mandate_amendments a WHERE a.id = $1`, id))
	return a, translate(err, "amendment "+id)
}

// OpenOf reads the open amendment of a mandate.
func (r amendments) OpenOf(ctx context.Context, mandateID string) (mandate.Amendment, error) {
	a, err := scanAmendment(r.q.QueryRowContext(ctx, `SELECT `+amendmentColumns+` FROM mandate_amendments a
		WHERE a.mandate_id = $1 AND a.status = 'AWAITING_APPROVAL'`, mandateID))
	return a, translate(err, "open amendment of mandate "+mandateID)
}

// End saves an answered amendment while it is still open, with its event.
func (r amendments) End(ctx context.Context, a mandate.Amendment, eventType string) error {
	if err := inUnitOfWork(r.tx, "end amendment"); err != nil {
		return err
	}
	var reason, code string
	if a.Details != nil {
		reason, code = a.Details.Reason, a.Details.Code
	}
	res, err := r.tx.ExecContext(ctx, `
		UPDATE mandate_amendments SET status = $2, details_reason = $3, details_code = $4, updated_at = $5
		WHERE id = $1 AND status = 'AWAITING_APPROVAL'`,
		a.ID, string(a.Status), reason, code, micros(a.UpdatedAt))
	if err := expectOne(res, err, "amendment "+a.ID); errs.Is(err, errs.NotFound) {
		return errs.E(errs.Conflict, "The amendment was answered meanwhile.")
	} else if err != nil {
		return err
	}
	return appendNextEvent(ctx, r.tx, a.CustomerID, mandate.SubjectAmendment, a.ID, eventType, string(a.Status), a.UpdatedAt)
}

// DueToAbandon returns ids of open amendments created at or before cutoff
// (a base time) on their customer's clock, which adds the offset of the
// tenant's sandbox clock.
func (r amendments) DueToAbandon(ctx context.Context, cutoff time.Time, limit int) ([]string, error) {
	return queryIDs(ctx, r.q, "amendments due to be abandoned", `SELECT id FROM mandate_amendments
		WHERE status = 'AWAITING_APPROVAL' AND created_at <= $3
			AND created_at <= CAST($1 AS BIGINT) + `+tenantOffsetSQL("mandate_amendments.customer_id")+`
		ORDER BY created_at, id LIMIT $2`, micros(cutoff), limit, micros(cutoff)+maxOffsetMicros)
}
