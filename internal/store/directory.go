package store

import (
	"context"

	"github.com/bankrail/bankrail/internal/identity"
	"github.com/bankrail/bankrail/internal/ledger"
)

// Directory lists customers, applications and users for administrators.
func (s *Store) Directory() identity.Directory { return directory{q: s.read} }

// directory implements identity.Directory over a querier.
type directory struct{ q querier }

var _ identity.Directory = directory{}

// Customers lists every customer.
func (d directory) Customers(ctx context.Context) ([]identity.Customer, error) {
	return listRows(ctx, d.q, "customers", scanCustomer,
		`SELECT `+customerColumns+` FROM customers ORDER BY created_at, id`)
}

// Applications lists the applications of customerID, or all when empty.
func (d directory) Applications(ctx context.Context, customerID string) ([]identity.Application, error) {
	return listRows(ctx, d.q, "applications", scanApplication,
		`SELECT `+applicationColumns+` FROM applications WHERE $1 = '' OR customer_id = $1 ORDER BY created_at, id`, customerID)
}

// Users lists the users of customerID, or all when empty.
func (d directory) Users(ctx context.Context, customerID string) ([]identity.User, error) {
	return listRows(ctx, d.q, "users", scanUser,
		`SELECT `+userColumns+` FROM users WHERE $1 = '' OR customer_id = $1 ORDER BY created_at, id`, customerID)
}

// listRows runs query and scans every row with scan.
func listRows[T any](ctx context.Context, q querier, what string, scan func(interface{ Scan(...any) error }) (T, error), query string, args ...any) ([]T, error) {
	rows, err := q.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, translate(err, "list "+what)
	}
	defer rows.Close()
	out := []T{}
	for rows.Next() {
		v, err := scan(rows)
		if err != nil {
			return nil, translate(err, "list "+what)
		}
		out = append(out, v)
	}
	return out, translate(rows.Err(), "list "+what)
}

// AccountsOf lists the Connect accounts of customerID (only its own), or
// every account when it is empty, oldest first: for administrators
// (bankrail account list), who see every customer.
func (s *Store) AccountsOf(ctx context.Context, customerID string) ([]ledger.Account, error) {
	return listRows(ctx, s.read, "accounts", scanAccount,
		`SELECT `+accountColumns+` FROM ledger_accounts a WHERE $1 = '' OR a.customer_id = $1 ORDER BY a.created_at, a.id`, customerID)
}

// AccountByID reads the account id, whoever its customer: for
// administrators (bankrail account get).
func (s *Store) AccountByID(ctx context.Context, id string) (ledger.Account, error) {
	a, err := scanAccount(s.read.QueryRowContext(ctx, `SELECT `+accountColumns+` FROM ledger_accounts a WHERE a.id = $1`, id))
	return a, translate(err, "account "+id)
}
