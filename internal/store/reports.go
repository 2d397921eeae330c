package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"time"

	"github.com/bankrail/bankrail/internal/audit"
	"github.com/bankrail/bankrail/internal/errs"
	"github.com/bankrail/bankrail/internal/paging"
	"github.com/bankrail/bankrail/internal/report"
)

// reports is the report repository: rows over a querier (a unit of work's
// transaction, or the pools), chunks in statements of their own.
type reports struct {
	s  *Store
	q  querier // reads
	tx *sql.Tx // nil outside a unit of work
}

var _ report.Repository = reports{}

// TenantOf returns the top-level customer of customerID (the tenant whose
// sandbox clock its jobs are due on).
func (s *Store) TenantOf(ctx context.Context, customerID string) (string, error) {
	top, _, err := s.TenantClocks().TenantClock(ctx, customerID)
	return top, err
}

// Reports is the report repository outside any unit of work.
func (s *Store) Reports() report.Repository { return reports{s: s, q: s.read} }

// Reports is the report repository inside the transaction.
func (t *Tx) Reports() report.Repository { return reports{s: t.s, q: t.tx, tx: t.tx} }

// writer is where writes go.
func (r reports) writer() querier {
	if r.tx != nil {
		return r.tx
	}
	return r.s.write
}

// storedParams is the JSON of a report's parameters (stored, never shown).
type storedParams struct {
	Start            time.Time `json:"start"`
	End              time.Time `json:"end"`
	CustomerID       string    `json:"customerId,omitempty"`
	AccountID        string    `json:"accountId,omitempty"`
	AllowEmpty       bool      `json:"allowEmpty,omitempty"`
	IncludeEventFees bool      `json:"includeEventFees,omitempty"`
	TransactionTypes []string  `json:"transactionTypes,omitempty"`
	DateFilter       string    `json:"dateFilter,omitempty"`
	BankAccountID    string    `json:"bankAccountId,omitempty"`
}

// Create inserts a REQUESTED report.
func (r reports) Create(ctx context.Context, rep report.Report) error {
	p, err := json.Marshal(storedParams(rep.Params))
	if err != nil {
		return fmt.Errorf("encode report parameters: %w", err)
	}
	audit.Resource(ctx, "report", rep.ID)
	_, err = r.writer().ExecContext(ctx, `
		INSERT INTO reports (id, customer_id, client_id, user_id, type, status, params, created_at)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
		rep.ID, rep.CustomerID, rep.ClientID, rep.UserID, string(rep.Type), string(rep.Status), string(p), micros(rep.CreatedAt))
	return translate(err, "report "+rep.ID)
}

const reportColumns = `id, customer_id, client_id, user_id, type, status, params, attempt, row_count, size_bytes,
	stored_bytes, failure, created_at, generated_at`

func scanReport(row interface{ Scan(...any) error }) (report.Report, error) {
	var rep report.Report
	var typ, status, params string
	var created int64
	var generated sql.NullInt64
	if err := row.Scan(&rep.ID, &rep.CustomerID, &rep.ClientID, &rep.UserID, &typ, &status, &params, &rep.Attempt,
		&rep.Rows, &rep.Size, &rep.Compressed, &rep.Failure, &created, &generated); err != nil {
		return report.Report{}, err
	}
	var p storedParams
	if err := json.Unmarshal([]byte(params), &p); err != nil {
		return report.Report{}, fmt.Errorf("decode parameters of report %s: %w", rep.ID, err)
	}
	rep.Type, rep.Status, rep.Params = report.Type(typ), report.Status(status), report.Params(p)
	rep.CreatedAt, rep.GeneratedAt = fromMicros(created), fromNullMicros(generated)
	return rep, nil
}

// Get returns a report whose creator is viewer or below it.
func (r reports) Get(ctx context.Context, viewer, id string) (report.Report, error) {
	rep, err := scanReport(r.q.QueryRowContext(ctx, `SELECT `+reportColumns+` FROM reports
		WHERE id = $1 AND `+visibleTo("customer_id", 2), id, viewer))
	return rep, translate(err, "report "+id)
}

// List returns a page of the reports viewer may see, newest first, read
// from the reports_customer_created index in order (readPage).
func (r reports) List(ctx context.Context, viewer string, f report.ListFilter) (paging.Page[report.Report], error) {
	l := keysetList{what: "reports", table: "reports", columns: reportColumns,
		orderIndex: "reports_customer_created", viewer: viewer}
	l.only(f.CustomerID)
	return readPage(ctx, r.s, nil, l, f.Page, f.Limit, f.After, scanReport,
		func(rep report.Report) paging.Position { return paging.Position{CreatedAt: rep.CreatedAt, ID: rep.ID} })
}

// Start moves a REQUESTED or GENERATING report to GENERATING under a new
// attempt and deletes the chunks of earlier attempts, in one transaction.
func (r reports) Start(ctx context.Context, id string, _ time.Time) (report.Report, error) {
	var rep report.Report
	err := r.s.inTx(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `UPDATE reports SET status = $2, attempt = attempt + 1
			WHERE id = $1 AND status IN ($3, $2)`, id, string(report.Generating), string(report.Requested))
		if err != nil {
			return translate(err, "start report "+id)
		}
		if n, _ := res.RowsAffected(); n == 1 {
			if _, err := tx.ExecContext(ctx, `DELETE FROM report_chunks WHERE report_id = $1 AND attempt < (SELECT attempt FROM reports WHERE id = $1)`, id); err != nil {
				return translate(err, "forget chunks of report "+id)
			}
		}
		rep, err = scanReport(tx.QueryRowContext(ctx, `SELECT `+reportColumns+` FROM reports WHERE id = $1`, id))
		return translate(err, "report "+id)
	})
	return rep, err
}

// WriteChunk stores one piece of an attempt's file.
func (r reports) WriteChunk(ctx context.Context, id string, attempt, seq int, data []byte) error {
	_, err := r.writer().ExecContext(ctx, `INSERT INTO report_chunks (report_id, attempt, seq, data) VALUES ($1, $2, $3, $4)`,
		id, attempt, seq, data)
	return translate(err, fmt.Sprintf("chunk %d of report %s", seq, id))
}

// Finish ends an attempt while the report is GENERATING under it, and
// forgets the chunks of any other attempt.
func (r reports) Finish(ctx context.Context, rep report.Report) error {
	res, err := r.writer().ExecContext(ctx, `
		UPDATE reports SET status = $3, row_count = $4, size_bytes = $5, stored_bytes = $6, failure = $7, generated_at = $8
		WHERE id = $1 AND attempt = $2 AND status = $9`,
		rep.ID, rep.Attempt, string(rep.Status), rep.Rows, rep.Size, rep.Compressed, rep.Failure, nullMicros(rep.GeneratedAt),
		string(report.Generating))
	if err := expectOne(res, err, "report "+rep.ID); errs.Is(err, errs.NotFound) {
		return errs.E(errs.Conflict, "Report %s is no longer generated by attempt %d.", rep.ID, rep.Attempt)
	} else if err != nil {
		return err
	}
	// Chunks a superseded attempt wrote after the newer one started.
	_, err = r.writer().ExecContext(ctx, `DELETE FROM report_chunks WHERE report_id = $1 AND attempt <> $2`, rep.ID, rep.Attempt)
	return translate(err, "forget stale chunks of report "+rep.ID)
}

// Chunk reads one piece of an attempt's file.
func (r reports) Chunk(ctx context.Context, id string, attempt, seq int) ([]byte, error) {
	var b []byte
	err := r.q.QueryRowContext(ctx, `SELECT data FROM report_chunks WHERE report_id = $1 AND attempt = $2 AND seq = $3`,
		id, attempt, seq).Scan(&b)
	return b, translate(err, fmt.Sprintf("chunk %d of report %s", seq, id))
}
