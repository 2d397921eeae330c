package main

import (
	"bufio"
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/bankrail/bankrail/internal/app"
	"github.com/bankrail/bankrail/internal/config"
	"github.com/bankrail/bankrail/internal/identity"
)

const adminHelp = `Administration commands, for a production database without a seed file:

  bankrail customer create --name NAME [--id UUID] [--parent UUID]
  bankrail application create --customer UUID --client-id ID [--client-secret S]
                              [--notification-url URL] [--notification-secret S]
  bankrail user create --customer UUID --username NAME [--password P | --password-stdin] [--role ROLE]
  bankrail user disable --username NAME
  bankrail keys rotate
  bankrail account create --customer UUID --currency EUR [--nickname NAME] [--iban IBAN] [--id UUID]

Secrets that are not given are generated and printed once. Running a create
command again with the same key (id, client id, username) updates the record.
Changing a user's role or password, or disabling it, revokes its access tokens
on every instance within seconds.
`

// admin runs "bankrail <noun> <verb> [flags]".
func admin(ctx context.Context, noun string, args []string, stdout, stderr io.Writer) int {
	verb := "create"
	if noun == "keys" {
		verb = "rotate"
	}
	if noun == "user" && len(args) > 0 && args[0] == "disable" {
		verb = "disable"
	}
	if len(args) == 0 || args[0] != verb {
		fmt.Fprintf(stderr, "Usage: bankrail %s %s [flags]\n\n%s", noun, verb, adminHelp)
		return 2
	}
	cfg := config.Default()
	fs := newFlagSet(noun+" "+verb, adminHelp, stderr)
	storageFlags(fs, &cfg)
	var run func(ctx context.Context, a *app.App) error
	switch noun {
	case "customer":
		run = customerCreate(fs, stdout)
	case "application":
		run = applicationCreate(fs, stdout)
	case "user":
		if verb == "disable" {
			run = userDisable(fs, stdout)
		} else {
			run = userCreate(fs, stdout)
		}
	case "account":
		fs = newFlagSet(noun+" "+verb, accountHelp, stderr)
		storageFlags(fs, &cfg)
		run = accountCreate(fs, stdout)
	case "keys":
		run = func(ctx context.Context, a *app.App) error {
			kid, retired, err := a.RotateSigningKey(ctx)
			if err == nil {
				fmt.Fprintf(stdout, "new signing key %s; retired %d superseded key(s). Running instances pick it up on the next unknown kid.\n", kid, retired)
			}
			return err
		}
	}
	if err := parse(fs, args[1:]); err != nil {
		return exitCode(err, stderr)
	}
	return withDatabase(ctx, cfg, stderr, run)
}

// withDatabase opens (and migrates) the database of cfg, runs fn and closes
// it, and turns the outcome into an exit code.
func withDatabase(ctx context.Context, cfg config.Config, stderr io.Writer, fn func(context.Context, *app.App) error) int {
	a, err := app.Admin(ctx, cfg, newLogger(cfg, stderr))
	if err == nil {
		err = fn(ctx, a)
		a.Close()
	}
	if err != nil {
		fmt.Fprintln(stderr, "bankrail:", err)
		return 1
	}
	return 0
}

func customerCreate(fs *flag.FlagSet, stdout io.Writer) func(context.Context, *app.App) error {
	var spec identity.CustomerSpec
	fs.StringVar(&spec.Name, "name", "", "customer name (required)")
	fs.StringVar(&spec.ID, "id", "", "customer uuid (generated when empty)")
	fs.StringVar(&spec.ParentID, "parent", "", "uuid of the PSP or TSP above this customer")
	return func(ctx context.Context, a *app.App) error {
		c, outcome, err := a.Identity().EnsureCustomer(ctx, spec)
		if err == nil {
			fmt.Fprintf(stdout, "customer %s %s (%s)\n", c.ID, outcome, c.Name)
		}
		return err
	}
}

func applicationCreate(fs *flag.FlagSet, stdout io.Writer) func(context.Context, *app.App) error {
	var spec identity.ApplicationSpec
	fs.StringVar(&spec.CustomerID, "customer", "", "uuid of the owning customer (required)")
	fs.StringVar(&spec.ClientID, "client-id", "", "OAuth client id (required)")
	fs.StringVar(&spec.ClientSecret, "client-secret", "", "OAuth client secret (generated when empty)")
	fs.StringVar(&spec.NotificationURL, "notification-url", "", "default URL for signed notifications")
	fs.StringVar(&spec.NotificationSecret, "notification-secret", "", "key that signs notifications (generated when empty)")
	return func(ctx context.Context, a *app.App) error {
		if _, err := a.Store().GetCustomer(ctx, spec.CustomerID); err != nil {
			return fmt.Errorf("--customer: %w", err)
		}
		generated := spec.ClientSecret == ""
		if generated {
			spec.ClientSecret = identity.RandomSecret(24)
		}
		app, outcome, err := a.Identity().EnsureApplication(ctx, spec)
		if err != nil {
			return err
		}
		fmt.Fprintf(stdout, "application %s %s for customer %s\n", app.ClientID, outcome, app.CustomerID)
		if generated {
			fmt.Fprintf(stdout, "client secret (shown once): %s\n", spec.ClientSecret)
		}
		fmt.Fprintf(stdout, "notification secret: %s\n", app.NotificationSecret)
		return nil
	}
}

func userCreate(fs *flag.FlagSet, stdout io.Writer) func(context.Context, *app.App) error {
	var spec identity.UserSpec
	var fromStdin bool
	fs.StringVar(&spec.CustomerID, "customer", "", "uuid of the owning customer (required)")
	fs.StringVar(&spec.Username, "username", "", "login name (required)")
	fs.StringVar(&spec.Password, "password", "", "password (generated when empty; prefer --password-stdin)")
	fs.BoolVar(&fromStdin, "password-stdin", false, "read the password from the first line of standard input")
	fs.StringVar(&spec.Role, "role", string(identity.RoleMerchant), "role: "+strings.Join(identity.RoleNames(), ", "))
	return func(ctx context.Context, a *app.App) error {
		if _, err := a.Store().GetCustomer(ctx, spec.CustomerID); err != nil {
			return fmt.Errorf("--customer: %w", err)
		}
		if fromStdin {
			line, err := bufio.NewReader(os.Stdin).ReadString('\n')
			if err != nil && line == "" {
				return fmt.Errorf("read password from stdin: %w", err)
			}
			spec.Password = strings.TrimRight(line, "\r\n")
		}
		generated := spec.Password == ""
		if generated {
			spec.Password = identity.RandomSecret(18)
		}
		u, outcome, err := a.Identity().EnsureUser(ctx, spec)
		if err != nil {
			return err
		}
		fmt.Fprintf(stdout, "user %s %s with role %s for customer %s\n", u.Username, outcome, u.Role, u.CustomerID)
		if generated {
			fmt.Fprintf(stdout, "password (shown once): %s\n", spec.Password)
		}
		return nil
	}
}

func userDisable(fs *flag.FlagSet, stdout io.Writer) func(context.Context, *app.App) error {
	var username string
	fs.StringVar(&username, "username", "", "login name (required)")
	return func(ctx context.Context, a *app.App) error {
		u, outcome, err := a.Identity().DisableUser(ctx, username)
		if err == nil {
			fmt.Fprintf(stdout, "user %s %s: disabled; its access tokens stop working within seconds\n", u.Username, outcome)
		}
		return err
	}
}
