package store

import (
	"context"
	"database/sql"
	"fmt"
	"strings"

	"github.com/bankrail/bankrail/internal/alias"
	"github.com/bankrail/bankrail/internal/audit"
	"github.com/bankrail/bankrail/internal/errs"
	"github.com/bankrail/bankrail/internal/paging"
	"github.com/bankrail/bankrail/internal/payment"
)

// aliases is the repository of alias orders and account aliases over a
// unit of work's transaction or the read pool.
type aliases struct {
	s  *Store
	q  querier
	tx *sql.Tx // nil outside a unit of work
}

var (
	_ alias.Repository      = aliases{}
	_ alias.Repos           = (*Tx)(nil)
	_ payment.AliasRepos    = (*Tx)(nil)
	_ payment.AliasAccounts = aliases{}
)

// Aliases is the alias repository inside the transaction.
func (t *Tx) Aliases() alias.Repository { return aliases{s: t.s, q: t.tx, tx: t.tx} }

// AliasAccounts resolves alias IBANs inside the transaction (incoming funds).
func (t *Tx) AliasAccounts() payment.AliasAccounts { return aliases{s: t.s, q: t.tx, tx: t.tx} }

// Aliases reads alias orders and aliases outside any unit of work (writes
// belong in one: Tx.Aliases).
func (s *Store) Aliases() alias.Repository { return aliases{s: s, q: s.onPool(s.read)} }

const orderColumns = `o.id, o.account_id, o.customer_id, o.status, o.requested, o.completed, o.scenario, o.failure,
	o.created_at, o.updated_at, o.completed_at`

func scanOrder(row interface{ Scan(...any) error }) (alias.Order, error) {
	var o alias.Order
	var status string
	var created, updated int64
	var completed sql.NullInt64
	err := row.Scan(&o.ID, &o.AccountID, &o.CustomerID, &status, &o.Requested, &o.Completed, &o.Scenario, &o.Failure,
		&created, &updated, &completed)
	o.Status, o.CreatedAt, o.UpdatedAt = alias.Status(status), fromMicros(created), fromMicros(updated)
	if completed.Valid {
		o.CompletedAt = fromMicros(completed.Int64)
	}
	return o, err
}

// CreateOrder inserts a new order.
func (r aliases) CreateOrder(ctx context.Context, o alias.Order) error {
	_, err := r.q.ExecContext(ctx, `
		INSERT INTO alias_orders (id, account_id, customer_id, status, requested, completed, scenario, failure, created_at, updated_at)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`,
		o.ID, o.AccountID, o.CustomerID, string(o.Status), o.Requested, o.Completed, o.Scenario, o.Failure,
		micros(o.CreatedAt), micros(o.UpdatedAt))
	if err := translate(err, "alias order "+o.ID); err != nil {
		return err
	}
	audit.Resource(ctx, "alias_order", o.ID)
	return nil
}

// Order reads an order visible to viewerCustomerID.
func (r aliases) Order(ctx context.Context, viewerCustomerID, id string) (alias.Order, error) {
	o, err := scanOrder(r.q.QueryRowContext(ctx, `SELECT `+orderColumns+` FROM alias_orders o WHERE o.id = $1 AND `+
		visibleTo("o.customer_id", 2), id, viewerCustomerID))
	return o, translate(err, "alias order "+id)
}

// LockOrder reads order id through an UPDATE that changes nothing: on
// PostgreSQL it holds the row until the transaction ends (a second worker
// waits, then reads the first one's outcome); on SQLite the transaction is
// the one writer anyway.
func (r aliases) LockOrder(ctx context.Context, id string) (alias.Order, error) {
	if r.tx == nil {
		return alias.Order{}, fmt.Errorf("alias order %s: LockOrder needs a unit of work", id)
	}
	o, err := scanOrder(r.q.QueryRowContext(ctx, `UPDATE alias_orders SET updated_at = updated_at WHERE id = $1
		RETURNING id, account_id, customer_id, status, requested, completed, scenario, failure, created_at, updated_at, completed_at`, id))
	return o, translate(err, "alias order "+id)
}

// aliasInsertColumns is how many values one alias row takes.
const aliasInsertColumns = 9

// Save inserts batch in one statement and saves o over from.
func (r aliases) Save(ctx context.Context, o alias.Order, from int, batch []alias.Alias) error {
	if r.tx == nil {
		return fmt.Errorf("alias order %s: Save needs a unit of work", o.ID)
	}
	if len(batch) > 0 {
		values := make([]string, len(batch))
		args := make([]any, 0, len(batch)*aliasInsertColumns)
		for i, a := range batch {
			n := i * aliasInsertColumns
			values[i] = fmt.Sprintf("($%d, $%d, $%d, $%d, $%d, $%d, $%d, $%d, $%d)", n+1, n+2, n+3, n+4, n+5, n+6, n+7, n+8, n+9)
			args = append(args, a.ID, a.AccountID, a.CustomerID, a.OrderID, a.Seq, a.IBAN, boolInt(a.Active),
				micros(a.CreatedAt), micros(a.UpdatedAt))
		}
		_, err := r.tx.ExecContext(ctx, `INSERT INTO account_aliases
			(id, account_id, customer_id, order_id, seq, iban, active, created_at, updated_at) VALUES `+strings.Join(values, ", "), args...)
		if err := translate(err, fmt.Sprintf("aliases %d.. of order %s", from, o.ID)); err != nil {
			return err
		}
	}
	res, err := r.tx.ExecContext(ctx, `UPDATE alias_orders SET status = $2, completed = $3, failure = $4, updated_at = $5, completed_at = $6
		WHERE id = $1 AND status = $7 AND completed = $8`,
		o.ID, string(o.Status), o.Completed, o.Failure, micros(o.UpdatedAt), nullMicros(o.CompletedAt), string(alias.Processing), from)
	if err := expectOne(res, err, "alias order "+o.ID); errs.Is(err, errs.NotFound) {
		return errs.E(errs.Conflict, "The alias order moved meanwhile; it no longer has %d aliases issued.", from)
	} else if err != nil {
		return err
	}
	return nil
}

// Taken returns those of ibans already held by an alias or an account.
func (r aliases) Taken(ctx context.Context, ibans []string) (map[string]bool, error) {
	out := make(map[string]bool)
	if len(ibans) == 0 {
		return out, nil
	}
	marks := make([]string, len(ibans))
	args := make([]any, len(ibans))
	for i, iban := range ibans {
		marks[i], args[i] = fmt.Sprintf("$%d", i+1), iban
	}
	in := strings.Join(marks, ", ")
	rows, err := r.q.QueryContext(ctx, `SELECT iban FROM account_aliases WHERE iban IN (`+in+`)
		UNION ALL SELECT iban FROM ledger_accounts WHERE iban IN (`+in+`)`, args...)
	if err != nil {
		return nil, translate(err, "taken IBANs")
	}
	defer rows.Close()
	for rows.Next() {
		var iban string
		if err := rows.Scan(&iban); err != nil {
			return nil, translate(err, "taken IBANs")
		}
		out[iban] = true
	}
	return out, translate(rows.Err(), "taken IBANs")
}

const aliasColumns = `a.id, a.account_id, a.customer_id, a.order_id, a.seq, a.iban, a.active, a.created_at, a.updated_at`

func scanAlias(row interface{ Scan(...any) error }) (alias.Alias, error) {
	var a alias.Alias
	var active int
	var created, updated int64
	err := row.Scan(&a.ID, &a.AccountID, &a.CustomerID, &a.OrderID, &a.Seq, &a.IBAN, &active, &created, &updated)
	a.Active, a.CreatedAt, a.UpdatedAt = active != 0, fromMicros(created), fromMicros(updated)
	return a, err
}

// Alias reads an alias visible to viewerCustomerID.
func (r aliases) Alias(ctx context.Context, viewerCustomerID, id string) (alias.Alias, error) {
	a, err := scanAlias(r.q.QueryRowContext(ctx, `SELECT `+aliasColumns+` FROM account_aliases a WHERE a.id = $1 AND `+
		visibleTo("a.customer_id", 2), id, viewerCustomerID))
	return a, translate(err, "account alias "+id)
}

// List returns one page of the aliases visible to viewerCustomerID, newest
// first (createdAt, then id: an order's aliases, issued together, last
// first), read from an index in order: account_aliases_customer_created,
// or account_aliases_account for one account; an order's few aliases are
// found by (order_id, seq) and sorted (readPage).
func (r aliases) List(ctx context.Context, viewerCustomerID string, f alias.Filter) (paging.Page[alias.Alias], error) {
	l := keysetList{what: "account aliases", table: "account_aliases", alias: "a", columns: aliasColumns,
		orderIndex: "account_aliases_customer_created", viewer: viewerCustomerID}
	switch {
	case f.OrderID != "":
		l.scope, l.scopeID = "order_id", f.OrderID
	case f.AccountID != "":
		l.scope, l.scopeID = "account_id", f.AccountID
	}
	if l.scope != "" {
		l.rowConds = append(l.rowConds, visibleCond(viewerCustomerID))
	}
	if f.OrderID != "" && f.AccountID != "" {
		l.rowConds = append(l.rowConds, keysetCond{"q.account_id = %s", f.AccountID})
	}
	return readPage(ctx, r.s, r.tx, l, f.Page, f.Limit, f.After, scanAlias,
		func(a alias.Alias) paging.Position { return paging.Position{CreatedAt: a.CreatedAt, ID: a.ID} })
}

// SetActive saves a's active flag.
func (r aliases) SetActive(ctx context.Context, a alias.Alias) error {
	res, err := r.q.ExecContext(ctx, `UPDATE account_aliases SET active = $2, updated_at = $3 WHERE id = $1`,
		a.ID, boolInt(a.Active), micros(a.UpdatedAt))
	if err := expectOne(res, err, "account alias "+a.ID); err != nil {
		return err
	}
	audit.Resource(ctx, "account_alias", a.ID)
	return nil
}

// aliasByIBANSQL reads the alias of an IBAN (a hot query: POST /payments
// to a Connect customer runs it).
const aliasByIBANSQL = `SELECT ` + aliasColumns + ` FROM account_aliases a WHERE a.iban = $1`

// ByIBAN reads the alias of iban.
func (r aliases) ByIBAN(ctx context.Context, iban string) (alias.Alias, error) {
	a, err := scanAlias(r.q.QueryRowContext(ctx, aliasByIBANSQL, iban))
	return a, translate(err, "account alias "+iban)
}

// AccountOfAlias returns the account of the alias with iban and whether
// the alias is active.
func (r aliases) AccountOfAlias(ctx context.Context, iban string) (string, bool, error) {
	a, err := r.ByIBAN(ctx, iban)
	return a.AccountID, a.Active, err
}

// boolInt is a flag as the portable schema stores it.
func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}
