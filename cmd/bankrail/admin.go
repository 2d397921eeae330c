package main

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/bankrail/bankrail/internal/app"
	"github.com/bankrail/bankrail/internal/config"
	"github.com/bankrail/bankrail/internal/identity"
)

// adminNotes follow the list of a noun's commands.
const adminNotes = `
Administration commands work on the database directly (production included,
no seed file needed). Secrets that are not given are generated and printed
once. Running a create command again with the same key (id, client id,
username) updates the record. Changing a user's role or password, or
disabling it, revokes its access tokens on every instance within seconds.
`

// adminCommand is one "bankrail <noun> <verb>": its synopsis and the
// function that binds its flags and returns what it runs on the database.
type adminCommand struct {
	noun, verb string
	synopsis   string // the flags, as in adminHelp
	about      string // what it does, for its --help
	bind       func(fs *flag.FlagSet, stdout io.Writer) func(context.Context, *app.App) error
}

// adminCommands are the administration commands, by noun then verb.
var adminCommands = []adminCommand{
	{"customer", "create", "--name NAME [--id UUID] [--parent UUID]",
		"Creates a customer (a merchant, or a PSP or TSP above merchants), or renames the one with --id.", customerCreate},
	{"customer", "list", "", "Lists every customer: id, parent, name.", customerList},
	{"customer", "get", "--id UUID", "Shows a customer, its applications and its users.", customerGet},
	{"application", "create", "--customer UUID --client-id ID [--client-secret S] [--notification-url URL] [--notification-secret S]",
		"Creates an API application (OAuth client) of a customer, or updates the one with --client-id.", applicationCreate},
	{"application", "list", "[--customer UUID]", "Lists the applications (of one customer with --customer): client id, customer, notification URL.", applicationList},
	{"application", "get", "--client-id ID [--show-secret]", "Shows an application; its notification secret only with --show-secret.", applicationGet},
	{"user", "create", "--customer UUID --username NAME [--password P | --password-stdin] [--role ROLE]",
		"Creates a user (a login) of a customer, or updates the one with --username.", userCreate},
	{"user", "list", "[--customer UUID]", "Lists the users (of one customer with --customer): username, role, status, customer.", userList},
	{"user", "get", "--username NAME", "Shows a user: customer, role, status.", userGet},
	{"user", "disable", "--username NAME", "Disables a user: it can no longer sign in, and its access tokens stop working within seconds.", userDisable},
	{"keys", "rotate", "", "Creates a new token signing key and retires keys superseded for longer than the access-token lifetime.", keysRotate},
	{"account", "create", "--customer UUID --currency EUR [--nickname NAME] [--iban IBAN] [--id UUID]",
		"Opens a Connect account of a customer; it receives the customer's payments in its currency (docs/connect.md).\n" +
			"Without --id and --iban both are derived from the customer, currency and nickname, so running it again opens\n" +
			"nothing new; a generated IBAN has valid check digits (GB for GBP, DE otherwise). It starts ACTIVE, balance zero.", accountCreate},
	{"account", "list", "[--customer UUID] [--currency EUR]", "Lists the Connect accounts (of one customer with --customer): id, customer, currency, IBAN, status, available balance.", accountList},
	{"account", "get", "--id UUID | --iban IBAN", "Shows a Connect account and its balances (available, pending, held).", accountGet},
	{"ledger", "verify", "[--json]", ledgerVerifyAbout, ledgerVerify},
	{"jobs", "dead", "[--json] [--limit N]", jobsDeadAbout, jobsDead},
	{"jobs", "retry", "--id ID", jobsRetryAbout, jobsRetry},
	{"transfers", "export", "--out DIR", transfersExportAbout, transfersExport},
	{"transfers", "status", "[--json] FILE...", transfersStatusAbout, transfersStatus},
}

// takesFiles are the admin commands that take files after their flags.
var takesFiles = map[string]bool{"transfers status": true}

// verbsOf lists the commands of noun.
func verbsOf(noun string) []adminCommand {
	var out []adminCommand
	for _, c := range adminCommands {
		if c.noun == noun {
			out = append(out, c)
		}
	}
	return out
}

// nounUsage lists the commands of noun.
func nounUsage(noun string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Usage:\n")
	for _, c := range verbsOf(noun) {
		fmt.Fprintf(&b, "  bankrail %s %s %s\n", noun, c.verb, c.synopsis)
	}
	fmt.Fprintf(&b, "\nbankrail %s <command> --help shows a command's flags.\n", noun)
	b.WriteString(adminNotes)
	return b.String()
}

// isHelp reports whether arg asks for help.
func isHelp(arg string) bool { return slices.Contains([]string{"-h", "-help", "--help", "help"}, arg) }

// admin runs "bankrail <noun> <verb> [flags]".
func admin(ctx context.Context, noun string, args []string, stdout, stderr io.Writer) int {
	if len(args) > 0 && isHelp(args[0]) {
		fmt.Fprint(stdout, nounUsage(noun))
		return 0
	}
	i := -1
	if len(args) > 0 {
		i = slices.IndexFunc(adminCommands, func(c adminCommand) bool { return c.noun == noun && c.verb == args[0] })
	}
	if i < 0 {
		if len(args) > 0 {
			fmt.Fprintf(stderr, "bankrail: unknown command %q\n\n", noun+" "+args[0])
		}
		fmt.Fprint(stderr, nounUsage(noun))
		return 2
	}
	c := adminCommands[i]
	cfg := config.Default()
	fs := newFlagSet(noun+" "+c.verb, fmt.Sprintf("Usage: bankrail %s %s %s\n\n%s\n", noun, c.verb, c.synopsis, c.about))
	run := c.bind(fs, stdout)
	storageFlags(fs, &cfg)
	if err := parseWithFiles(fs, args[1:], takesFiles[noun+" "+c.verb]); err != nil {
		return exitCode(fs, err, stdout, stderr)
	}
	return withDatabase(ctx, cfg, stderr, run)
}

// withDatabase opens (and migrates) the database of cfg, runs fn and closes
// it, and turns the outcome into an exit code.
func withDatabase(ctx context.Context, cfg config.Config, stderr io.Writer, fn func(context.Context, *app.App) error) int {
	a, err := app.Admin(ctx, cfg, newLogger(cfg, stderr))
	if err == nil {
		err = fn(ctx, a)
		if cerr := a.Close(); err == nil {
			err = cerr
		}
	}
	if err != nil {
		fmt.Fprintln(stderr, "bankrail:", err)
		if errors.Is(err, errUnbalanced) {
			return exitUnbalanced
		}
		return 1
	}
	return 0
}

func keysRotate(_ *flag.FlagSet, stdout io.Writer) func(context.Context, *app.App) error {
	return func(ctx context.Context, a *app.App) error {
		kid, retired, err := a.RotateSigningKey(ctx)
		if err == nil {
			fmt.Fprintf(stdout, "new signing key %s; retired %d superseded key(s). Running instances pick it up on the next unknown kid.\n", kid, retired)
		}
		return err
	}
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
