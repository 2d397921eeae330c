// Package seed reads a seed file (JSON or YAML) describing customers, their
// applications and users, and applies it idempotently: starting twice with
// the same file changes nothing. It also defines the sandbox demo merchant.
package seed

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"

	"go.yaml.in/yaml/v3"

	"github.com/bankrail/bankrail/internal/identity"
	"github.com/bankrail/bankrail/internal/ledger"
)

// File is the seed file's shape.
type File struct {
	Customers []Customer `yaml:"customers"`
}

// Customer is one customer of a seed file.
type Customer struct {
	ID           string        `yaml:"id"`
	Name         string        `yaml:"name"`
	ParentID     string        `yaml:"parentId"`
	Applications []Application `yaml:"applications"`
	Users        []User        `yaml:"users"`
	Accounts     []Account     `yaml:"accounts"`
}

// Account is one Connect account of a seed customer. Without id and iban,
// both are derived from the customer, currency and nickname (so the same
// file opens the same account); a generated IBAN has a valid checksum.
type Account struct {
	ID       string `yaml:"id"`
	Currency string `yaml:"currency"`
	IBAN     string `yaml:"iban"`
	Nickname string `yaml:"nickname"`
}

// Application is one application of a seed customer.
type Application struct {
	ClientID           string `yaml:"clientId"`
	ClientSecret       string `yaml:"clientSecret"`
	NotificationURL    string `yaml:"notificationUrl"`
	NotificationSecret string `yaml:"notificationSecret"`
}

// User is one user of a seed customer.
type User struct {
	Username string `yaml:"username"`
	Password string `yaml:"password"`
	Role     string `yaml:"role"`
}

// Load reads a seed file. JSON is YAML, so one parser reads both; unknown
// keys are errors, so that a typo does not silently seed nothing.
func Load(path string) (File, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return File{}, fmt.Errorf("read seed file: %w", err)
	}
	return Parse(b)
}

// Parse decodes a seed file's bytes.
func Parse(b []byte) (File, error) {
	var f File
	dec := yaml.NewDecoder(bytes.NewReader(b))
	dec.KnownFields(true)
	if err := dec.Decode(&f); err != nil && !errors.Is(err, io.EOF) {
		return File{}, fmt.Errorf("parse seed file: %w", err)
	}
	return f, nil
}

// Result counts what Apply did.
type Result struct {
	Created, Updated, Unchanged int
}

func (r *Result) count(o identity.Outcome) {
	switch o {
	case identity.Created:
		r.Created++
	case identity.Updated:
		r.Updated++
	default:
		r.Unchanged++
	}
}

// Apply creates or updates everything the file names except accounts
// (see ApplyWithAccounts). Parents are applied before their children
// whatever their order in the file.
func Apply(ctx context.Context, svc *identity.Service, f File) (Result, error) {
	return ApplyWithAccounts(ctx, svc, nil, f)
}

// ApplyWithAccounts is Apply that also opens the customers' accounts
// through accounts (none when it is nil).
func ApplyWithAccounts(ctx context.Context, svc *identity.Service, accounts *ledger.Service, f File) (Result, error) {
	var res Result
	done := map[string]bool{}
	pending := f.Customers
	for len(pending) > 0 {
		var next []Customer
		for _, c := range pending {
			if c.ParentID != "" && !done[c.ParentID] && inFile(f, c.ParentID) {
				next = append(next, c) // its parent comes later in the file
				continue
			}
			if err := applyCustomer(ctx, svc, accounts, c, &res, done); err != nil {
				return res, err
			}
		}
		if len(next) == len(pending) {
			return res, fmt.Errorf("seed customers form a cycle through parentId %s", next[0].ParentID)
		}
		pending = next
	}
	return res, nil
}

func applyCustomer(ctx context.Context, svc *identity.Service, accounts *ledger.Service, c Customer, res *Result, done map[string]bool) error {
	cust, o, err := svc.EnsureCustomer(ctx, identity.CustomerSpec{ID: c.ID, Name: c.Name, ParentID: c.ParentID})
	if err != nil {
		return fmt.Errorf("seed customer %q: %w", c.Name, err)
	}
	res.count(o)
	done[cust.ID] = true
	for _, a := range c.Applications {
		_, o, err := svc.EnsureApplication(ctx, identity.ApplicationSpec{CustomerID: cust.ID, ClientID: a.ClientID,
			ClientSecret: a.ClientSecret, NotificationURL: a.NotificationURL, NotificationSecret: a.NotificationSecret})
		if err != nil {
			return fmt.Errorf("seed application %q of %q: %w", a.ClientID, c.Name, err)
		}
		res.count(o)
	}
	for _, u := range c.Users {
		_, o, err := svc.EnsureUser(ctx, identity.UserSpec{CustomerID: cust.ID, Username: u.Username, Password: u.Password, Role: u.Role})
		if err != nil {
			return fmt.Errorf("seed user %q of %q: %w", u.Username, c.Name, err)
		}
		res.count(o)
	}
	if accounts == nil {
		return nil
	}
	for _, a := range c.Accounts {
		_, created, err := accounts.EnsureAccount(ctx, ledger.AccountSpec{ID: a.ID, CustomerID: cust.ID, Currency: a.Currency,
			IBAN: a.IBAN, Nickname: a.Nickname})
		if err != nil {
			return fmt.Errorf("seed account %s %q of %q: %w", a.Currency, a.Nickname, c.Name, err)
		}
		if created {
			res.Created++
		} else {
			res.Unchanged++
		}
	}
	return nil
}

func inFile(f File, id string) bool {
	for _, c := range f.Customers {
		if c.ID == id {
			return true
		}
	}
	return false
}
