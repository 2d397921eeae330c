package store

import (
	"cmp"
	"context"
	"database/sql"
	"slices"
	"strconv"
	"time"

	"github.com/bankrail/bankrail/internal/errs"
	"github.com/bankrail/bankrail/internal/paging"
	"github.com/bankrail/bankrail/internal/transfer"
)

// transfers is the repository of transfers and their bank files over a
// unit of work's transaction or the read pool.
type transfers struct {
	s *Store
	q querier
}

var (
	_ transfer.Repository = transfers{}
	_ transfer.Repos      = (*Tx)(nil)
)

// Transfers is the transfer repository inside the transaction.
func (t *Tx) Transfers() transfer.Repository { return transfers{s: t.s, q: t.tx} }

// Transfers reads transfers and files outside any unit of work (their
// writes belong in a unit of work, Tx.Transfers).
func (s *Store) Transfers() transfer.Repository { return transfers{s: s, q: s.read} }

const transferColumns = `id, kind, owner_id, customer_id, account_id, debtor_iban, debtor_name, creditor_name, creditor_iban, amount,
	currency, remittance, execution_date, scenario, state, COALESCE(file_id, ''), reason, created_at, updated_at`

func scanTransfer(row interface{ Scan(...any) error }) (transfer.Transfer, error) {
	var t transfer.Transfer
	var kind, state string
	var created, updated int64
	err := row.Scan(&t.ID, &kind, &t.OwnerID, &t.CustomerID, &t.AccountID, &t.DebtorIBAN, &t.DebtorName, &t.CreditorName, &t.CreditorIBAN,
		&t.Amount, &t.Currency, &t.Remittance, &t.ExecutionDate, &t.Scenario, &state, &t.FileID, &t.Reason, &created, &updated)
	t.Kind, t.State = transfer.Kind(kind), transfer.State(state)
	t.CreatedAt, t.UpdatedAt = fromMicros(created), fromMicros(updated)
	return t, err
}

// Queue inserts t unless a transfer with its id is there.
func (r transfers) Queue(ctx context.Context, t transfer.Transfer) error {
	_, err := r.q.ExecContext(ctx, `INSERT INTO transfers (id, kind, owner_id, customer_id, account_id, debtor_iban, debtor_name, creditor_name,
		creditor_iban, amount, currency, remittance, execution_date, scenario, state, created_at, updated_at)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17) ON CONFLICT (id) DO NOTHING`,
		t.ID, string(t.Kind), t.OwnerID, t.CustomerID, t.AccountID, t.DebtorIBAN, t.DebtorName, t.CreditorName, t.CreditorIBAN, t.Amount,
		t.Currency, t.Remittance, t.ExecutionDate, t.Scenario, string(t.State), micros(t.CreatedAt), micros(t.CreatedAt))
	return translate(err, "transfer "+t.ID)
}

// Get reads a transfer.
func (r transfers) Get(ctx context.Context, id string) (transfer.Transfer, error) {
	t, err := scanTransfer(r.q.QueryRowContext(ctx, `SELECT `+transferColumns+` FROM transfers WHERE id = $1`, id))
	return t, translate(err, "transfer "+id)
}

// Claim files up to limit queued transfers: one UPDATE of the rows its
// subquery picks (locked, and on PostgreSQL skipping rows another claim
// holds), so a transfer is claimed once.
func (r transfers) Claim(ctx context.Context, fileID, customerID string, limit int, date string, now time.Time) ([]transfer.Transfer, error) {
	args := []any{fileID, date, micros(now), limit}
	only := ""
	if customerID != "" {
		only, args = ` AND customer_id = $5`, append(args, customerID)
	}
	// The pick is a materialised CTE on PostgreSQL: a subquery with LIMIT
	// and SKIP LOCKED that the plan rescans would pick other rows each
	// time (and file more than limit). SQLite evaluates IN (...) once.
	pick := `SELECT id FROM transfers WHERE state = 'QUEUED'` + only + ` ORDER BY created_at, id LIMIT $4` + r.s.skipLocked()
	with, in := "", pick
	if r.s.dialect == Postgres {
		with, in = `WITH picked AS MATERIALIZED (`+pick+`) `, `SELECT id FROM picked`
	}
	rows, err := r.q.QueryContext(ctx, with+`UPDATE transfers SET state = 'FILED', file_id = $1, execution_date = $2, updated_at = $3
		WHERE id IN (`+in+`) AND state = 'QUEUED' RETURNING `+transferColumns, args...)
	if err != nil {
		return nil, translate(err, "queued transfers")
	}
	out, err := collect(rows, scanTransfer)
	if err != nil {
		return nil, translate(err, "queued transfers")
	}
	slices.SortFunc(out, func(a, b transfer.Transfer) int {
		return cmp.Or(a.CreatedAt.Compare(b.CreatedAt), cmp.Compare(a.ID, b.ID))
	})
	return out, nil
}

// InFile lists the transfers of a file.
func (r transfers) InFile(ctx context.Context, fileID string) ([]transfer.Transfer, error) {
	rows, err := r.q.QueryContext(ctx, `SELECT `+transferColumns+` FROM transfers WHERE file_id = $1 ORDER BY id`, fileID)
	if err != nil {
		return nil, translate(err, "transfers of file "+fileID)
	}
	out, err := collect(rows, scanTransfer)
	return out, translate(err, "transfers of file "+fileID)
}

// Answer moves a transfer from one state to another.
func (r transfers) Answer(ctx context.Context, id string, from, to transfer.State, reason string, now time.Time) error {
	res, err := r.q.ExecContext(ctx, `UPDATE transfers SET state = $2, reason = $3, updated_at = $4 WHERE id = $1 AND state = $5`,
		id, string(to), reason, micros(now), string(from))
	if err := expectOne(res, err, "transfer "+id); errs.Is(err, errs.NotFound) {
		return errs.E(errs.Conflict, "The transfer %s changed meanwhile; it is no longer %s.", id, from)
	} else if err != nil {
		return err
	}
	return nil
}

// AddFile inserts a file; one whose MsgId is taken (an OUT file's on the
// instance, an IN file's for its customer) is CONFLICT without aborting the transaction (ON CONFLICT DO NOTHING).
func (r transfers) AddFile(ctx context.Context, f transfer.File) error {
	res, err := r.q.ExecContext(ctx, `INSERT INTO transfer_files (id, msg_id, message, direction, customer_id, original, tx_count,
		amount, currency, body, created_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11) ON CONFLICT DO NOTHING`,
		f.ID, f.MsgID, f.Message, string(f.Direction), f.CustomerID, f.Original, f.Count, f.Sum, f.Currency, string(f.Body), micros(f.CreatedAt))
	if err := expectOne(res, err, "bank file "+f.MsgID); errs.Is(err, errs.NotFound) {
		return errs.E(errs.Conflict, "The bank file %s (%s) is there already.", f.MsgID, f.Direction)
	} else if err != nil {
		return err
	}
	return nil
}

const fileColumns = `id, msg_id, message, direction, customer_id, original, tx_count, amount, currency, created_at, delivered_at`

func scanFile(row interface{ Scan(...any) error }, body *string) (transfer.File, error) {
	var f transfer.File
	var dir string
	var created int64
	var delivered sql.NullInt64
	dest := []any{&f.ID, &f.MsgID, &f.Message, &dir, &f.CustomerID, &f.Original, &f.Count, &f.Sum, &f.Currency, &created, &delivered}
	if body != nil {
		dest = append(dest, body)
	}
	err := row.Scan(dest...)
	f.Direction, f.CreatedAt, f.DeliveredAt = transfer.Direction(dir), fromMicros(created), fromNullMicros(delivered)
	if body != nil {
		f.Body = []byte(*body)
	}
	return f, err
}

func scanFileWithBody(row interface{ Scan(...any) error }) (transfer.File, error) {
	var body string
	return scanFile(row, &body)
}

// File reads a file with its body.
func (r transfers) File(ctx context.Context, viewerCustomerID, id string) (transfer.File, error) {
	q, args := `SELECT `+fileColumns+`, body FROM transfer_files WHERE id = $1 AND customer_id = ''`, []any{id}
	if viewerCustomerID != "" {
		q, args = `SELECT `+fileColumns+`, body FROM transfer_files WHERE id = $1 AND `+visibleTo("customer_id", 2), append(args, viewerCustomerID)
	}
	f, err := scanFileWithBody(r.q.QueryRowContext(ctx, q, args...))
	return f, translate(err, "bank file "+id)
}

// FileByMsgID reads a file by direction and MsgId (an IN file's of
// customerID).
func (r transfers) FileByMsgID(ctx context.Context, d transfer.Direction, customerID, msgID string) (transfer.File, error) {
	f, err := scanFileWithBody(r.q.QueryRowContext(ctx, `SELECT `+fileColumns+`, body FROM transfer_files
		WHERE direction = $1 AND msg_id = $2 AND (direction = 'OUT' OR customer_id = $3)`, string(d), msgID, customerID))
	return f, translate(err, "bank file "+msgID)
}

// Files lists files newest first, one page at a time (offset paging: files
// are few, a few a day).
func (r transfers) Files(ctx context.Context, viewerCustomerID string, sandbox bool, f transfer.FileFilter) (paging.Page[transfer.File], error) {
	where, args := `customer_id = ''`, []any{}
	switch {
	case sandbox && viewerCustomerID != "":
		where, args = visibleTo("customer_id", 1), append(args, viewerCustomerID)
	case sandbox:
		where = `customer_id <> ''`
	}
	if f.Direction != "" {
		args = append(args, string(f.Direction))
		where += ` AND direction = $` + strconv.Itoa(len(args))
	}
	var total int
	if err := r.q.QueryRowContext(ctx, `SELECT COUNT(*) FROM transfer_files WHERE `+where, args...).Scan(&total); err != nil {
		return paging.Page[transfer.File]{}, translate(err, "bank files")
	}
	page, limit := max(f.Page, 1), f.Limit
	if limit <= 0 {
		limit = 20
	}
	args = append(args, limit, (page-1)*limit)
	rows, err := r.q.QueryContext(ctx, `SELECT `+fileColumns+` FROM transfer_files WHERE `+where+
		` ORDER BY created_at DESC, id DESC LIMIT $`+strconv.Itoa(len(args)-1)+` OFFSET $`+strconv.Itoa(len(args)), args...)
	if err != nil {
		return paging.Page[transfer.File]{}, translate(err, "bank files")
	}
	items, err := collect(rows, func(row interface{ Scan(...any) error }) (transfer.File, error) { return scanFile(row, nil) })
	if err != nil {
		return paging.Page[transfer.File]{}, translate(err, "bank files")
	}
	return paging.Page[transfer.File]{Items: items, Total: total}, nil
}

// Undelivered lists the production OUT files not yet in the folder.
func (r transfers) Undelivered(ctx context.Context, limit int) ([]transfer.File, error) {
	rows, err := r.q.QueryContext(ctx, `SELECT `+fileColumns+`, body FROM transfer_files
		WHERE direction = 'OUT' AND delivered_at IS NULL AND customer_id = '' ORDER BY created_at, id LIMIT $1`, limit)
	if err != nil {
		return nil, translate(err, "undelivered bank files")
	}
	out, err := collect(rows, scanFileWithBody)
	return out, translate(err, "undelivered bank files")
}

// Delivered records a file's delivery to the folder.
func (r transfers) Delivered(ctx context.Context, id string, at time.Time) error {
	_, err := r.q.ExecContext(ctx, `UPDATE transfer_files SET delivered_at = $2 WHERE id = $1 AND delivered_at IS NULL`, id, micros(at))
	return translate(err, "bank file "+id)
}

// collect scans every row of rows with scan and closes them.
func collect[T any](rows *sql.Rows, scan func(interface{ Scan(...any) error }) (T, error)) ([]T, error) {
	defer rows.Close()
	var out []T
	for rows.Next() {
		v, err := scan(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, rows.Err()
}
