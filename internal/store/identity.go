package store

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/bankrail/bankrail/internal/audit"
	"github.com/bankrail/bankrail/internal/errs"
	"github.com/bankrail/bankrail/internal/identity"
)

var (
	_ identity.Store = (*Store)(nil)
	_ identity.Store = identityRepo{}
)

// identityRepo is the repository of customers, applications and users over
// a querier: a unit of work's transaction (tx set: a seed file is applied
// all or nothing), or the pools outside one.
type identityRepo struct {
	s           *Store
	read, write querier
	tx          *sql.Tx // nil outside a unit of work
}

// Identity is the identity repository inside the transaction.
func (t *Tx) Identity() identity.Store {
	return identityRepo{s: t.s, read: t.tx, write: t.tx, tx: t.tx}
}

// identity is the identity repository outside any unit of work: reads on
// the read pool, each write a transaction of its own.
func (s *Store) identity() identityRepo { return identityRepo{s: s, read: s.read, write: s.write} }

// inTx runs fn on the unit of work's transaction, or in a new one.
func (r identityRepo) inTx(ctx context.Context, fn func(tx *sql.Tx) error) error {
	if r.tx != nil {
		return fn(r.tx)
	}
	return r.s.inTx(ctx, fn)
}

// CreateCustomer inserts a customer and its rows in the closure table.
func (s *Store) CreateCustomer(ctx context.Context, c identity.Customer) error {
	return s.identity().CreateCustomer(ctx, c)
}

// UpdateCustomer changes a customer's name.
func (s *Store) UpdateCustomer(ctx context.Context, c identity.Customer) error {
	return s.identity().UpdateCustomer(ctx, c)
}

// GetCustomer reads one customer.
func (s *Store) GetCustomer(ctx context.Context, id string) (identity.Customer, error) {
	return s.identity().GetCustomer(ctx, id)
}

// FindCustomerByName returns the oldest customer with that name.
func (s *Store) FindCustomerByName(ctx context.Context, name string) (identity.Customer, error) {
	return s.identity().FindCustomerByName(ctx, name)
}

// IsDescendant reports whether descendant is ancestor itself or below it.
func (s *Store) IsDescendant(ctx context.Context, ancestor, descendant string) (bool, error) {
	return s.identity().IsDescendant(ctx, ancestor, descendant)
}

// CountCustomers counts every customer.
func (s *Store) CountCustomers(ctx context.Context) (int, error) {
	return s.identity().CountCustomers(ctx)
}

// CreateApplication inserts an application.
func (s *Store) CreateApplication(ctx context.Context, a identity.Application) error {
	return s.identity().CreateApplication(ctx, a)
}

// UpdateApplication rewrites an application's secrets and notification URL.
func (s *Store) UpdateApplication(ctx context.Context, a identity.Application) error {
	return s.identity().UpdateApplication(ctx, a)
}

// GetApplicationByClientID reads an application by its client id.
func (s *Store) GetApplicationByClientID(ctx context.Context, clientID string) (identity.Application, error) {
	return s.identity().GetApplicationByClientID(ctx, clientID)
}

// GetApplication reads an application by id.
func (s *Store) GetApplication(ctx context.Context, id string) (identity.Application, error) {
	return s.identity().GetApplication(ctx, id)
}

// CreateUser inserts a user.
func (s *Store) CreateUser(ctx context.Context, u identity.User) error {
	return s.identity().CreateUser(ctx, u)
}

// UpdateUser rewrites a user's password hash, role, token generation and
// status.
func (s *Store) UpdateUser(ctx context.Context, u identity.User) error {
	return s.identity().UpdateUser(ctx, u)
}

// GetUserByUsername reads a user by username.
func (s *Store) GetUserByUsername(ctx context.Context, username string) (identity.User, error) {
	return s.identity().GetUserByUsername(ctx, username)
}

// GetUser reads a user by id.
func (s *Store) GetUser(ctx context.Context, id string) (identity.User, error) {
	return s.identity().GetUser(ctx, id)
}

// CreateCustomer inserts a customer and its rows in the closure table.
func (r identityRepo) CreateCustomer(ctx context.Context, c identity.Customer) error {
	return r.inTx(ctx, func(tx *sql.Tx) error {
		if c.ParentID != "" {
			var one int
			err := tx.QueryRowContext(ctx, `SELECT 1 FROM customers WHERE id = $1`, c.ParentID).Scan(&one)
			if err != nil {
				return translate(err, "parent customer "+c.ParentID)
			}
		}
		_, err := tx.ExecContext(ctx,
			`INSERT INTO customers (id, name, parent_id, created_at) VALUES ($1, $2, $3, $4)`,
			c.ID, c.Name, nullString(c.ParentID), micros(c.CreatedAt))
		if err != nil {
			return translate(err, "customer "+c.ID)
		}
		_, err = tx.ExecContext(ctx, `
			INSERT INTO customer_tree (ancestor_id, descendant_id, depth)
			SELECT $1, $1, 0
			UNION ALL
			SELECT ancestor_id, $1, depth + 1 FROM customer_tree WHERE descendant_id = $2`,
			c.ID, c.ParentID)
		return translate(err, "customer tree")
	})
}

// UpdateCustomer changes a customer's name. Moving a customer in the tree is
// not supported.
func (r identityRepo) UpdateCustomer(ctx context.Context, c identity.Customer) error {
	res, err := r.write.ExecContext(ctx, `UPDATE customers SET name = $2 WHERE id = $1`, c.ID, c.Name)
	return expectOne(res, err, "customer "+c.ID)
}

const customerColumns = `id, name, COALESCE(parent_id, ''), created_at`

func scanCustomer(row interface{ Scan(...any) error }) (identity.Customer, error) {
	var c identity.Customer
	var created int64
	err := row.Scan(&c.ID, &c.Name, &c.ParentID, &created)
	c.CreatedAt = fromMicros(created)
	return c, err
}

// GetCustomer reads one customer.
func (r identityRepo) GetCustomer(ctx context.Context, id string) (identity.Customer, error) {
	c, err := scanCustomer(r.read.QueryRowContext(ctx, `SELECT `+customerColumns+` FROM customers WHERE id = $1`, id))
	return c, translate(err, "customer "+id)
}

// FindCustomerByName returns the oldest customer with that name.
func (r identityRepo) FindCustomerByName(ctx context.Context, name string) (identity.Customer, error) {
	c, err := scanCustomer(r.read.QueryRowContext(ctx,
		`SELECT `+customerColumns+` FROM customers WHERE name = $1 ORDER BY created_at, id LIMIT 1`, name))
	return c, translate(err, fmt.Sprintf("customer named %q", name))
}

// IsDescendant reports whether descendant is ancestor itself or below it.
func (r identityRepo) IsDescendant(ctx context.Context, ancestor, descendant string) (bool, error) {
	var n int
	err := r.read.QueryRowContext(ctx,
		`SELECT COUNT(*) FROM customer_tree WHERE ancestor_id = $1 AND descendant_id = $2`, ancestor, descendant).Scan(&n)
	if err != nil {
		return false, translate(err, "customer tree")
	}
	return n > 0, nil
}

// CountCustomers counts every customer.
func (r identityRepo) CountCustomers(ctx context.Context) (int, error) {
	var n int
	err := r.read.QueryRowContext(ctx, `SELECT COUNT(*) FROM customers`).Scan(&n)
	return n, translate(err, "count customers")
}

// CreateApplication inserts an application.
func (r identityRepo) CreateApplication(ctx context.Context, a identity.Application) error {
	_, err := r.write.ExecContext(ctx, `
		INSERT INTO applications (id, customer_id, client_id, client_secret_hash, notification_url, notification_secret, created_at)
		VALUES ($1, $2, $3, $4, $5, $6, $7)`,
		a.ID, a.CustomerID, a.ClientID, a.ClientSecretHash, a.NotificationURL, a.NotificationSecret, micros(a.CreatedAt))
	return translate(err, "application "+a.ClientID)
}

// UpdateApplication rewrites an application's secrets and notification URL.
func (r identityRepo) UpdateApplication(ctx context.Context, a identity.Application) error {
	res, err := r.write.ExecContext(ctx, `
		UPDATE applications SET client_secret_hash = $2, notification_url = $3, notification_secret = $4
		WHERE id = $1`, a.ID, a.ClientSecretHash, a.NotificationURL, a.NotificationSecret)
	return expectOne(res, err, "application "+a.ClientID)
}

const applicationColumns = `id, customer_id, client_id, client_secret_hash, notification_url, notification_secret, created_at`

func scanApplication(row interface{ Scan(...any) error }) (identity.Application, error) {
	var a identity.Application
	var created int64
	err := row.Scan(&a.ID, &a.CustomerID, &a.ClientID, &a.ClientSecretHash, &a.NotificationURL, &a.NotificationSecret, &created)
	a.CreatedAt = fromMicros(created)
	return a, err
}

// GetApplicationByClientID reads an application by its client id.
func (r identityRepo) GetApplicationByClientID(ctx context.Context, clientID string) (identity.Application, error) {
	a, err := scanApplication(r.read.QueryRowContext(ctx,
		`SELECT `+applicationColumns+` FROM applications WHERE client_id = $1`, clientID))
	return a, translate(err, "application")
}

// GetApplication reads an application by id.
func (r identityRepo) GetApplication(ctx context.Context, id string) (identity.Application, error) {
	a, err := scanApplication(r.read.QueryRowContext(ctx,
		`SELECT `+applicationColumns+` FROM applications WHERE id = $1`, id))
	return a, translate(err, "application")
}

// CreateUser inserts a user.
func (r identityRepo) CreateUser(ctx context.Context, u identity.User) error {
	_, err := r.write.ExecContext(ctx, `
		INSERT INTO users (id, customer_id, username, password_hash, role, created_at)
		VALUES ($1, $2, $3, $4, $5, $6)`,
		u.ID, u.CustomerID, u.Username, u.PasswordHash, string(u.Role), micros(u.CreatedAt))
	return translate(err, "user "+u.Username)
}

// UpdateUser rewrites a user's password hash, role, token generation and
// status.
func (r identityRepo) UpdateUser(ctx context.Context, u identity.User) error {
	var disabled sql.NullInt64
	if !u.DisabledAt.IsZero() {
		disabled = sql.NullInt64{Int64: micros(u.DisabledAt), Valid: true}
	}
	res, err := r.write.ExecContext(ctx, `
		UPDATE users SET password_hash = $2, role = $3, token_generation = $4, disabled_at = $5 WHERE id = $1`,
		u.ID, u.PasswordHash, string(u.Role), u.TokenGeneration, disabled)
	return expectOne(res, err, "user "+u.Username)
}

const userColumns = `id, customer_id, username, password_hash, role, created_at, token_generation, disabled_at`

func scanUser(row interface{ Scan(...any) error }) (identity.User, error) {
	var u identity.User
	var created int64
	var disabled sql.NullInt64
	var role string
	err := row.Scan(&u.ID, &u.CustomerID, &u.Username, &u.PasswordHash, &role, &created, &u.TokenGeneration, &disabled)
	u.Role = identity.Role(role)
	u.CreatedAt = fromMicros(created)
	u.DisabledAt = fromNullMicros(disabled)
	return u, err
}

// GetUserByUsername reads a user by username.
func (r identityRepo) GetUserByUsername(ctx context.Context, username string) (identity.User, error) {
	u, err := scanUser(r.read.QueryRowContext(ctx, `SELECT `+userColumns+` FROM users WHERE username = $1`, username))
	return u, translate(err, "user")
}

// GetUser reads a user by id.
func (r identityRepo) GetUser(ctx context.Context, id string) (identity.User, error) {
	u, err := scanUser(r.read.QueryRowContext(ctx, `SELECT `+userColumns+` FROM users WHERE id = $1`, id))
	return u, translate(err, "user")
}

// nullString stores an empty string as NULL.
func nullString(s string) sql.NullString { return sql.NullString{String: s, Valid: s != ""} }

// expectOne checks that an UPDATE or DELETE touched exactly one row.
func expectOne(res sql.Result, err error, what string) error {
	if err != nil {
		return translate(err, what)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return fmt.Errorf("%s: rows affected: %w", what, err)
	}
	if n == 0 {
		return errs.E(errs.NotFound, "%s was not found.", what)
	}
	return nil
}

// ApplicationsBelow lists the applications of ancestor and of the
// customers below it (customer_tree), oldest first.
func (r identityRepo) ApplicationsBelow(ctx context.Context, ancestor string) ([]identity.Application, error) {
	return listRows(ctx, r.read, "applications", scanApplication,
		`SELECT `+applicationColumns+` FROM applications
		WHERE customer_id IN (SELECT descendant_id FROM customer_tree WHERE ancestor_id = $1)
		ORDER BY created_at, id`, ancestor)
}

// SetNotificationURL points application id at url, audited as a change of
// the application (the unit of work writes the audit entry).
func (r identityRepo) SetNotificationURL(ctx context.Context, id, url string) error {
	if r.tx == nil {
		return r.s.SetNotificationURL(ctx, id, url)
	}
	audit.Resource(ctx, "application", id)
	res, err := r.tx.ExecContext(ctx, `UPDATE applications SET notification_url = $2 WHERE id = $1`, id, url)
	return expectOne(res, err, "application "+id)
}
