package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"

	"github.com/bankrail/bankrail/internal/app"
	"github.com/bankrail/bankrail/internal/ledger"
)

// exitUnbalanced is the exit code of bankrail ledger verify when the books
// do not balance (1 is a failure to check them, 2 a usage error).
const exitUnbalanced = 3

// errUnbalanced ends a command whose books do not balance: withDatabase
// exits with exitUnbalanced.
var errUnbalanced = errors.New("the books do not balance")

// ledgerVerifyAbout is the help of bankrail ledger verify.
const ledgerVerifyAbout = `Verifies the books: for every account and bucket (AVAILABLE, PENDING, HELD) the cached balance
equals the sum of its postings, and every entry's postings sum to zero per currency. Sums that do
not fit in 64 bits are discrepancies too. It reads one snapshot of the database and changes nothing.
Prints a summary and every discrepancy (the first 10,000 of each kind).
Exit codes: 0 the books balance, 1 they could not be read, 2 a usage error, 3 they do not balance.`

// ledgerVerify binds the flags of "bankrail ledger verify".
func ledgerVerify(fs *flag.FlagSet, stdout io.Writer) func(context.Context, *app.App) error {
	asJSON := fs.Bool("json", false, "print the report as one JSON object (for scripts)")
	return func(ctx context.Context, a *app.App) error {
		r, err := ledger.VerifyBooks(ctx, a.Store().Books(), a.Clock().Now())
		if err != nil {
			return err
		}
		if *asJSON {
			err = json.NewEncoder(stdout).Encode(struct {
				Balanced bool `json:"balanced"`
				ledger.Report
			}{r.Balanced(), r})
		} else {
			err = printReport(stdout, r)
		}
		if err != nil {
			return err
		}
		if !r.Balanced() {
			return fmt.Errorf("%w: %d discrepancies", errUnbalanced, r.Discrepancies())
		}
		return nil
	}
}

// printReport writes r for a person: a summary, then each discrepancy.
func printReport(w io.Writer, r ledger.Report) error {
	fmt.Fprintf(w, "verified %d accounts, %d entries, %d postings at %s\n", r.Accounts, r.Entries, r.Postings, when(r.CheckedAt))
	if r.Balanced() {
		_, err := fmt.Fprintln(w, "the books balance")
		return err
	}
	fmt.Fprintf(w, "the books do NOT balance: %d discrepancies (%d balances, %d entries)\n",
		r.Discrepancies(), r.BalanceDiscrepancies, r.EntryDiscrepancies)
	for _, d := range r.Balances {
		fmt.Fprintln(w, "  "+d.String())
	}
	if more := r.BalanceDiscrepancies - int64(len(r.Balances)); more > 0 {
		fmt.Fprintf(w, "  ... and %d more balances\n", more)
	}
	for _, d := range r.Imbalanced {
		fmt.Fprintln(w, "  "+d.String())
	}
	if more := r.EntryDiscrepancies - int64(len(r.Imbalanced)); more > 0 {
		fmt.Fprintf(w, "  ... and %d more entries\n", more)
	}
	return nil
}
