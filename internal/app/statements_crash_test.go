package app_test

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/bankrail/bankrail/internal/camt/camttest"
	"github.com/bankrail/bankrail/internal/dbtest"
	"github.com/bankrail/bankrail/internal/job"
	"github.com/bankrail/bankrail/internal/ledger"
	"github.com/bankrail/bankrail/internal/statement"
	"github.com/bankrail/bankrail/internal/store"
)

// crashEntries is the size of the statement the crash test kills an
// import of.
const crashEntries = 6000

// TestStatementHelperProcess is not a test: it is the child of
// TestCrashDuringStatementImport. It imports the file of its environment
// in units of 20 entries, printing the entries applied after each commit,
// until it is killed.
func TestStatementHelperProcess(t *testing.T) {
	if os.Getenv("BANKRAIL_STATEMENT_HELPER") != "1" {
		t.Skip("helper process only")
	}
	ctx := operatorContext()
	a, err := ledgerCrashApp(ctx, nil, job.Config{}, nil)
	if err != nil {
		fmt.Println("error", err)
		os.Exit(2)
	}
	im, err := statement.New(statement.Deps{InTx: store.Transactor[statement.Repos](a.Store()), Reads: a.Store().Statements(),
		Credit: a.Payments(), Payouts: a.Payouts(), Refunds: a.Refunds(), Clock: a.Clock(), Config: statement.Config{BatchSize: 20},
		Progress: func(_ string, n int) { fmt.Println("applied", n) }})
	if err != nil {
		fmt.Println("error", err)
		os.Exit(2)
	}
	f, err := os.Open(os.Getenv("BANKRAIL_HELPER_FILE"))
	if err != nil {
		fmt.Println("error", err)
		os.Exit(2)
	}
	if _, err := im.Import(ctx, "big.xml", f); err != nil {
		fmt.Println("error", err)
		os.Exit(2)
	}
	fmt.Println("done")
	select {} // wait for the kill
}

// TestCrashDuringStatementImport kills bankrail with SIGKILL in the middle
// of importing a large camt.053, then imports the same file again: every
// entry is booked once (one account transaction each, what the child had
// committed counted as duplicates), the balance is the file's sum, and the
// books balance.
func TestCrashDuringStatementImport(t *testing.T) {
	if testing.Short() {
		t.Skip("starts child processes")
	}
	dbtest.EachMigrated(t, func(t *testing.T, db dbtest.DB) {
		if db.Engine == dbtest.Postgres {
			db.DataDir = t.TempDir()
		}
		entries := make([]camttest.Entry, crashEntries)
		var total int64
		for i := range entries {
			entries[i] = camttest.Entry{AcctSvcrRef: fmt.Sprintf("BIG-%06d", i), Minor: int64(i%97 + 1), Credit: true,
				Txs: []camttest.Tx{{Ustrd: []string{fmt.Sprintf("payer %d", i)}}}}
			total += entries[i].Minor
		}
		file := filepath.Join(t.TempDir(), "big.xml")
		out, err := os.Create(file)
		if err != nil {
			t.Fatal(err)
		}
		if err := camttest.Write(out, 53, 8, "BIG", []camttest.Stmt{{IBAN: crashIBAN(t, db), Entries: entries}}); err != nil {
			t.Fatal(err)
		}
		if err := out.Close(); err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command(os.Args[0], "-test.run=^TestStatementHelperProcess$")
		cmd.Env = append(os.Environ(), "BANKRAIL_STATEMENT_HELPER=1", "BANKRAIL_HELPER_DATA_DIR="+db.DataDir,
			"BANKRAIL_HELPER_DATABASE_URL="+db.DatabaseURL, "BANKRAIL_HELPER_FILE="+file)
		cmd.Stderr = os.Stderr
		pipe, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
		sc := bufio.NewScanner(pipe)
		applied, deadline := 0, time.Now().Add(2*time.Minute)
		for sc.Scan() && applied < crashEntries/3 && time.Now().Before(deadline) {
			line := sc.Text()
			if n, ok := strings.CutPrefix(line, "applied "); ok {
				applied, _ = strconv.Atoi(n)
			} else if strings.HasPrefix(line, "error") || line == "done" {
				t.Fatalf("child: %s (after %d entries)", line, applied)
			}
		}
		if err := cmd.Process.Kill(); err != nil { // SIGKILL in the middle of the import
			t.Fatal(err)
		}
		for sc.Scan() {
			if n, ok := strings.CutPrefix(sc.Text(), "applied "); ok {
				applied, _ = strconv.Atoi(n)
			}
		}
		_ = cmd.Wait()
		if applied < crashEntries/3 || applied >= crashEntries {
			t.Fatalf("killed after %d of %d entries: not in the middle", applied, crashEntries)
		}

		a, err := ledgerCrashAppFor(t, db)
		if err != nil {
			t.Fatal(err)
		}
		defer a.Close()
		f, err := os.Open(file)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		sum, err := a.Statements().Import(operatorContext(), "big.xml", f)
		if err != nil {
			t.Fatal(err)
		}
		if sum.Duplicates < applied || sum.Duplicates+sum.ManualCredits != crashEntries || len(sum.Rejected) != 0 {
			t.Fatalf("re-import after the crash: %d duplicates (the child reported %d), %d credits, of %d; rejected %v",
				sum.Duplicates, applied, sum.ManualCredits, crashEntries, sum.Rejected)
		}
		ctx := adminContext()
		acct, err := a.Store().Ledger().Account(ctx, ledgerCrashCustomer, ledgerCrashAccount)
		if err != nil {
			t.Fatal(err)
		}
		postings, err := a.Store().Ledger().Entries(ctx, ledgerCrashAccount)
		if err != nil {
			t.Fatal(err)
		}
		txs := map[string]int{}
		for _, e := range postings {
			if err := ledger.Validate(e); err != nil {
				t.Fatal(err)
			}
			txs[e.TransactionID]++
		}
		if len(txs) != crashEntries || len(postings) != crashEntries || acct.Balance.Available != total {
			t.Fatalf("%d transactions (%d postings), available %d; want %d (one entry each) and %d", len(txs), len(postings), acct.Balance.Available, crashEntries, total)
		}
		if replay := ledger.Replay(postings)[ledgerCrashAccount]; replay != acct.Balance {
			t.Fatalf("cached balance %+v, postings %+v", acct.Balance, replay)
		}
		t.Logf("killed after %d of %d entries; the re-import found %d applied and booked %d", applied, crashEntries, sum.Duplicates, sum.ManualCredits)
	})
}

// crashIBAN is the IBAN of the crash test's account (made by the seed of
// ledgerCrashApp, which opens the database once to make it).
func crashIBAN(t *testing.T, db dbtest.DB) string {
	t.Helper()
	a, err := ledgerCrashAppFor(t, db)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	acct, err := a.Store().Ledger().Account(adminContext(), ledgerCrashCustomer, ledgerCrashAccount)
	if err != nil {
		t.Fatal(err)
	}
	return acct.IBAN
}
