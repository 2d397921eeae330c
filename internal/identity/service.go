package identity

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strings"

	"github.com/google/uuid"

	"github.com/bankrail/bankrail/internal/clock"
	"github.com/bankrail/bankrail/internal/errs"
)

// Service creates and updates customers, applications and users. Its Ensure
// methods are idempotent: applying the same input twice changes nothing (a
// secret is re-hashed only when it no longer matches).
type Service struct {
	store    Store
	clock    clock.Clock
	hasher   *Hasher
	checkURL URLCheck
	changed  func(userID string)
}

// URLCheck vets a notification URL as it enters (netguard.CheckURL in
// production); it returns VALIDATION_FAILURE naming field.
type URLCheck func(ctx context.Context, rawURL, field string) error

// CheckNotificationURLs makes every application's notification URL pass
// check when it is set, whoever sets it (seed file, admin command, API).
func (s *Service) CheckNotificationURLs(check URLCheck) { s.checkURL = check }

// OnUserChanged makes f run with a user's id once a change of its role,
// password or status is stored (auth.Service.ForgetUser, so that this
// instance refuses the user's old tokens from its next request).
func (s *Service) OnUserChanged(f func(userID string)) { s.changed = f }

// userChanged stores u, whose token generation was bumped, and reports the
// change.
func (s *Service) userChanged(ctx context.Context, u User) error {
	if err := s.store.UpdateUser(ctx, u); err != nil {
		return err
	}
	if s.changed != nil {
		s.changed(u.ID)
	}
	return nil
}

// NewService returns an identity service.
func NewService(store Store, clk clock.Clock, hasher *Hasher) *Service {
	return &Service{store: store, clock: clk, hasher: hasher}
}

// CustomerSpec describes a customer to create or update.
type CustomerSpec struct {
	ID       string // optional; generated when empty (then the name is the key)
	Name     string
	ParentID string
}

// ApplicationSpec describes an application to create or update.
type ApplicationSpec struct {
	CustomerID         string
	ClientID           string
	ClientSecret       string
	NotificationURL    string
	NotificationSecret string
}

// UserSpec describes a user to create or update.
type UserSpec struct {
	CustomerID string
	Username   string
	Password   string
	Role       string
}

// Outcome says what an Ensure call did.
type Outcome string

// Outcomes of Ensure calls.
const (
	Created   Outcome = "created"
	Updated   Outcome = "updated"
	Unchanged Outcome = "unchanged"
)

// EnsureCustomer creates the customer, or renames it if it exists. A
// customer is found by id, or by name when no id is given.
func (s *Service) EnsureCustomer(ctx context.Context, spec CustomerSpec) (Customer, Outcome, error) {
	if strings.TrimSpace(spec.Name) == "" {
		return Customer{}, "", errs.E(errs.ValidationFailure, "customer name is required")
	}
	if spec.ID != "" {
		if _, err := uuid.Parse(spec.ID); err != nil {
			return Customer{}, "", errs.E(errs.ValidationFailure, "customer id %q is not a uuid", spec.ID)
		}
	}
	var existing Customer
	var err error
	if spec.ID != "" {
		existing, err = s.store.GetCustomer(ctx, spec.ID)
	} else {
		existing, err = s.store.FindCustomerByName(ctx, spec.Name)
	}
	switch {
	case err == nil:
		if existing.ParentID != spec.ParentID {
			return Customer{}, "", errs.E(errs.Conflict,
				"customer %s already has parent %q; moving a customer in the tree is not supported", existing.ID, existing.ParentID)
		}
		if existing.Name == spec.Name {
			return existing, Unchanged, nil
		}
		existing.Name = spec.Name
		return existing, Updated, s.store.UpdateCustomer(ctx, existing)
	case !errs.Is(err, errs.NotFound):
		return Customer{}, "", err
	}
	// basetime: customers, applications and users are the operator's (seed file, admin commands), made outside any tenant's use case
	c := Customer{ID: spec.ID, Name: spec.Name, ParentID: spec.ParentID, CreatedAt: clock.Base(s.clock)}
	if c.ID == "" {
		c.ID = uuid.NewString()
	}
	if err := s.store.CreateCustomer(ctx, c); err != nil {
		return Customer{}, "", fmt.Errorf("create customer %q: %w", spec.Name, err)
	}
	return c, Created, nil
}

// EnsureApplication creates or updates the application with spec.ClientID.
func (s *Service) EnsureApplication(ctx context.Context, spec ApplicationSpec) (Application, Outcome, error) {
	if spec.ClientID == "" || spec.ClientSecret == "" {
		return Application{}, "", errs.E(errs.ValidationFailure, "clientId and clientSecret are required")
	}
	if len(spec.ClientSecret) < 12 {
		return Application{}, "", errs.E(errs.ValidationFailure, "clientSecret of %s must be at least 12 characters", spec.ClientID)
	}
	if spec.NotificationURL != "" {
		if u, err := url.Parse(spec.NotificationURL); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return Application{}, "", errs.E(errs.ValidationFailure, "notificationUrl of %s must be an http(s) URL", spec.ClientID)
		}
		if err := s.vetURL(ctx, spec); err != nil {
			return Application{}, "", err
		}
	}
	if spec.NotificationSecret == "" {
		spec.NotificationSecret = RandomSecret(24)
	}
	existing, err := s.store.GetApplicationByClientID(ctx, spec.ClientID)
	switch {
	case err == nil:
		if existing.CustomerID != spec.CustomerID {
			return Application{}, "", errs.E(errs.Conflict, "application %s belongs to another customer", spec.ClientID)
		}
		changed := existing.NotificationURL != spec.NotificationURL || existing.NotificationSecret != spec.NotificationSecret
		existing.NotificationURL, existing.NotificationSecret = spec.NotificationURL, spec.NotificationSecret
		if ok, _ := s.hasher.Verify(ctx, existing.ClientSecretHash, spec.ClientSecret); !ok {
			if existing.ClientSecretHash, err = s.hasher.Hash(ctx, spec.ClientSecret); err != nil {
				return Application{}, "", err
			}
			changed = true
		}
		if !changed {
			return existing, Unchanged, nil
		}
		return existing, Updated, s.store.UpdateApplication(ctx, existing)
	case !errs.Is(err, errs.NotFound):
		return Application{}, "", err
	}
	hash, err := s.hasher.Hash(ctx, spec.ClientSecret)
	if err != nil {
		return Application{}, "", err
	}
	a := Application{ID: uuid.NewString(), CustomerID: spec.CustomerID, ClientID: spec.ClientID, ClientSecretHash: hash,
		NotificationURL: spec.NotificationURL, NotificationSecret: spec.NotificationSecret,
		CreatedAt: clock.Base(s.clock)} // basetime: the operator's, as a customer's (EnsureCustomer)
	if err := s.store.CreateApplication(ctx, a); err != nil {
		return Application{}, "", fmt.Errorf("create application %s: %w", spec.ClientID, err)
	}
	return a, Created, nil
}

// EnsureUser creates or updates the user with spec.Username.
func (s *Service) EnsureUser(ctx context.Context, spec UserSpec) (User, Outcome, error) {
	if spec.Username == "" || spec.Password == "" {
		return User{}, "", errs.E(errs.ValidationFailure, "username and password are required")
	}
	if len(spec.Password) < 8 {
		return User{}, "", errs.E(errs.ValidationFailure, "password of %s must be at least 8 characters", spec.Username)
	}
	if spec.Role == "" {
		spec.Role = string(RoleMerchant)
	}
	role, err := ParseRole(spec.Role)
	if err != nil {
		return User{}, "", errs.E(errs.ValidationFailure, "%s", err.Error())
	}
	existing, err := s.store.GetUserByUsername(ctx, spec.Username)
	switch {
	case err == nil:
		if existing.CustomerID != spec.CustomerID {
			return User{}, "", errs.E(errs.Conflict, "user %s belongs to another customer", spec.Username)
		}
		changed := existing.Role != role
		existing.Role = role
		if ok, _ := s.hasher.Verify(ctx, existing.PasswordHash, spec.Password); !ok {
			if existing.PasswordHash, err = s.hasher.Hash(ctx, spec.Password); err != nil {
				return User{}, "", err
			}
			changed = true
		}
		if !changed {
			return existing, Unchanged, nil
		}
		existing.TokenGeneration++ // tokens issued with the old role or password stop working
		return existing, Updated, s.userChanged(ctx, existing)
	case !errs.Is(err, errs.NotFound):
		return User{}, "", err
	}
	hash, err := s.hasher.Hash(ctx, spec.Password)
	if err != nil {
		return User{}, "", err
	}
	u := User{ID: uuid.NewString(), CustomerID: spec.CustomerID, Username: spec.Username, PasswordHash: hash,
		Role: role, CreatedAt: clock.Base(s.clock)} // basetime: the operator's, as a customer's (EnsureCustomer)
	if err := s.store.CreateUser(ctx, u); err != nil {
		return User{}, "", fmt.Errorf("create user %s: %w", spec.Username, err)
	}
	return u, Created, nil
}

// DisableUser stops the user with username from signing in and revokes its
// access tokens (at once on this instance, within seconds on every other).
// Disabling a disabled user changes nothing.
func (s *Service) DisableUser(ctx context.Context, username string) (User, Outcome, error) {
	u, err := s.store.GetUserByUsername(ctx, username)
	if err != nil {
		return User{}, "", fmt.Errorf("user %s: %w", username, err)
	}
	if u.Disabled() {
		return u, Unchanged, nil
	}
	u.DisabledAt = clock.Base(s.clock) // basetime: the operator's, as a customer's (EnsureCustomer)
	u.TokenGeneration++
	return u, Updated, s.userChanged(ctx, u)
}

// vetURL applies the URL check, if any, to spec's notification URL, and
// names the application and the reason in the message: the seed file and
// the admin commands print only the message.
func (s *Service) vetURL(ctx context.Context, spec ApplicationSpec) error {
	if s.checkURL == nil {
		return nil
	}
	err := s.checkURL(ctx, spec.NotificationURL, "notificationUrl")
	var e *errs.Error
	if err == nil || !errors.As(err, &e) || len(e.Fields) != 1 {
		return err
	}
	return &errs.Error{Code: e.Code, Fields: e.Fields,
		Message: fmt.Sprintf("notificationUrl %s of %s %s", spec.NotificationURL, spec.ClientID, e.Fields[0].Message)}
}
