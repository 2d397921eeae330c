// Package identity holds the parties of bankrail: customers (a tree of PSPs,
// TSPs and merchants), their applications (API clients) and their users, and
// the roles that decide what a user may do. It knows nothing of HTTP or SQL.
package identity

import (
	"context"
	"time"
)

// Customer is a merchant, or a PSP/TSP above merchants.
type Customer struct {
	ID        string
	Name      string
	ParentID  string // empty for a root customer
	CreatedAt time.Time
}

// Application is an API client of a customer.
type Application struct {
	ID                 string
	CustomerID         string
	ClientID           string
	ClientSecretHash   string
	NotificationURL    string
	NotificationSecret string // needed in clear to sign notifications
	CreatedAt          time.Time
}

// User is a login of a customer.
type User struct {
	ID           string
	CustomerID   string
	Username     string
	PasswordHash string
	Role         Role
	CreatedAt    time.Time
	// TokenGeneration is carried in the user's access tokens; bumping it
	// (a change of role, password or status) revokes every token issued before.
	TokenGeneration int64
	DisabledAt      time.Time // zero while the user may sign in
}

// Disabled reports whether the user may no longer sign in or act.
func (u User) Disabled() bool { return !u.DisabledAt.IsZero() }

// Store persists identities. Implementations return errs.NotFound for
// missing records and errs.Conflict for duplicates.
type Store interface {
	CreateCustomer(ctx context.Context, c Customer) error
	UpdateCustomer(ctx context.Context, c Customer) error
	GetCustomer(ctx context.Context, id string) (Customer, error)
	FindCustomerByName(ctx context.Context, name string) (Customer, error)
	// IsDescendant reports whether descendant is ancestor or below it.
	IsDescendant(ctx context.Context, ancestor, descendant string) (bool, error)
	CountCustomers(ctx context.Context) (int, error)

	CreateApplication(ctx context.Context, a Application) error
	UpdateApplication(ctx context.Context, a Application) error
	GetApplicationByClientID(ctx context.Context, clientID string) (Application, error)
	GetApplication(ctx context.Context, id string) (Application, error)
	// ApplicationsBelow lists the applications of ancestor and of the
	// customers below it, oldest first.
	ApplicationsBelow(ctx context.Context, ancestor string) ([]Application, error)
	// SetNotificationURL points application id at url (vetted by the
	// caller), audited as a change of the application.
	SetNotificationURL(ctx context.Context, id, url string) error

	CreateUser(ctx context.Context, u User) error
	UpdateUser(ctx context.Context, u User) error
	GetUserByUsername(ctx context.Context, username string) (User, error)
	GetUser(ctx context.Context, id string) (User, error)
}
