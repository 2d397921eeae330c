package store

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"github.com/bankrail/bankrail/internal/errs"
	"github.com/bankrail/bankrail/internal/ids"
	"github.com/bankrail/bankrail/internal/mandate"
	"github.com/bankrail/bankrail/internal/paging"
)

// mandates is the mandate repository over a querier: a unit of work's
// transaction (tx set), or the read pool outside one (reads only).
type mandates struct {
	s  *Store
	q  querier
	tx *sql.Tx // nil outside a unit of work
}

var (
	_ mandate.Repository = mandates{}
	_ mandate.Repos      = (*Tx)(nil)
)

// Mandates is the mandate repository inside the transaction.
func (t *Tx) Mandates() mandate.Repository { return mandates{s: t.s, q: t.tx, tx: t.tx} }

// Amendments is the amendment repository inside the transaction.
func (t *Tx) Amendments() mandate.AmendmentRepository {
	return amendments{s: t.s, q: t.tx, tx: t.tx}
}

// Mandates is the mandate repository outside any unit of work (reads).
func (s *Store) Mandates() mandate.Repository { return mandates{s: s, q: s.read} }

// Amendments is the amendment repository outside any unit of work (reads).
func (s *Store) Amendments() mandate.AmendmentRepository { return amendments{s: s, q: s.read} }

// inUnitOfWork fails a write attempted outside a unit of work.
func inUnitOfWork(tx *sql.Tx, what string) error {
	if tx == nil {
		return fmt.Errorf("%s: only inside a unit of work", what)
	}
	return nil
}

const mandateColumns = `m.id, m.customer_id, m.client_id, m.user_id, m.type, m.status, m.currency,
	m.payer_name, m.payer_iban, m.payer_sort_code, m.payer_account_number, m.payer_bsb,
	m.valid_from, m.valid_to, m.payment_limit, m.used_at, m.token, m.version, m.created_at, m.updated_at`

// scanMandate reads one row of mandateColumns.
func scanMandate(row interface{ Scan(...any) error }) (mandate.Mandate, error) {
	var m mandate.Mandate
	var typ, status string
	var from, created, updated int64
	var to, used sql.NullInt64
	ai := &m.Payer.AccountIdentifiers
	err := row.Scan(&m.ID, &m.CustomerID, &m.ClientID, &m.UserID, &typ, &status, &m.Currency,
		&m.Payer.Name, &ai.IBAN, &ai.SortCode, &ai.AccountNumber, &ai.BSB,
		&from, &to, &m.PaymentLimit, &used, &m.Token, &m.Version, &created, &updated)
	if err != nil {
		return mandate.Mandate{}, err
	}
	m.Type, m.Status = mandate.Type(typ), mandate.Status(status)
	m.Validity = mandate.Validity{From: fromMicros(from), To: fromNullMicros(to)}
	m.UsedAt, m.CreatedAt, m.UpdatedAt = fromNullMicros(used), fromMicros(created), fromMicros(updated)
	return m, nil
}

// Create inserts m and its EventRequested event.
func (r mandates) Create(ctx context.Context, m mandate.Mandate) error {
	if err := inUnitOfWork(r.tx, "create mandate"); err != nil {
		return err
	}
	ai := m.Payer.AccountIdentifiers
	_, err := r.tx.ExecContext(ctx, `
		INSERT INTO mandates (id, customer_id, client_id, user_id, type, status, currency,
			payer_name, payer_iban, payer_sort_code, payer_account_number, payer_bsb,
			valid_from, valid_to, payment_limit, used_at, token, version, created_at, updated_at)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20)`,
		m.ID, m.CustomerID, m.ClientID, m.UserID, string(m.Type), string(m.Status), m.Currency,
		m.Payer.Name, ai.IBAN, ai.SortCode, ai.AccountNumber, ai.BSB,
		micros(m.Validity.From), nullMicros(m.Validity.To), m.PaymentLimit, nullMicros(m.UsedAt), m.Token, m.Version,
		micros(m.CreatedAt), micros(m.UpdatedAt))
	if err := translate(err, "mandate "+m.ID); err != nil {
		return err
	}
	return appendNextEvent(ctx, r.tx, m.CustomerID, mandate.SubjectMandate, m.ID, mandate.EventRequested, string(m.Status), m.CreatedAt)
}

// Get reads a mandate of viewerCustomerID or of a customer below it.
func (r mandates) Get(ctx context.Context, viewerCustomerID, id string) (mandate.Mandate, error) {
	m, err := scanMandate(r.q.QueryRowContext(ctx, `SELECT `+mandateColumns+` FROM mandates m
		WHERE m.id = $2 AND `+visibleTo("m.customer_id", 1), viewerCustomerID, id))
	return m, translate(err, "mandate "+id)
}

// GetByID reads any mandate.
func (r mandates) GetByID(ctx context.Context, id string) (mandate.Mandate, error) {
	m, err := scanMandate(r.q.QueryRowContext(ctx, `SELECT `+mandateColumns+` FROM mandates m WHERE m.id = $1`, id))
	return m, translate(err, "mandate "+id)
}

// Lock reads mandate id and holds it until the unit of work ends.
func (r mandates) Lock(ctx context.Context, id string) (mandate.Mandate, error) {
	if err := inUnitOfWork(r.tx, "lock mandate"); err != nil {
		return mandate.Mandate{}, err
	}
	m, err := scanMandate(r.tx.QueryRowContext(ctx, `SELECT `+mandateColumns+` FROM mandates m WHERE m.id = $1`+r.s.forUpdate(), id))
	return m, translate(err, "mandate "+id)
}

// Save writes m over version m.Version and records eventType.
func (r mandates) Save(ctx context.Context, m mandate.Mandate, eventType string) error {
	if err := inUnitOfWork(r.tx, "save mandate"); err != nil {
		return err
	}
	res, err := r.tx.ExecContext(ctx, `
		UPDATE mandates SET status = $3, valid_from = $4, valid_to = $5, payment_limit = $6, used_at = $7,
			updated_at = $8, version = version + 1
		WHERE id = $1 AND version = $2`,
		m.ID, m.Version, string(m.Status), micros(m.Validity.From), nullMicros(m.Validity.To), m.PaymentLimit,
		nullMicros(m.UsedAt), micros(m.UpdatedAt))
	if err := expectOne(res, err, "mandate "+m.ID); errs.Is(err, errs.NotFound) {
		return errs.E(errs.Conflict, "The mandate changed meanwhile; try again.")
	} else if err != nil {
		return err
	}
	if eventType == "" {
		return nil
	}
	return appendNextEvent(ctx, r.tx, m.CustomerID, mandate.SubjectMandate, m.ID, eventType, string(m.Status), m.UpdatedAt)
}

// List returns one page of the mandates visible to viewerCustomerID,
// newest first, and the total, from one snapshot, read from the
// mandates_customer_created index in order (readPage).
func (r mandates) List(ctx context.Context, viewerCustomerID string, f mandate.ListFilter) (paging.Page[mandate.Mandate], error) {
	l := keysetList{what: "mandates", table: "mandates", alias: "m", columns: mandateColumns,
		orderIndex: "mandates_customer_created", viewer: viewerCustomerID}
	l.only(f.CustomerID)
	l.equal("status", string(f.Status))
	l.equal("type", string(f.Type))
	return readPage(ctx, r.s, r.tx, l, f.Page, f.Limit, f.After, scanMandate,
		func(m mandate.Mandate) paging.Position { return paging.Position{CreatedAt: m.CreatedAt, ID: m.ID} })
}

// DueToExpire returns ids of live mandates whose validity.to has passed on
// their customer's clock: now (the base time) plus the offset of the
// tenant's sandbox clock.
func (r mandates) DueToExpire(ctx context.Context, now time.Time, limit int) ([]string, error) {
	return queryIDs(ctx, r.q, "mandates due to expire", `SELECT id FROM mandates
		WHERE valid_to IS NOT NULL AND status IN ('REQUESTED', 'ACTIVE', 'SUSPENDED') AND valid_to <= $3
			AND valid_to <= CAST($1 AS BIGINT) + `+tenantOffsetSQL("mandates.customer_id")+`
		ORDER BY valid_to, id LIMIT $2`, micros(now), limit, micros(now)+maxOffsetMicros)
}

// queryIDs runs a query of ids.
func queryIDs(ctx context.Context, q querier, what, query string, args ...any) ([]string, error) {
	rows, err := q.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, translate(err, what)
	}
	defer rows.Close()
	out := []string{}
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			return nil, translate(err, what)
		}
		out = append(out, id)
	}
	return out, translate(rows.Err(), what)
}

// appendNextEvent records the next event of a subject (seq one past its
// last) in the event log.
func appendNextEvent(ctx context.Context, q querier, customerID, subjectType, subjectID, typ, status string, at time.Time) error {
	id := ids.New()
	_, err := q.ExecContext(ctx, `
		INSERT INTO events (id, customer_id, subject_type, subject_id, seq, type, status, occurred_at)
		VALUES ($1, $2, $3, $4, (SELECT COALESCE(MAX(seq), 0) + 1 FROM events WHERE subject_type = $3 AND subject_id = $4), $5, $6, $7)`,
		id, customerID, subjectType, subjectID, typ, status, micros(at))
	return translate(err, "event of "+subjectType+" "+subjectID)
}
