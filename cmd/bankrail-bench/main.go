// Command bankrail-bench measures bankrail's payment endpoints beside a
// reference measured in the same run on the same database. It starts
// bankrail in-process on a loopback port (SQLite in a temporary directory, or
// a fresh schema of --database-url), signs in, and drives, each for
// --duration with --clients concurrent keep-alive clients, in --rounds that
// alternate each endpoint with its reference:
//
//   - reference INSERT: a minimal handler doing one INSERT of an equivalent
//     row in one transaction;
//   - POST /payments;
//   - reference SELECT: a minimal handler reading one such row by key;
//   - GET /payments/{id};
//   - a lifecycle in-process (POST /payments, POST /sandbox/payments/{id}/authorise),
//     the same lifecycle through the NextGenPSD2 connector and the mock
//     ASPSP, and the payer's same steps on a second instance whose mock
//     banks answer in-process (lifecycle.go), the second given as a ratio
//     to the first and to the third.
//
// It prints requests per second, p50 and p99 latency and the ratio of each
// endpoint to its reference. Traffic goes to 127.0.0.1 only and every phase
// stops by itself.
//
// Two subcommands measure reports (see report.go and docs/reports.md):
// "seed --payments N" fills an existing database, and "report --payments N"
// measures the generation and download of a PAYMENTS report of N payments.
//
// "load" (load.go) drives many concurrent connections, like wrk, against a
// bare Go net/http server and bankrail on SQLite and PostgreSQL, giving each
// figure as a ratio to the bare server measured in the same run, and writes
// docs/performance.md (see there for the figures and command lines).
// "list" measures page 1 and deep pages of GET /payments at growing sizes;
// "statements" measures the import of a bank statement (statements.go);
// "start" measures a fresh sandbox's start time, idle memory and peak
// memory under concurrent sign-ins (start.go); "transfers" writes 10,000
// transfers into a pain.001 beside a reference (transfers.go); "replica"
// measures creates on the primary while reports and list pages read on a
// streaming standby, beside creates alone (replica.go).
package main

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"math"
	"net"
	"net/url"
	"os"
	"time"

	"github.com/bankrail/bankrail/internal/app"
	"github.com/bankrail/bankrail/internal/config"
	"github.com/bankrail/bankrail/internal/seed"
)

func main() {
	run := run
	if len(os.Args) > 1 {
		switch os.Args[1] {
		case "seed":
			run = func() error { return runSeed(os.Args[2:]) }
		case "report":
			run = func() error { return runReport(os.Args[2:]) }
		case "load":
			run = func() error { return runLoad(os.Args[2:]) }
		case "list":
			run = func() error { return runList(os.Args[2:]) }
		case "statements":
			run = func() error { return runStatements(os.Args[2:]) }
		case "start":
			run = func() error { return runStart(os.Args[2:]) }
		case "transfers":
			run = func() error { return runTransfers(os.Args[2:]) }
		case "replica":
			run = func() error { return runReplica(os.Args[2:]) }
		}
	}
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "bankrail-bench:", err)
		os.Exit(1)
	}
}

// options are the command-line flags.
type options struct {
	databaseURL string
	clients     int
	duration    time.Duration
	rounds      int
	idempotency bool
	cpuProfile  string
	phases      string
}

func parseFlags() (options, error) {
	var o options
	flag.StringVar(&o.databaseURL, "database-url", "", "postgres://... to measure PostgreSQL (a fresh schema is created and dropped); empty for SQLite in a temporary directory")
	flag.IntVar(&o.clients, "clients", 8, "concurrent clients")
	flag.DurationVar(&o.duration, "duration", 5*time.Second, "how long each phase runs (split into --rounds alternating with its reference)")
	flag.IntVar(&o.rounds, "rounds", 5, "rounds per pair of phases: the endpoint and its reference alternate, so that a change of load on the machine hits both alike")
	flag.BoolVar(&o.idempotency, "idempotency", false, "send a fresh Idempotency-Key with every POST /payments")
	flag.StringVar(&o.cpuProfile, "cpuprofile", "", "write a CPU profile of the whole run to this file")
	flag.StringVar(&o.phases, "phases", "all", "which phases run: all, or lifecycle (the lifecycles only: in-process, through the NextGenPSD2 connector, and the payer in-process on a second instance)")
	flag.Parse()
	switch {
	case o.clients < 1 || o.clients > 1024:
		return o, errors.New("--clients must be from 1 to 1024")
	case o.duration <= 0 || o.duration > 10*time.Minute:
		return o, errors.New("--duration must be positive and at most 10m")
	case o.rounds < 1 || o.rounds > 100:
		return o, errors.New("--rounds must be from 1 to 100")
	case o.phases != "all" && o.phases != "lifecycle":
		return o, errors.New("--phases must be all or lifecycle")
	}
	return o, nil
}

func run() error {
	o, err := parseFlags()
	if err != nil {
		return err
	}
	ctx := context.Background()
	cfg, cleanup, err := benchConfig(ctx, o.databaseURL)
	if err != nil {
		return err
	}
	defer cleanup()
	// Warnings only: the access log line of every request is not what is
	// measured (the reference handler logs nothing either).
	log := slog.New(slog.NewTextHandler(io.Discard, &slog.HandlerOptions{Level: slog.LevelWarn}))
	demo := seed.Demo("")
	a, err := app.New(ctx, cfg, log, app.Options{Seed: &demo})
	if err != nil {
		return fmt.Errorf("start bankrail: %w", err)
	}
	if err := a.Start(ctx); err != nil {
		return err
	}
	defer func() {
		sctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		defer cancel()
		_ = a.Shutdown(sctx)
	}()
	ref, err := startReference(ctx, a)
	if err != nil {
		return err
	}
	defer ref.Close()
	// The payer's baseline instance starts before the profile: its start
	// (migrations, seeding) is no part of what is measured.
	payer, stopPayer, err := startPayerBaseline(ctx, o, log, "http://"+ref.Addr())
	if err != nil {
		return err
	}
	defer stopPayer()

	stopProfile, err := startCPUProfile(o.cpuProfile)
	if err != nil {
		return err
	}
	defer stopProfile()
	b := newBench(o, "http://"+a.Addr(), "http://"+ref.Addr())
	if err := b.login(); err != nil {
		return err
	}
	engine := "SQLite"
	if cfg.UsesPostgres() {
		engine = "PostgreSQL"
	}
	fmt.Printf("bankrail-bench: %s, %d clients, %s per phase, idempotency keys %v\n\n", engine, o.clients, o.duration, o.idempotency)
	fmt.Printf("%-22s %10s %10s %10s %8s %8s\n", "phase", "req/s", "p50", "p99", "errors", "ratio")
	if o.phases == "all" {
		if err := b.endpoints(); err != nil {
			return err
		}
	}
	b.lifecycles(payer)
	return nil
}

// endpoints measures POST /payments and GET /payments/{id} beside their
// references.
func (b *bench) endpoints() error {
	insert, post := b.pair("reference INSERT", b.refInsert, "POST /payments", b.postPayment)
	insert.print(nil)
	post.print(&insert)
	sel, get := b.pair("reference SELECT", b.refSelect, "GET /payments/{id}", b.getPayment)
	sel.print(nil)
	get.print(&sel)
	fmt.Printf("ratio = req/s of the endpoint over its reference; p50 latency is %.2fx (POST) and %.2fx (GET) the reference's\n\n",
		float64(post.p50)/float64(max(insert.p50, 1)), float64(get.p50)/float64(max(sel.p50, 1)))
	return nil
}

// benchConfig is a sandbox on a loopback port with a fresh database.
func benchConfig(ctx context.Context, databaseURL string) (config.Config, func(), error) {
	cfg := config.Default()
	cfg.Addr = "127.0.0.1:0"
	cfg.LogLevel = "warn"
	cfg.APIRateLimit = math.MaxInt64 // every request counted (its cost is measured), none refused
	dir, err := os.MkdirTemp("", "bankrail-bench-")
	if err != nil {
		return cfg, nil, err
	}
	cfg.DataDir = dir
	cleanup := func() { _ = os.RemoveAll(dir) }
	if databaseURL == "" {
		return cfg, cleanup, nil
	}
	schemaURL, drop, err := freshSchema(ctx, databaseURL)
	if err != nil {
		cleanup()
		return cfg, nil, err
	}
	cfg.DatabaseURL = schemaURL
	return cfg, func() { drop(); cleanup() }, nil
}

// freshSchema creates a schema of its own in the database and returns a URL
// that uses it, and a function that drops it.
func freshSchema(ctx context.Context, databaseURL string) (string, func(), error) {
	admin, err := sql.Open("pgx", databaseURL)
	if err != nil {
		return "", nil, err
	}
	b := make([]byte, 6)
	_, _ = rand.Read(b)
	schema := "bench_" + hex.EncodeToString(b)
	if _, err := admin.ExecContext(ctx, "CREATE SCHEMA "+schema); err != nil {
		admin.Close()
		return "", nil, fmt.Errorf("create schema: %w", err)
	}
	u, err := url.Parse(databaseURL)
	if err != nil {
		admin.Close()
		return "", nil, err
	}
	q := u.Query()
	q.Set("search_path", schema)
	q.Set("application_name", schema) // the run's own backends (dbcpu.go), not other users' of the database
	u.RawQuery = q.Encode()
	drop := func() {
		_, _ = admin.ExecContext(context.Background(), "DROP SCHEMA "+schema+" CASCADE")
		admin.Close()
	}
	return u.String(), drop, nil
}

// loopback listens on a free loopback port.
func loopback() (net.Listener, error) { return net.Listen("tcp", "127.0.0.1:0") }
