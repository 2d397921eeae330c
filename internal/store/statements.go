package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/bankrail/bankrail/internal/errs"
	"github.com/bankrail/bankrail/internal/ledger"
	"github.com/bankrail/bankrail/internal/paging"
	"github.com/bankrail/bankrail/internal/statement"
)

// statements is the repository of applied statement entries, exceptions
// and import summaries over a unit of work's transaction or the read pool.
type statements struct {
	s *Store
	q querier
}

var (
	_ statement.Repository = statements{}
	_ statement.Repos      = (*Tx)(nil)
)

// Statements is the statement repository inside the transaction.
func (t *Tx) Statements() statement.Repository { return statements{s: t.s, q: t.s.inside(t.tx)} }

// Statements reads statement data outside any unit of work.
func (s *Store) Statements() statement.Repository { return statements{s: s, q: s.read} }

// Claim inserts c's key unless it is there; ON CONFLICT DO NOTHING leaves
// a PostgreSQL transaction usable (a unique violation would abort it), and
// a concurrent claim of the same key waits for the first to end.
func (r statements) Claim(ctx context.Context, c statement.Claim) (bool, error) {
	res, err := r.q.ExecContext(ctx, `INSERT INTO statement_entries (entry_key, identity, iban, import_id, created_at)
		VALUES ($1, $2, $3, $4, $5) ON CONFLICT (entry_key) DO NOTHING`, c.Key, c.Identity, c.IBAN, c.ImportID, micros(c.At))
	if err != nil {
		return false, translate(err, "statement entry "+c.Identity)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return false, fmt.Errorf("statement entry %s: %w", c.Identity, err)
	}
	return n == 1, nil
}

// AccountOf reads the account of iban, or of the alias with that IBAN.
func (r statements) AccountOf(ctx context.Context, iban string) (ledger.Account, bool, error) {
	a, err := scanAccount(r.q.QueryRowContext(ctx, `SELECT `+accountColumns+` FROM ledger_accounts a WHERE a.iban = $1`, iban))
	if err == nil {
		return a, false, nil
	}
	if !errors.Is(err, sql.ErrNoRows) {
		return ledger.Account{}, false, translate(err, "account "+iban)
	}
	var accountID string
	var active int
	err = r.q.QueryRowContext(ctx, `SELECT account_id, active FROM account_aliases WHERE iban = $1`, iban).Scan(&accountID, &active)
	if err != nil {
		return ledger.Account{}, false, translate(err, "account "+iban)
	}
	a, err = scanAccount(r.q.QueryRowContext(ctx, `SELECT `+accountColumns+` FROM ledger_accounts a WHERE a.id = $1`, accountID))
	return a, active == 0, translate(err, "account "+accountID)
}

const exceptionColumns = `id, import_id, entry_name, entry_key, iban, account_id, credit, amount, currency, end_to_end_id,
	reference, counterparty, booking_date, reason, status, resolution, resolved_by, resolved_at, created_at`

func scanException(row interface{ Scan(...any) error }) (statement.Exception, error) {
	var e statement.Exception
	var credit int
	var status string
	var resolved sql.NullInt64
	var created int64
	err := row.Scan(&e.ID, &e.ImportID, &e.Entry, &e.EntryKey, &e.IBAN, &e.AccountID, &credit, &e.Amount, &e.Currency,
		&e.EndToEndID, &e.Reference, &e.Party, &e.BookingDate, &e.Reason, &status, &e.Resolution, &e.ResolvedBy, &resolved, &created)
	e.Credit, e.Status, e.CreatedAt = credit == 1, statement.ExceptionStatus(status), fromMicros(created)
	if resolved.Valid {
		t := fromMicros(resolved.Int64)
		e.ResolvedAt = &t
	}
	return e, err
}

// AddException inserts e.
func (r statements) AddException(ctx context.Context, e statement.Exception) error {
	_, err := r.q.ExecContext(ctx, `INSERT INTO reconciliation_exceptions (`+exceptionColumns+`)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, NULL, $18)`,
		e.ID, e.ImportID, e.Entry, e.EntryKey, e.IBAN, e.AccountID, boolInt(e.Credit), e.Amount, e.Currency, e.EndToEndID,
		e.Reference, e.Party, e.BookingDate, e.Reason, string(e.Status), e.Resolution, e.ResolvedBy, micros(e.CreatedAt))
	return translate(err, "reconciliation exception "+e.ID)
}

// Exceptions lists exceptions, newest first, with their total: limit of
// them after the first offset, or, with after, the ones after that
// position (keyset, through reconciliation_exceptions_created or _status);
// Next is set when more follow.
func (r statements) Exceptions(ctx context.Context, status statement.ExceptionStatus, after *paging.Position, offset, limit int) (paging.Page[statement.Exception], error) {
	out := paging.Page[statement.Exception]{Items: []statement.Exception{}}
	if err := r.q.QueryRowContext(ctx, `SELECT COUNT(*) FROM reconciliation_exceptions WHERE ($1 = '' OR status = $1)`,
		string(status)).Scan(&out.Total); err != nil {
		return out, translate(err, "reconciliation exceptions")
	}
	where, args := listAfter("($1 = '' OR status = $1)", []any{string(status)}, after, &offset)
	rows, err := r.q.QueryContext(ctx, `SELECT `+exceptionColumns+` FROM reconciliation_exceptions
		WHERE `+where+` ORDER BY created_at DESC, id DESC `+listWindow(&args, limit, offset), args...)
	if err != nil {
		return out, translate(err, "reconciliation exceptions")
	}
	defer rows.Close()
	for rows.Next() {
		e, err := scanException(rows)
		if err != nil {
			return out, translate(err, "reconciliation exceptions")
		}
		if len(out.Items) == limit { // the one past the page: more follow
			last := out.Items[limit-1]
			out.Next = &paging.Position{CreatedAt: last.CreatedAt, ID: last.ID}
			break
		}
		out.Items = append(out.Items, e)
	}
	return out, translate(rows.Err(), "reconciliation exceptions")
}

// Resolve marks exception id RESOLVED while it is OPEN.
func (r statements) Resolve(ctx context.Context, id, note, by string, at time.Time) (statement.Exception, error) {
	res, err := r.q.ExecContext(ctx, `UPDATE reconciliation_exceptions SET status = $1, resolution = $2, resolved_by = $3,
		resolved_at = $4 WHERE id = $5 AND status = $6`,
		string(statement.ExceptionResolved), note, by, micros(at), id, string(statement.ExceptionOpen))
	if err != nil {
		return statement.Exception{}, translate(err, "reconciliation exception "+id)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return statement.Exception{}, fmt.Errorf("reconciliation exception %s: %w", id, err)
	}
	e, err := scanException(r.q.QueryRowContext(ctx, `SELECT `+exceptionColumns+` FROM reconciliation_exceptions WHERE id = $1`, id))
	if err != nil {
		return statement.Exception{}, translate(err, "reconciliation exception "+id)
	}
	if n == 0 {
		return statement.Exception{}, errs.E(errs.NotModifiable, "The reconciliation exception %s is %s already.", id, e.Status)
	}
	return e, nil
}

// SaveImport keeps s as JSON.
func (r statements) SaveImport(ctx context.Context, s statement.Summary) error {
	body, err := json.Marshal(s)
	if err != nil {
		return fmt.Errorf("statement import %s: %w", s.ID, err)
	}
	_, err = r.q.ExecContext(ctx, `INSERT INTO statement_imports (id, file_name, file_sha256, message, summary, created_at)
		VALUES ($1, $2, $3, $4, $5, $6)`, s.ID, s.File, s.SHA256, s.Message, string(body), micros(s.ImportedAt))
	return translate(err, "statement import "+s.ID)
}

// Imports lists the kept summaries, newest first, with their total:
// limit of them after the first offset, or, with after, the ones after
// that position (keyset, through statement_imports_created); Next is set
// when more follow.
func (r statements) Imports(ctx context.Context, after *paging.Position, offset, limit int) (paging.Page[statement.Summary], error) {
	out := paging.Page[statement.Summary]{Items: []statement.Summary{}}
	if err := r.q.QueryRowContext(ctx, `SELECT COUNT(*) FROM statement_imports`).Scan(&out.Total); err != nil {
		return out, translate(err, "statement imports")
	}
	where, args := listAfter("1 = 1", nil, after, &offset)
	rows, err := r.q.QueryContext(ctx, `SELECT id, created_at, summary FROM statement_imports WHERE `+where+`
		ORDER BY created_at DESC, id DESC `+listWindow(&args, limit, offset), args...)
	if err != nil {
		return out, translate(err, "statement imports")
	}
	defer rows.Close()
	var last paging.Position
	for rows.Next() {
		var id, body string
		var at int64
		if err := rows.Scan(&id, &at, &body); err != nil {
			return out, translate(err, "statement imports")
		}
		if len(out.Items) == limit { // the one past the page: more follow
			out.Next = &last
			break
		}
		var s statement.Summary
		if err := json.Unmarshal([]byte(body), &s); err != nil {
			return out, fmt.Errorf("statement imports: %w", err)
		}
		out.Items = append(out.Items, s)
		last = paging.Position{CreatedAt: fromMicros(at), ID: id}
	}
	return out, translate(rows.Err(), "statement imports")
}

// listAfter is the condition of an instance-wide list newest first
// (created_at, then id): cond with args, and with after, only the rows
// after that position, whose offset is then 0.
func listAfter(cond string, args []any, after *paging.Position, offset *int) (string, []any) {
	if after == nil {
		return cond, args
	}
	*offset = 0
	n := len(args)
	args = append(args, micros(after.CreatedAt), after.ID)
	return fmt.Sprintf("%s AND (created_at < $%d OR created_at = $%d AND id < $%d)", cond, n+1, n+1, n+2), args
}

// listWindow is the LIMIT of a page (one row past it, which says whether
// more follow) and its OFFSET, their values added to args.
func listWindow(args *[]any, limit, offset int) string {
	n := len(*args)
	*args = append(*args, limit+1, offset)
	return fmt.Sprintf("LIMIT $%d OFFSET $%d", n+1, n+2)
}
