package app_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/bankrail/bankrail/internal/app"
	"github.com/bankrail/bankrail/internal/bank"
	"github.com/bankrail/bankrail/internal/clock"
	"github.com/bankrail/bankrail/internal/config"
	"github.com/bankrail/bankrail/internal/dbtest"
	"github.com/bankrail/bankrail/internal/identity"
	"github.com/bankrail/bankrail/internal/job"
	"github.com/bankrail/bankrail/internal/ledger"
	"github.com/bankrail/bankrail/internal/notify"
	"github.com/bankrail/bankrail/internal/paging"
	"github.com/bankrail/bankrail/internal/payment"
	"github.com/bankrail/bankrail/internal/refund"
	"github.com/bankrail/bankrail/internal/seed"
	"github.com/bankrail/bankrail/notification"
)

const (
	ledgerCrashCustomer = "50000000-0000-4000-8000-000000000002"
	ledgerCrashAccount  = "50000000-0000-4000-8000-0000000000e2"
)

// ledgerCrashApp starts internal/app on the database of the helper's
// environment with a merchant that has a EUR Connect account; jobs tunes
// its job worker.
func ledgerCrashApp(ctx context.Context, base clock.Clock, jobs job.Config, transfers bank.TransferSender) (*app.App, error) {
	cfg := config.Default()
	cfg.DataDir = os.Getenv("BANKRAIL_HELPER_DATA_DIR")
	cfg.DatabaseURL = os.Getenv("BANKRAIL_HELPER_DATABASE_URL")
	hp := identity.HashParams{Time: 1, Memory: 1024, Threads: 1}
	f := seed.File{Customers: []seed.Customer{{ID: ledgerCrashCustomer, Name: "Ledger Crash Shop",
		Applications: []seed.Application{{ClientID: "ledger-crash-client", ClientSecret: "ledger-crash-secret", NotificationSecret: "ledger-crash-notification-secret"}},
		Accounts:     []seed.Account{{ID: ledgerCrashAccount, Currency: "EUR"}}}}}
	return app.New(ctx, cfg, slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn})),
		app.Options{BaseClock: base, HashParams: &hp, Seed: &f, Jobs: jobs, Transfers: transfers})
}

// TestLedgerHelperProcess is not a test: it is the child of
// TestCrashKeepsTheBooks. It streams, until killed, expected payments
// completed by the mock bank (their funds credit the account), payins
// (matched and unmatched) and refunds, printing what each committed, while
// its job worker settles the refunds through a mock bank that answers
// PENDING for their first 30 ms (so that the kill falls between a refund's
// creation and its settlement, or inside a settlement).
func TestLedgerHelperProcess(t *testing.T) {
	if os.Getenv("BANKRAIL_LEDGER_HELPER") != "1" {
		t.Skip("helper process only")
	}
	ctx := adminContext()
	a, err := ledgerCrashApp(ctx, nil, job.Config{Poll: 5 * time.Millisecond},
		refund.MockBank{Clock: clock.Real{}, AnswerAfter: 30 * time.Millisecond})
	if err != nil {
		fmt.Println("error", err)
		os.Exit(2)
	}
	a.StartWorkers(ctx)
	fmt.Println("started")
	acct, _, _ := a.Accounts().ConnectAccount(ctx, ledgerCrashCustomer, "EUR")
	completed, _ := payment.ParseOutcome("COMPLETED")
	for i := 0; ; i++ {
		amount := int64(1000 + i%7)
		req := payment.CreateRequest{Currency: "EUR", Amount: &amount, PaymentSystem: bank.OpenBankingEU,
			PaymentReference: fmt.Sprintf("crash %d", i), OpenBankingEU: &payment.OpenBankingEU{Type: payment.TypeGoods}}
		resp, err := a.Payments().Create(ctx, payment.CreateInput{Creator: payment.Creator{CustomerID: ledgerCrashCustomer,
			ClientID: "ledger-crash-client", UserID: "u"}, Channel: payment.ChannelHosted, Operation: "crash", Request: req,
			Scenario: completed}, func(payment.Payment) ([]byte, error) { return []byte("{}"), nil })
		if err != nil {
			fmt.Println("error", err)
			os.Exit(2)
		}
		ext := fmt.Sprintf("ext-%d", i)
		if _, err := a.Payments().Payin(ctx, payment.PayinInput{ViewerCustomerID: ledgerCrashCustomer, ExternalPaymentID: ext,
			PaymentReference: "stray", Amount: 5, Currency: "EUR", BeneficiaryIBAN: acct.IBAN}); err != nil {
			fmt.Println("error", err)
			os.Exit(2)
		}
		fmt.Println("payin", ext)
		f, err := a.Refunds().Request(ctx, refund.Input{ViewerCustomerID: ledgerCrashCustomer, PaymentID: resp.ResourceID,
			Amount: &[]int64{300}[0], ExternalReference: "crash"}, func(f refund.Refund) ([]byte, error) { return []byte(f.ID), nil })
		if err != nil {
			fmt.Println("error", err)
			os.Exit(2)
		}
		fmt.Println("refund", f.ResourceID)
	}
}

// TestCrashKeepsTheBooks kills bankrail with SIGKILL during a stream of
// payments received, payins and refunds, and checks on the same database
// that every reported commit is there exactly once and that the books
// balance: every entry sums to zero, the account's cached balance is the
// sum of its postings and no balance is negative. The refunds the child did
// not settle (their job waiting, or running under the dead child's lease)
// are settled by a new instance's job worker: each exactly once (one
// settling entry, one refund_confirmed).
func TestCrashKeepsTheBooks(t *testing.T) {
	if testing.Short() {
		t.Skip("starts child processes")
	}
	dbtest.EachMigrated(t, func(t *testing.T, db dbtest.DB) {
		if db.Engine == dbtest.Postgres {
			db.DataDir = t.TempDir()
		}
		cmd := exec.Command(os.Args[0], "-test.run=^TestLedgerHelperProcess$")
		cmd.Env = append(os.Environ(), "BANKRAIL_LEDGER_HELPER=1", "BANKRAIL_HELPER_DATA_DIR="+db.DataDir,
			"BANKRAIL_HELPER_DATABASE_URL="+db.DatabaseURL)
		cmd.Stderr = os.Stderr
		out, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
		payins, refunds := map[string]bool{}, map[string]bool{}
		sc := bufio.NewScanner(out)
		deadline := time.Now().Add(90 * time.Second)
		for sc.Scan() && len(refunds) < 40 && time.Now().Before(deadline) {
			switch kind, id, _ := strings.Cut(sc.Text(), " "); kind {
			case "payin":
				payins[id] = true
			case "refund":
				refunds[id] = true
			case "error":
				t.Fatalf("child: %s", sc.Text())
			}
		}
		if err := cmd.Process.Kill(); err != nil { // SIGKILL in the middle of the stream
			t.Fatal(err)
		}
		for sc.Scan() { // what was reported before the kill
			if kind, id, _ := strings.Cut(sc.Text(), " "); kind == "payin" {
				payins[id] = true
			} else if kind == "refund" {
				refunds[id] = true
			}
		}
		_ = cmd.Wait()
		if len(refunds) < 40 {
			t.Fatalf("only %d refunds before the deadline", len(refunds))
		}

		a, err := ledgerCrashAppFor(t, db)
		if err != nil {
			t.Fatal(err)
		}
		defer a.Close()
		ctx := adminContext()
		pending := 0
		for id := range refunds {
			if f, err := a.Refunds().Get(ctx, ledgerCrashCustomer, id); err == nil && f.Status == refund.Pending {
				pending++
			}
		}
		ran, err := a.RunDueJobs(ctx) // the dead child's leases have run out on this lease clock
		if err != nil {
			t.Fatal(err)
		}
		for ext := range payins {
			if tx, err := a.Store().Ledger().TransactionByExternalID(ctx, ledgerCrashAccount, ext); err != nil || tx.Type != ledger.TypeManualCredit {
				t.Fatalf("payin %s reported but %+v %v", ext, tx, err)
			}
		}
		for id := range refunds {
			if f, err := a.Refunds().Get(ctx, ledgerCrashCustomer, id); err != nil || f.Status != refund.Confirmed {
				t.Fatalf("refund %s reported but %+v %v", id, f, err)
			}
		}
		acct, err := a.Store().Ledger().Account(ctx, ledgerCrashCustomer, ledgerCrashAccount)
		if err != nil {
			t.Fatal(err)
		}
		entries, err := a.Store().Ledger().Entries(ctx, ledgerCrashAccount)
		if err != nil {
			t.Fatal(err)
		}
		perTx := map[string]int{}
		for _, e := range entries {
			if err := ledger.Validate(e); err != nil {
				t.Fatal(err)
			}
			perTx[e.TransactionID]++
		}
		notes, err := a.Store().ListNotifications(ctx, ledgerCrashCustomer, notify.Filter{Page: 1, Limit: 100_000})
		if err != nil {
			t.Fatal(err)
		}
		confirmed := map[string]int{}
		for _, n := range notes.Items {
			if n.Type == notification.TypeRefundConfirmed {
				var b notification.Refund
				if err := json.Unmarshal(n.Body, &b); err != nil {
					t.Fatal(err)
				}
				confirmed[b.Refund]++
			}
		}
		for id := range refunds {
			f, _ := a.Refunds().Get(ctx, ledgerCrashCustomer, id)
			if perTx[f.TransactionID] != 2 || confirmed[id] != 1 {
				t.Fatalf("refund %s: %d entries (want the hold and its settlement), %d refund_confirmed (want 1)",
					id, perTx[f.TransactionID], confirmed[id])
			}
		}
		if sum := ledger.Replay(entries)[ledgerCrashAccount]; sum != acct.Balance || sum.Negative() {
			t.Fatalf("cached balance %+v, postings %+v", acct.Balance, sum)
		}
		_, total, err := paging.Unpack(a.Accounts().ListTransactions(ctx, ledgerCrashCustomer, ledgerCrashAccount, ledger.TxFilter{Limit: 1}))
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("killed after %d payins and %d refunds reported (%d still PENDING, settled by %d jobs of the new instance); %d transactions, %d entries, balance %+v",
			len(payins), len(refunds), pending, ran, total, len(entries), acct.Balance)
	})
}

// ledgerCrashAppFor opens the crashed database as the helper did, with its
// clock and its job lease clock an hour ahead: every job the killed child
// left is due (also one it retried after an error, on the backoff) and the
// leases it held have run out; and the sandbox's mock bank, which answers
// at once.
func ledgerCrashAppFor(t *testing.T, db dbtest.DB) (*app.App, error) {
	t.Setenv("BANKRAIL_HELPER_DATA_DIR", db.DataDir)
	t.Setenv("BANKRAIL_HELPER_DATABASE_URL", db.DatabaseURL)
	later := time.Now().Add(time.Hour)
	return ledgerCrashApp(adminContext(), clock.NewFake(later), job.Config{LeaseClock: clock.NewFake(later)}, nil)
}
