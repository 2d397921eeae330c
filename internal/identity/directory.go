package identity

import "context"

// Directory lists identities for administrators (the `list` commands of
// bankrail customer, application and user). Lists are ordered by creation
// time, then id; an empty customerID lists every customer's records.
type Directory interface {
	Customers(ctx context.Context) ([]Customer, error)
	Applications(ctx context.Context, customerID string) ([]Application, error)
	Users(ctx context.Context, customerID string) ([]User, error)
}
