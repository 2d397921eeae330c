package main

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"sync"
	"time"

	"log/slog"

	"github.com/bankrail/bankrail/internal/app"
	"github.com/bankrail/bankrail/internal/bank"
	"github.com/bankrail/bankrail/internal/camt"
	"github.com/bankrail/bankrail/internal/camt/camttest"
	"github.com/bankrail/bankrail/internal/identity"
	"github.com/bankrail/bankrail/internal/payment"
	"github.com/bankrail/bankrail/internal/seed"
)

// statementsUsage explains the statements subcommand.
const statementsUsage = `bankrail-bench statements [--entries N] [--database-url URL]
    on a fresh database (SQLite, or a schema of --database-url), without a server or workers (as
    "bankrail statements import" runs): seeds N/2 expected payments of the demo merchant (one through
    the payment service, the others copies of its rows), writes a camt.053.001.08 of N booked credits to
    its Connect account, half of them naming an expected payment, and measures in one run:
      reference read:   the file read by the camt reader alone (no database);
      reference insert: N rows inserted into a table of one column, 64 rows a transaction (the
                        importer's unit), the least a database can do per entry;
      import:           the statement import (entries/s, its ratio to each reference) and the
                        process's peak RSS (VmHWM) during it (the server's own memory included).
    Each phase is also given per second of CPU (this process's and, on PostgreSQL, the database
    backends'), which does not depend on what else the machine runs. --cpuprofile FILE writes a
    CPU profile of the import.`

// runStatements measures the statement import.
func runStatements(args []string) error {
	fs := flag.NewFlagSet("statements", flag.ContinueOnError)
	fs.Usage = func() { fmt.Fprintln(fs.Output(), statementsUsage) }
	entries := fs.Int("entries", 100000, "entries of the statement")
	databaseURL := fs.String("database-url", "", "postgres://...; empty for SQLite")
	cpuProfile := fs.String("cpuprofile", "", "write a CPU profile of the import alone to this file")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *entries < 2 {
		return errors.New("--entries must be at least 2")
	}
	ctx := context.Background()
	cfg, cleanup, err := benchConfig(ctx, *databaseURL)
	if err != nil {
		return err
	}
	defer cleanup()
	// No server and no workers: the import as `bankrail statements
	// import` runs it (the notification dispatcher of a running server
	// would deliver the payments' notifications meanwhile, on the same
	// cores).
	demo := seed.Demo("")
	a, err := app.New(ctx, cfg, slog.New(slog.DiscardHandler), app.Options{Seed: &demo})
	if err != nil {
		return err
	}
	defer func() { _ = a.Close() }()
	engine := "SQLite"
	if cfg.UsesPostgres() {
		engine = "PostgreSQL"
	}
	start := time.Now()
	refs, err := seedExpected(ctx, a, *entries/2, cfg.UsesPostgres())
	if err != nil {
		return err
	}
	fmt.Printf("bankrail-bench statements: %s, %d expected payments seeded in %s (one through the service, copies of it: statements_seed.go)\n",
		engine, len(refs), time.Since(start).Round(time.Millisecond))
	file := filepath.Join(cfg.DataDir, "statement.xml")
	if err := writeStatement(file, *entries, refs); err != nil {
		return err
	}
	info, err := os.Stat(file)
	if err != nil {
		return err
	}
	fmt.Printf("statement: %d entries, %.1f MB\n", *entries, float64(info.Size())/1e6)

	meter := &cpuMeter{ctx: ctx, a: a, postgres: cfg.UsesPostgres()}
	meter.start()
	readRate, err := timeIt(*entries, func() error {
		f, err := os.Open(file)
		if err != nil {
			return err
		}
		defer func() { _ = f.Close() }() // read only
		_, err = camt.Read(f, discard{})
		return err
	})
	if err != nil {
		return err
	}
	readCPU := meter.used()
	meter.start()
	insertRate, err := timeIt(*entries, func() error {
		write, _ := a.Store().Pools()
		return referenceInsert(ctx, write, *entries)
	})
	if err != nil {
		return err
	}
	insertCPU := meter.used()
	runtime.GC()
	debug.FreeOSMemory()
	resetPeakRSS()
	base := peakRSS()
	opCtx := identity.WithPrincipal(ctx, identity.Principal{Role: identity.RoleOperator, Username: "bench"})
	var sum struct{ matched, manual int }
	stop, err := startCPUProfile(*cpuProfile)
	if err != nil {
		return err
	}
	meter.start()
	importRate, err := timeIt(*entries, func() error {
		f, err := os.Open(file)
		if err != nil {
			return err
		}
		defer func() { _ = f.Close() }() // read only
		s, err := a.Statements().Import(opCtx, "statement.xml", f)
		sum.matched, sum.manual = s.Matched, s.ManualCredits
		return err
	})
	stop()
	importProc, importDB := meter.split()
	importCPU := importProc + importDB
	if err != nil {
		return err
	}
	peak := peakRSS()
	perCPU := func(d time.Duration) float64 { return float64(*entries) / d.Seconds() }
	fmt.Printf("\n%-18s %12s %14s %16s %14s\n", "phase", "entries/s", "import ÷ it", "entries/CPU-s", "import ÷ it")
	fmt.Printf("%-18s %12.0f %14.3f %16.0f %14.3f\n", "reference read", readRate, importRate/readRate, perCPU(readCPU), perCPU(importCPU)/perCPU(readCPU))
	fmt.Printf("%-18s %12.0f %14.3f %16.0f %14.3f\n", "reference insert", insertRate, importRate/insertRate, perCPU(insertCPU), perCPU(importCPU)/perCPU(insertCPU))
	fmt.Printf("%-18s %12.0f %14s %16.0f %14s\n", "import", importRate, "", perCPU(importCPU), "")
	fmt.Printf("CPU (this process + the database's backends): read %s, insert %s, import %s\n",
		readCPU.Round(time.Millisecond), insertCPU.Round(time.Millisecond), importCPU.Round(time.Millisecond))
	perEntry := func(d time.Duration) float64 { return float64(d.Microseconds()) / float64(*entries) }
	fmt.Printf("import CPU an entry: %.0f µs (this process %.0f µs, the database's backends %.0f µs)\n",
		perEntry(importCPU), perEntry(importProc), perEntry(importDB))
	fmt.Printf("import: %d matched, %d manual credits; peak RSS (VmHWM) %.1f MB during the import (%.1f MB before it); targets: >= 20000 entries/s, < 100 MB\n",
		sum.matched, sum.manual, float64(peak)/1e6, float64(base)/1e6)
	return nil
}

// discard is a camt.Handler that keeps nothing.
type discard struct{}

func (discard) Report(camt.Report) error            { return nil }
func (discard) Entry(camt.Report, camt.Entry) error { return nil }

// timeIt runs fn once and returns n per second of its duration.
func timeIt(n int, fn func() error) (float64, error) {
	start := time.Now()
	if err := fn(); err != nil {
		return 0, err
	}
	return float64(n) / time.Since(start).Seconds(), nil
}

// cpuMeter measures the CPU time of a phase: this process's and, on
// PostgreSQL, the database backends' (dbcpu.go). On a machine shared with
// other work, the wall-clock rates of two phases measured one after the
// other vary with the others' load; their CPU times do not.
type cpuMeter struct {
	ctx      context.Context
	a        *app.App
	postgres bool
	proc     time.Duration
	db       map[int]time.Duration
}

func (m *cpuMeter) start() {
	m.proc, _ = processCPU(os.Getpid())
	m.db = databaseCPU(m.ctx, m.a, m.postgres)
}

// used is the CPU time since start.
func (m *cpuMeter) used() time.Duration {
	proc, db := m.split()
	return proc + db
}

// split is the CPU time since start: this process's, the database
// backends'.
func (m *cpuMeter) split() (proc, db time.Duration) {
	now, _ := processCPU(os.Getpid())
	return now - m.proc, cpuSince(m.db, databaseCPU(m.ctx, m.a, m.postgres))
}

// referenceInsert inserts n rows of one column, 64 a transaction.
func referenceInsert(ctx context.Context, write *sql.DB, n int) error {
	if _, err := write.ExecContext(ctx, `CREATE TABLE bench_entries (k TEXT PRIMARY KEY)`); err != nil {
		return err
	}
	for done := 0; done < n; {
		tx, err := write.BeginTx(ctx, nil)
		if err != nil {
			return err
		}
		for i := 0; i < 64 && done < n; i++ {
			if _, err := tx.ExecContext(ctx, `INSERT INTO bench_entries (k) VALUES ($1)`, fmt.Sprintf("entry-%09d", done)); err != nil {
				_ = tx.Rollback()
				return err
			}
			done++
		}
		if err := tx.Commit(); err != nil {
			return err
		}
	}
	return nil
}

// expectedPayments creates n payments of the demo merchant expected on its
// EUR Connect account (NOT_RECEIVED: amount 2050 and COMPLETED), four at a
// time, and returns their ids.
func expectedPayments(ctx context.Context, payments *payment.Service, n int) ([]string, error) {
	ctx = identity.WithPrincipal(ctx, identity.Principal{Role: identity.RoleAdmin, CustomerID: seed.DemoCustomerID, ClientID: seed.DemoClientID})
	completed, _ := payment.ParseOutcome("COMPLETED")
	ids := make([]string, n)
	var wg sync.WaitGroup
	errs := make(chan error, 4)
	for w := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := w; i < n; i += 4 {
				amount := int64(2050)
				req := payment.CreateRequest{Currency: "EUR", Amount: &amount, PaymentSystem: bank.OpenBankingEU,
					PaymentReference: fmt.Sprintf("bench %d", i), OpenBankingEU: &payment.OpenBankingEU{Type: payment.TypeGoods}}
				resp, err := payments.Create(ctx, payment.CreateInput{Creator: payment.Creator{CustomerID: seed.DemoCustomerID,
					ClientID: seed.DemoClientID, UserID: "bench"}, Channel: payment.ChannelHosted, Operation: "bench", Request: req,
					Scenario: completed}, func(payment.Payment) ([]byte, error) { return nil, nil })
				if err != nil {
					errs <- err
					return
				}
				ids[i] = resp.ResourceID
			}
		}()
	}
	wg.Wait()
	close(errs)
	return ids, <-errs
}

// writeStatement writes a camt.053.001.08 of n credits to the demo
// merchant's EUR account: entry i < len(refs)*2 names refs[i/2] on even i.
func writeStatement(path string, n int, refs []string) error {
	entries := make([]camttest.Entry, n)
	for i := range entries {
		e := camttest.Entry{AcctSvcrRef: fmt.Sprintf("BENCH-%09d", i), Minor: int64(100 + i%997), Credit: true,
			Txs: []camttest.Tx{{Ustrd: []string{fmt.Sprintf("unknown %d", i)}, Name: "Payer", IBAN: "FR1420041010050500013M02606"}}}
		if i%2 == 0 && i/2 < len(refs) {
			e.Minor, e.Txs[0].Ustrd = 2050, []string{refs[i/2]}
		}
		entries[i] = e
	}
	var buf bytes.Buffer
	if err := camttest.Write(&buf, 53, 8, "BENCH", []camttest.Stmt{{IBAN: seed.DemoEURIBAN, Entries: entries}}); err != nil {
		return err
	}
	return os.WriteFile(path, buf.Bytes(), 0o600)
}
