package app_test

import (
	"bufio"
	"context"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/bankrail/bankrail/internal/app"
	"github.com/bankrail/bankrail/internal/bank"
	"github.com/bankrail/bankrail/internal/config"
	"github.com/bankrail/bankrail/internal/dbtest"
	"github.com/bankrail/bankrail/internal/identity"
	"github.com/bankrail/bankrail/internal/ledger"
	"github.com/bankrail/bankrail/internal/payment"
	"github.com/bankrail/bankrail/internal/refund"
	"github.com/bankrail/bankrail/internal/seed"
)

const (
	ledgerCrashCustomer = "50000000-0000-4000-8000-000000000002"
	ledgerCrashAccount  = "50000000-0000-4000-8000-0000000000e2"
)

// ledgerCrashApp starts internal/app on the database of the helper's
// environment with a merchant that has a EUR Connect account.
func ledgerCrashApp(ctx context.Context) (*app.App, error) {
	cfg := config.Default()
	cfg.DataDir = os.Getenv("BANKRAIL_HELPER_DATA_DIR")
	cfg.DatabaseURL = os.Getenv("BANKRAIL_HELPER_DATABASE_URL")
	hp := identity.HashParams{Time: 1, Memory: 1024, Threads: 1}
	f := seed.File{Customers: []seed.Customer{{ID: ledgerCrashCustomer, Name: "Ledger Crash Shop",
		Applications: []seed.Application{{ClientID: "ledger-crash-client", ClientSecret: "ledger-crash-secret", NotificationSecret: "ledger-crash-notification-secret"}},
		Accounts:     []seed.Account{{ID: ledgerCrashAccount, Currency: "EUR"}}}}}
	return app.New(ctx, cfg, slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn})),
		app.Options{HashParams: &hp, Seed: &f})
}

// TestLedgerHelperProcess is not a test: it is the child of
// TestCrashKeepsTheBooks. It streams, until killed, expected payments
// completed by the mock bank (their funds credit the account), payins
// (matched and unmatched) and refunds, printing what each committed.
func TestLedgerHelperProcess(t *testing.T) {
	if os.Getenv("BANKRAIL_LEDGER_HELPER") != "1" {
		t.Skip("helper process only")
	}
	ctx := context.Background()
	a, err := ledgerCrashApp(ctx)
	if err != nil {
		fmt.Println("error", err)
		os.Exit(2)
	}
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
// sum of its postings and no balance is negative.
func TestCrashKeepsTheBooks(t *testing.T) {
	if testing.Short() {
		t.Skip("starts child processes")
	}
	dbtest.Each(t, func(t *testing.T, db dbtest.DB) {
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
		ctx := context.Background()
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
		for _, e := range entries {
			if err := ledger.Validate(e); err != nil {
				t.Fatal(err)
			}
		}
		if sum := ledger.Replay(entries)[ledgerCrashAccount]; sum != acct.Balance || sum.Negative() {
			t.Fatalf("cached balance %+v, postings %+v", acct.Balance, sum)
		}
		_, total, err := a.Accounts().ListTransactions(ctx, ledgerCrashCustomer, ledgerCrashAccount, ledger.TxFilter{Limit: 1})
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("killed after %d payins and %d refunds reported; %d transactions, %d entries, balance %+v",
			len(payins), len(refunds), total, len(entries), acct.Balance)
	})
}

// ledgerCrashAppFor opens the crashed database as the helper did.
func ledgerCrashAppFor(t *testing.T, db dbtest.DB) (*app.App, error) {
	t.Setenv("BANKRAIL_HELPER_DATA_DIR", db.DataDir)
	t.Setenv("BANKRAIL_HELPER_DATABASE_URL", db.DatabaseURL)
	return ledgerCrashApp(context.Background())
}
