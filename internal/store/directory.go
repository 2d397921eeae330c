package store

import (
	"context"

	"github.com/bankrail/bankrail/internal/identity"
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
