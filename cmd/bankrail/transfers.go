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
	"github.com/bankrail/bankrail/internal/transfer"
)

// transfersExportAbout is the help of bankrail transfers export.
const transfersExportAbout = `Writes every queued payout and refund of production into pain.001.001.10 credit transfer files
(one file per 10,000 transfers; one payment block per Connect account) and writes every file not yet
delivered to DIR, named MSGID.xml (written to a temporary name, then renamed). Each transfer goes into
exactly one file, once, even while instances run on the same database (their --transfers-dir worker
does the same). Hand the files to the bank (EBICS, SFTP); docs/banking.md. Prints one line per file.`

// transfersStatusAbout is the help of bankrail transfers status.
const transfersStatusAbout = `Production: imports the bank's pain.002.001.11 answers to the transfer files, FILE... after the flags.
A rejected transfer (RJCT: of the transaction, its payment block or the whole file) ends its payout or
refund REJECTED, its hold released and its notification sent; an accepted one waits for the bank's
debit. Importing a file again changes nothing. Prints a summary per file (--json: one JSON object per
file, one per line). Exit 1 when a file is refused (not a pain.002, or it answers a file bankrail did not
write): the others are still imported.`

// transfersExport binds the flags of "bankrail transfers export".
func transfersExport(fs *flag.FlagSet, stdout io.Writer) func(context.Context, *app.App) error {
	out := fs.String("out", "", "the folder the pain.001 files are written to (required; created if missing)")
	return func(ctx context.Context, a *app.App) error {
		if *out == "" {
			return errors.New("--out is required: the folder the pain.001 files are written to")
		}
		files, err := a.ExportTransfers(ctx, *out)
		if err != nil {
			return err
		}
		if len(files) == 0 {
			_, err := fmt.Fprintln(stdout, "no transfer to export")
			return err
		}
		for _, f := range files {
			if _, err := fmt.Fprintf(stdout, "%s  %d transfers  %s EUR\n", f.Name(), f.Count, decimalEUR(f.Sum)); err != nil {
				return err
			}
		}
		return nil
	}
}

// transfersStatus binds the flags of "bankrail transfers status".
func transfersStatus(fs *flag.FlagSet, stdout io.Writer) func(context.Context, *app.App) error {
	asJSON := fs.Bool("json", false, "print one JSON object per file, one per line")
	return func(ctx context.Context, a *app.App) error {
		if fs.NArg() == 0 {
			return errors.New("give the pain.002 files to import after the flags (bankrail transfers status [--json] FILE)")
		}
		var failed []error
		for _, name := range fs.Args() {
			body, err := os.ReadFile(name)
			if err == nil {
				var s transfer.Summary
				if s, err = a.Transfers().Apply(ctx, body); err == nil {
					if *asJSON {
						err = json.NewEncoder(stdout).Encode(s)
					} else {
						_, err = fmt.Fprintf(stdout, "%s: answers %s: %d accepted, %d rejected, %d pending, %d unchanged, %d unknown%s%s\n",
							name, s.Original, s.Accepted, s.Rejected, s.Pending, s.Unchanged, len(s.Unknown), map[bool]string{true: " (imported before: nothing changed)"}[s.Duplicate],
							rejectedAfterBooking(s.RejectedAfterBooking))
					}
				}
			}
			if err != nil {
				failed = append(failed, fmt.Errorf("%s: %w", name, err))
			}
		}
		return errors.Join(failed...)
	}
}

// rejectedAfterBooking is the plain-text line's note of the transfers a
// report rejects whose debit the bank had booked already: nothing changed
// for them, and the operator asks the bank.
func rejectedAfterBooking(ids []string) string {
	if len(ids) == 0 {
		return ""
	}
	return fmt.Sprintf("; %d rejected after the bank booked them, unchanged (ask the bank): %s", len(ids), strings.Join(ids, ", "))
}

// decimalEUR writes cents as euros.
func decimalEUR(minor int64) string { return fmt.Sprintf("%d.%02d", minor/100, minor%100) }
