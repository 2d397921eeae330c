package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/bankrail/bankrail/internal/app"
	"github.com/bankrail/bankrail/internal/config"
	"github.com/bankrail/bankrail/internal/identity"
	"github.com/bankrail/bankrail/internal/statement"
)

// statementsUsage is the help of bankrail statements.
const statementsUsage = `Usage:
  bankrail statements import [--data-dir DIR | --database-url URL] [--json] FILE...
  bankrail statements list [--json] [--limit N]
  bankrail statements exceptions [--status OPEN|RESOLVED] [--json] [--limit N]
  bankrail statements resolve --id ID --note TEXT

The bank's statement files (camt.053 end-of-day statements, camt.054 intraday advices, versions
.02 to .08) reconcile the Connect accounts: see docs/banking.md. These commands work on the
database directly, as the instance's operator, whether or not a server runs on it.
bankrail statements <command> --help shows a command's flags.
`

// statementsImportAbout is the help of bankrail statements import.
const statementsImportAbout = `Imports each FILE: booked credits to a Connect account (or an alias of one) are matched as POST /payin's
(an expected payment becomes RECEIVED, anything else a MANUAL_CREDIT), booked debits complete the payouts
and refunds whose id is their EndToEndId, returned transfers give their funds back, and a debit bankrail
did not initiate becomes a reconciliation exception (bankrail statements exceptions). Each entry is
applied once: importing a file again, or a camt.053 that repeats a camt.054, changes nothing.
Prints one summary per file (with --json one JSON object per file, on one line). A file that is not
a supported statement writes nothing and makes the command exit 1 after the other files.`

// statementsCmd runs "bankrail statements <verb>".
func statementsCmd(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 || isHelp(args[0]) {
		out := stdout
		if len(args) == 0 {
			out = stderr
		}
		fmt.Fprint(out, statementsUsage)
		if len(args) == 0 {
			return 2
		}
		return 0
	}
	cfg := config.Default()
	verb, rest := args[0], args[1:]
	var fs *flag.FlagSet
	var run func(context.Context, *app.App, []string) error
	switch verb {
	case "import":
		fs = newFlagSet("statements import", "Usage: bankrail statements import [flags] FILE...\n\n"+statementsImportAbout+"\n")
		run = statementsImport(fs, stdout)
	case "list":
		fs = newFlagSet("statements list", "Usage: bankrail statements list [flags]\n\nLists the summaries of the imported files, newest first.\n")
		run = statementsList(fs, stdout)
	case "exceptions":
		fs = newFlagSet("statements exceptions", "Usage: bankrail statements exceptions [flags]\n\n"+
			"Lists the reconciliation exceptions, newest first: booked transactions bankrail did not recognise (a debit\n"+
			"it did not initiate, a return of nothing it sent). They move no money; resolve each with a note once it is\n"+
			"dealt with (bankrail statements resolve).\n")
		run = statementsExceptions(fs, stdout)
	case "resolve":
		fs = newFlagSet("statements resolve", "Usage: bankrail statements resolve --id ID --note TEXT\n\n"+
			"Resolves an OPEN reconciliation exception with a note saying what was done about it. It moves no money.\n")
		run = statementsResolve(fs, stdout)
	default:
		fmt.Fprintf(stderr, "bankrail: unknown command %q\n\n%s", "statements "+verb, statementsUsage)
		return 2
	}
	storageFlags(fs, &cfg)
	files, err := parseWithArgs(fs, rest)
	if err == nil && verb != "import" && len(files) > 0 {
		err = fmt.Errorf("unexpected argument %q", files[0])
	}
	if err == nil && verb == "import" && len(files) == 0 {
		err = errors.New("no FILE to import")
	}
	if err != nil {
		return exitCode(fs, err, stdout, stderr)
	}
	a, err := app.OpenStatements(ctx, cfg, newLogger(cfg, stderr))
	if err == nil {
		// The CLI needs the database itself: it acts as the instance's operator.
		opCtx := identity.WithPrincipal(ctx, identity.Principal{Role: identity.RoleOperator, Username: "bankrail-cli"})
		err = run(opCtx, a, files)
		if cerr := a.Close(); err == nil {
			err = cerr
		}
	}
	if err != nil {
		fmt.Fprintln(stderr, "bankrail:", err)
		return 1
	}
	return 0
}

// statementsImport binds the flags of "bankrail statements import".
func statementsImport(fs *flag.FlagSet, stdout io.Writer) func(context.Context, *app.App, []string) error {
	asJSON := fs.Bool("json", false, "print one JSON object per file, on one line (for scripts)")
	return func(ctx context.Context, a *app.App, files []string) error {
		var failed []error
		for _, name := range files {
			sum, err := importFile(ctx, a.Statements(), name)
			if err != nil {
				failed = append(failed, fmt.Errorf("%s: %w", name, err))
				continue
			}
			if *asJSON {
				if err := json.NewEncoder(stdout).Encode(sum); err != nil {
					return err
				}
				continue
			}
			if _, err := io.WriteString(stdout, formatSummary(sum)); err != nil {
				return err
			}
		}
		return errors.Join(failed...)
	}
}

func importFile(ctx context.Context, im *statement.Importer, name string) (statement.Summary, error) {
	f, err := os.Open(name)
	if err != nil {
		return statement.Summary{}, err
	}
	defer func() { _ = f.Close() }() // read only
	return im.Import(ctx, name, f)
}

// formatSummary writes a summary for a person.
func formatSummary(s statement.Summary) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s: %s %s\n", s.File, s.Message, s.MessageID)
	for _, a := range s.Accounts {
		known := "Connect account"
		if !a.Known {
			known = "not a Connect account: nothing written"
		}
		fmt.Fprintf(&b, "  %s (%s): credited %d (%d %s), debited %d (%d %s)", a.IBAN, known,
			a.Credited.Count, a.Credited.Amount, a.Credited.Currency, a.Debited.Count, a.Debited.Amount, a.Debited.Currency)
		if a.ClosingBank != nil {
			fmt.Fprintf(&b, "; closing balance: bank %d", a.ClosingBank.Amount)
			if a.ClosingLedger != nil {
				fmt.Fprintf(&b, ", ledger %d", a.ClosingLedger.Amount)
			}
			if a.Difference != nil {
				fmt.Fprintf(&b, ", difference %d", *a.Difference)
			}
		}
		b.WriteString("\n")
	}
	fmt.Fprintf(&b, "  matched %d, manual credits %d, outgoing confirmed %d, returned %d, exceptions %d, duplicates %d, not booked %d, rejected %d\n",
		s.Matched, s.ManualCredits, s.OutgoingConfirmed, s.Returned, s.Exceptions, s.Duplicates, s.NotBooked, len(s.Rejected))
	for _, r := range s.Rejected {
		fmt.Fprintf(&b, "    rejected %s: %s\n", r.Entry, r.Reason)
	}
	return b.String()
}

// statementsList binds the flags of "bankrail statements list".
func statementsList(fs *flag.FlagSet, stdout io.Writer) func(context.Context, *app.App, []string) error {
	asJSON := fs.Bool("json", false, "print the summaries as one JSON array")
	limit := fs.Int("limit", statement.DefaultListLimit, "list at most this many")
	return func(ctx context.Context, a *app.App, _ []string) error {
		list, err := a.Statements().Imports(ctx, *limit)
		if err != nil || *asJSON {
			if err == nil {
				err = json.NewEncoder(stdout).Encode(list)
			}
			return err
		}
		for _, s := range list {
			if _, err := fmt.Fprintf(stdout, "%s  %s  ", s.ImportedAt.Format("2006-01-02 15:04:05"), s.ID); err != nil {
				return err
			}
			if _, err := io.WriteString(stdout, formatSummary(s)); err != nil {
				return err
			}
		}
		return nil
	}
}

// statementsExceptions binds the flags of "bankrail statements exceptions".
func statementsExceptions(fs *flag.FlagSet, stdout io.Writer) func(context.Context, *app.App, []string) error {
	asJSON := fs.Bool("json", false, "print the exceptions as one JSON array")
	status := fs.String("status", "", "only OPEN or RESOLVED exceptions")
	limit := fs.Int("limit", statement.DefaultListLimit, "list at most this many")
	return func(ctx context.Context, a *app.App, _ []string) error {
		list, err := a.Statements().Exceptions(ctx, statement.ExceptionStatus(strings.ToUpper(*status)), *limit)
		if err != nil || *asJSON {
			if err == nil {
				err = json.NewEncoder(stdout).Encode(list)
			}
			return err
		}
		if len(list) == 0 {
			_, err := fmt.Fprintln(stdout, "no reconciliation exceptions")
			return err
		}
		var b strings.Builder
		for _, e := range list {
			dir := "debit"
			if e.Credit {
				dir = "credit"
			}
			fmt.Fprintf(&b, "%s  %s  %s %d %s on %s  booked %s  %s\n    %s", e.ID, e.Status, dir, e.Amount, e.Currency, e.IBAN, e.BookingDate, e.Entry, e.Reason)
			if e.Status == statement.ExceptionResolved {
				fmt.Fprintf(&b, "\n    resolved by %s: %s", e.ResolvedBy, e.Resolution)
			}
			b.WriteString("\n")
		}
		_, err = io.WriteString(stdout, b.String())
		return err
	}
}

// statementsResolve binds the flags of "bankrail statements resolve".
func statementsResolve(fs *flag.FlagSet, stdout io.Writer) func(context.Context, *app.App, []string) error {
	id := fs.String("id", "", "the exception's id (bankrail statements exceptions)")
	note := fs.String("note", "", "what was done about it (required)")
	return func(ctx context.Context, a *app.App, _ []string) error {
		e, err := a.Statements().Resolve(ctx, *id, *note)
		if err == nil {
			_, err = fmt.Fprintf(stdout, "resolved %s: %s\n", e.ID, e.Resolution)
		}
		return err
	}
}
