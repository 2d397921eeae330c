package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/bankrail/bankrail/api"
	"github.com/bankrail/bankrail/client"
	"github.com/bankrail/bankrail/internal/money"
)

const paymentsHelp = `Usage: bankrail payments <command> [flags]

Commands, against a running instance with the profile of 'bankrail login' (GET /payments):
  list   [--status S] [--reference R] [--limit N] [--json]   your payments, newest first
  get    <payment id> [--json]                                one payment with its status history

Run 'bankrail payments <command> --help' for its flags.
`

const paymentsListHelp = `Usage: bankrail payments list [--status S] [--reference R] [--currency C] [--limit N] [--json]

Lists your payments, newest first (GET /payments): id, status, amount, payment reference, created.
`

const paymentsGetHelp = `Usage: bankrail payments get <payment id> [--json]

Shows one payment (GET /payments/{id}): its amount, references, payer's bank, refundability and
every status it went through.
`

// payments serves `bankrail payments <command>`.
func payments(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	switch {
	case len(args) > 0 && args[0] == "list":
		return paymentsList(ctx, args[1:], stdout, stderr)
	case len(args) > 0 && args[0] == "get":
		return paymentsGet(ctx, args[1:], stdout, stderr)
	case len(args) > 0 && isHelp(args[0]):
		fmt.Fprint(stdout, paymentsHelp)
		return 0
	case len(args) > 0:
		fmt.Fprintf(stderr, "bankrail: unknown command %q\n\n", "payments "+args[0])
	}
	fmt.Fprint(stderr, paymentsHelp)
	return 2
}

// developer runs fn with a client of the resolved profile, and turns its
// error into exit code 1.
func developer(conn *connection, stderr io.Writer, fn func(c *client.Client) error) int {
	p, err := conn.resolve()
	var c *client.Client
	if err == nil {
		c, err = profileClient(p)
	}
	if err == nil {
		err = fn(c)
	}
	if err != nil {
		fmt.Fprintln(stderr, "bankrail:", err)
		return 1
	}
	return 0
}

// printJSON writes v as indented JSON.
func printJSON(w io.Writer, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return fmt.Errorf("encode: %w", err)
	}
	_, err = fmt.Fprintf(w, "%s\n", b)
	return err
}

// major writes minor units of currency as a decimal with its code.
func major(minor int64, currency string) string {
	m, err := money.New(minor, currency)
	if err != nil {
		return fmt.Sprintf("%d %s", minor, currency)
	}
	return m.Decimal() + " " + currency
}

func paymentsList(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	var conn connection
	var status, reference, currency string
	var limit int64
	var asJSON bool
	fs := newFlagSet("payments list", paymentsListHelp)
	conn.bind(fs)
	fs.StringVar(&status, "status", "", "only payments in this status, e.g. COMPLETED")
	fs.StringVar(&reference, "reference", "", "only payments with this paymentReference")
	fs.StringVar(&currency, "currency", "", "only payments in this currency, e.g. EUR")
	fs.Int64Var(&limit, "limit", 20, "how many payments, at most 100")
	fs.BoolVar(&asJSON, "json", false, "print the page as JSON")
	if err := parse(fs, args); err != nil {
		return exitCode(fs, err, stdout, stderr)
	}
	if limit < 1 || limit > 100 {
		return exitCode(fs, errors.New("--limit must be between 1 and 100"), stdout, stderr)
	}
	params := &api.ListPaymentsParams{Limit: &limit}
	if status != "" {
		s := api.PaymentStatus(strings.ToUpper(status))
		params.Status = &s
	}
	if reference != "" {
		params.PaymentReference = &reference
	}
	if currency != "" {
		c := strings.ToUpper(currency)
		params.Currency = &c
	}
	return developer(&conn, stderr, func(c *client.Client) error {
		pg, err := c.ListPayments(ctx, params)
		if err != nil {
			return err
		}
		if asJSON {
			return printJSON(stdout, pg.Items)
		}
		tw, flush := table(stdout, "ID\tSTATUS\tAMOUNT\tREFERENCE\tCREATED")
		for _, p := range pg.Items {
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", p.ID, p.Status, major(p.Amount, p.Currency.ID), p.PaymentReference, when(p.CreatedAt))
		}
		if err := flush(); err != nil {
			return err
		}
		if pg.TotalItems > int64(len(pg.Items)) {
			fmt.Fprintf(stdout, "%d of %d; --limit shows more, --status and --reference narrow them\n", len(pg.Items), pg.TotalItems)
		}
		return nil
	})
}

func paymentsGet(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	return idCommand("payments get", paymentsGetHelp, "payment", args, stdout, stderr, func(c *client.Client, id string, asJSON bool) error {
		p, err := c.GetPayment(ctx, id)
		if err != nil {
			return err
		}
		if asJSON {
			return printJSON(stdout, p)
		}
		tw, flush := table(stdout, "payment\t"+p.ID)
		fmt.Fprintf(tw, "status\t%s\namount\t%s\npayment reference\t%s\ninternal reference\t%s\nunique reference\t%s\n",
			p.Status, major(p.Amount, p.Currency.ID), p.PaymentReference, orDash(p.InternalReference), p.UniqueReference)
		fmt.Fprintf(tw, "payment system\t%s\ncustomer\t%s\ncreated\t%s\nupdated\t%s\n", p.PaymentSystem, p.CustomerID, when(p.CreatedAt), when(p.UpdatedAt))
		if p.Bank != nil {
			fmt.Fprintf(tw, "payer's bank\t%s\n", p.Bank.Name)
		}
		refund := "available"
		if !p.RefundAvailable {
			refund = "not available: " + p.RefundNotAvailableReason
		}
		fmt.Fprintf(tw, "refund\t%s\n", refund)
		for i, s := range p.StatusUpdates {
			label := ""
			if i == 0 {
				label = "history"
			}
			fmt.Fprintf(tw, "%s\t%s %s\n", label, when(s.CreatedAt), s.NewStatus)
		}
		return flush()
	})
}

// idCommand runs a developer command that names exactly one id of kind
// (`bankrail payments get <id>`): the connection flags and --json, then run
// with the API client. None or several ids, or a parse error, exit with
// their code.
func idCommand(name, help, kind string, args []string, stdout, stderr io.Writer, run func(c *client.Client, id string, asJSON bool) error) int {
	var conn connection
	var asJSON bool
	fs := newFlagSet(name, help)
	conn.bind(fs)
	fs.BoolVar(&asJSON, "json", false, "print the "+kind+" as JSON")
	positional, err := parseArgs(fs, args)
	if err == nil && len(positional) != 1 {
		err = fmt.Errorf("name one %s id, e.g. bankrail %s <id>", kind, fs.Name())
	}
	if err != nil {
		return exitCode(fs, err, stdout, stderr)
	}
	return developer(&conn, stderr, func(c *client.Client) error { return run(c, positional[0], asJSON) })
}
