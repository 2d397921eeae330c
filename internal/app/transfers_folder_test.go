package app_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bankrail/bankrail/internal/app"
	"github.com/bankrail/bankrail/internal/clock"
	"github.com/bankrail/bankrail/internal/config"
	"github.com/bankrail/bankrail/internal/dbtest"
	"github.com/bankrail/bankrail/internal/pain/xsdcheck"
	"github.com/bankrail/bankrail/internal/payout"
	"github.com/bankrail/bankrail/internal/refund"
	"github.com/bankrail/bankrail/internal/transfer"
)

// The transfers folder (serve --transfers-dir): a round writes the queued
// payout to out/ and imports the answers dropped in status/: the bank's
// rejection moves to status/done and rejects the payout; a file that is
// no pain.002 moves to status/failed with its reason beside it.
func TestTransfersFolder(t *testing.T) {
	t.Parallel()
	dbtest.EachMigrated(t, func(t *testing.T, db dbtest.DB) {
		base := clock.NewFake(settleEpoch)
		sandbox := settleApp(t, db, config.Sandbox, base, app.Options{})
		receivedPayment(t, sandbox, settleShopA, "settle-a", 1000)
		if err := sandbox.Close(); err != nil {
			t.Fatal(err)
		}
		prod := settleApp(t, db, config.Production, base, app.Options{})
		p := createPayout(t, prod, 300, "folder")
		dir := t.TempDir()
		folder := transfer.Folder{Service: prod.Transfers(), Dir: dir}
		if err := folder.Tick(adminContext()); err != nil {
			t.Fatal(err)
		}
		out, _ := filepath.Glob(filepath.Join(dir, transfer.OutDir, "*.xml"))
		if len(out) != 1 {
			t.Fatalf("%d files in out/", len(out))
		}
		body, err := os.ReadFile(out[0])
		if err != nil {
			t.Fatal(err)
		}
		xsdcheck.Validate(t, "pain.001.001.10.xsd", body)
		f, err := prod.Store().Transfers().FileByMsgID(adminContext(), transfer.Out, "", strings.TrimSuffix(filepath.Base(out[0]), ".xml"))
		if err != nil {
			t.Fatal(err)
		}
		status := filepath.Join(dir, transfer.StatusDir)
		if err := os.WriteFile(filepath.Join(status, "answer.xml"), bankAnswer(t, f, map[string]string{p.ID: "RJCT"}), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(status, "junk.xml"), []byte("<Document/>"), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := folder.Tick(adminContext()); err != nil {
			t.Fatal(err)
		}
		if _, err := os.Stat(filepath.Join(status, transfer.DoneDir, "answer.xml")); err != nil {
			t.Fatalf("the answer is not in done/: %v", err)
		}
		reason, err := os.ReadFile(filepath.Join(status, transfer.FailedDir, "junk.xml.reason.txt"))
		if err != nil || !strings.Contains(string(reason), "pain.002") {
			t.Fatalf("junk's reason: %q %v", reason, err)
		}
		if got, _ := prod.Payouts().Get(adminContext(), settleShopA, p.ID); got.Status != payout.Rejected {
			t.Fatalf("payout after the folder's answer: %s", got.Status)
		}
		if b := balanceOf(t, prod); b.Available != 1000 || b.Held != 0 {
			t.Fatalf("after the rejection: %+v", b)
		}
	})
}

// In the sandbox a refund the payer's bank rejects (REFUND_REJECTED) goes
// through the mock bank's files: a pain.001 and a pain.002 that rejects
// it, both valid and listed for the refund's customer beside the camt.054
// credit advice that brought the refunded payment's funds; the refund is
// REJECTED as before.
func TestSandboxRefundGoesThroughTheMockBanksFiles(t *testing.T) {
	t.Parallel()
	dbtest.EachMigrated(t, func(t *testing.T, db dbtest.DB) {
		a := settleApp(t, db, config.Sandbox, clock.NewFake(settleEpoch), app.Options{})
		f := requestRefund(t, a, settleShopA, receivedPayment(t, a, settleShopA, "settle-a", 1000), 250, true)
		runJobs(t, a)
		if got := refundStatus(t, a, f); got.Status != refund.Rejected {
			t.Fatalf("refund %s", got.Status)
		}
		page, err := a.Transfers().SandboxFiles(adminContext(), settleShopA, transfer.FileFilter{Page: 1, Limit: 10})
		if err != nil || len(page.Items) != 3 {
			t.Fatalf("the mock bank's files: %+v %v; want the payment's credit advice, the refund's pain.001 and its pain.002", page, err)
		}
		messages := map[string]bool{}
		for _, listed := range page.Items {
			messages[listed.Message] = true
			file, err := a.Transfers().SandboxFile(adminContext(), settleShopA, listed.ID)
			if err != nil {
				t.Fatal(err)
			}
			xsdcheck.Validate(t, file.Message+".xsd", file.Body)
			if file.Message == "pain.002.001.11" && !strings.Contains(string(file.Body), "<TxSts>RJCT</TxSts>") {
				t.Fatalf("the mock bank's answer does not reject: %s", file.Body)
			}
		}
		if !messages["camt.054.001.08"] || !messages["pain.001.001.10"] || !messages["pain.002.001.11"] {
			t.Fatalf("the mock bank's files are %v; want a camt.054, a pain.001 and a pain.002", messages)
		}
		if other, err := a.Transfers().SandboxFiles(adminContext(), settleShopB, transfer.FileFilter{Page: 1, Limit: 10}); err != nil || other.Total != 0 {
			t.Fatalf("another tenant sees %+v %v", other, err)
		}
	})
}
