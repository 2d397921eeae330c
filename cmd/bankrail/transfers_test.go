package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/bankrail/bankrail/internal/app"
	"github.com/bankrail/bankrail/internal/dbtest"
	"github.com/bankrail/bankrail/internal/pain"
	"github.com/bankrail/bankrail/internal/pain/xsdcheck"
	"github.com/bankrail/bankrail/internal/store"
	"github.com/bankrail/bankrail/internal/transfer"
)

// TestTransfersExportAndStatus: bankrail transfers export --out DIR writes
// the queued transfers as one pain.001 named by its MsgId (valid against
// the XSD), and nothing the second time; bankrail transfers status FILE
// imports the bank's pain.002 (an end-to-end id that is not bankrail's is
// counted as unknown; the same file again changes nothing); a
// file that is not a pain.002 exits 1 and names the problem; a report
// that rejects a transfer the bank booked already changes nothing and the
// plain-text line lists it (rejectedAfterBooking, as --json does).
func TestTransfersExportAndStatus(t *testing.T) {
	t.Parallel()
	dbtest.EachMigrated(t, func(t *testing.T, db dbtest.DB) {
		storage, admin := adminOn(t, db)
		if out := admin("transfers", "export", "--out", t.TempDir()); out != "no transfer to export\n" {
			t.Fatalf("nothing queued: %q", out)
		}
		ids := []string{"7b000000-0000-4000-8000-000000000001", "7b000000-0000-4000-8000-000000000002"}
		onBooks(t, storage, func(ctx context.Context, a *app.App) error {
			return a.Store().InTx(ctx, func(tx *store.Tx) error {
				for i, id := range ids {
					err := transfer.Queue(ctx, tx, transfer.Transfer{ID: id, OwnerID: id, Kind: transfer.KindPayout, CustomerID: "c",
						AccountID: "a", DebtorIBAN: "DE89370400440532013000", CreditorName: "Jürgen", CreditorIBAN: "FR1420041010050500013M02606",
						Amount: int64(1000 * (i + 1)), Currency: "EUR", Remittance: "Invoice 1", CreatedAt: time.Now()})
					if err != nil {
						return err
					}
				}
				return nil
			})
		})
		dir := t.TempDir()
		out := admin("transfers", "export", "--out", dir)
		if !strings.Contains(out, "2 transfers  30.00 EUR") {
			t.Fatalf("export: %q", out)
		}
		names, _ := filepath.Glob(filepath.Join(dir, "*.xml"))
		if len(names) != 1 {
			t.Fatalf("%d files in --out", len(names))
		}
		body, err := os.ReadFile(names[0])
		if err != nil {
			t.Fatal(err)
		}
		xsdcheck.Validate(t, "pain.001.001.10.xsd", body)
		if out := admin("transfers", "export", "--out", dir); out != "no transfer to export\n" {
			t.Fatalf("a second export: %q", out)
		}

		msgID := strings.TrimSuffix(filepath.Base(names[0]), ".xml")
		var buf bytes.Buffer
		a := pain.Answer{ID: "BANK-1", CreatedAt: time.Now(), OriginalMsgID: msgID, Group: pain.Status{Code: "ACCP"},
			Transactions: []pain.Transaction{{PaymentInfoID: "X", EndToEndID: "NOT-BANKRAILS", Status: pain.Status{Code: "RJCT"}}}}
		if err := pain.WriteStatus(&buf, a); err != nil {
			t.Fatal(err)
		}
		answer := filepath.Join(t.TempDir(), "answer.xml")
		if err := os.WriteFile(answer, buf.Bytes(), 0o600); err != nil {
			t.Fatal(err)
		}
		status := func(file string) (int, string, string) {
			return runCmd(t, append(append([]string{"transfers", "status"}, storage...), file)...)
		}
		if code, out, errOut := status(answer); code != 0 || !strings.Contains(out, "2 accepted, 0 rejected, 0 pending, 0 unchanged, 1 unknown") {
			t.Fatalf("status: exit %d %q %q", code, out, errOut)
		}
		if code, out, _ := status(answer); code != 0 || !strings.Contains(out, "imported before") {
			t.Fatalf("status again: exit %d %q", code, out)
		}
		if code, _, errOut := status(names[0]); code != 1 || !strings.Contains(errOut, "not a pain.002.001.11") {
			t.Fatalf("a pain.001 as the answer: exit %d %q", code, errOut)
		}

		// The bank debits the first transfer (as a camt.054 would book it),
		// then a late report rejects it: unchanged, and the plain text says so.
		onBooks(t, storage, func(ctx context.Context, a *app.App) error {
			return a.Store().InTx(ctx, func(tx *store.Tx) error {
				return tx.Transfers().Answer(ctx, ids[0], transfer.Accepted, transfer.Booked, "", time.Now())
			})
		})
		buf.Reset()
		late := pain.Answer{ID: "BANK-2", CreatedAt: time.Now(), OriginalMsgID: msgID, Group: pain.Status{Code: "PART"},
			Transactions: []pain.Transaction{{PaymentInfoID: "X", EndToEndID: pain.EndToEndID(ids[0]), Status: pain.Status{Code: "RJCT", Reason: "AC04"}}}}
		if err := pain.WriteStatus(&buf, late); err != nil {
			t.Fatal(err)
		}
		lateFile := filepath.Join(t.TempDir(), "late.xml")
		if err := os.WriteFile(lateFile, buf.Bytes(), 0o600); err != nil {
			t.Fatal(err)
		}
		code, out, errOut := status(lateFile)
		if code != 0 || !strings.Contains(out, "1 rejected after the bank booked them, unchanged (ask the bank): "+ids[0]) {
			t.Fatalf("a rejection after the booking: exit %d %q %q", code, out, errOut)
		}
	})
}
