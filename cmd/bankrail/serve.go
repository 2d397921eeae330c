package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net"
	"runtime/debug"
	"time"

	"github.com/bankrail/bankrail/internal/app"
	"github.com/bankrail/bankrail/internal/config"
	"github.com/bankrail/bankrail/internal/logbuf"
	"github.com/bankrail/bankrail/internal/seed"
	"github.com/bankrail/bankrail/internal/xs2a"
)

const serveHelp = `Usage: bankrail serve [flags]

Runs the Global API at the root of --addr, the legacy Payments API under /legacy,
the sandbox controls (sandbox mode) and the background workers.

With no flags it uses SQLite in ./bankrail-data, sandbox mode, and - in an empty
database - creates a demo merchant whose credentials it prints. Every flag and the
seed file are checked before --addr is bound or the database opened.

Examples:
  bankrail serve
  bankrail serve --seed seed.yaml
  bankrail serve --database-url postgres://postgres@127.0.0.1:5432/bankrail --mode production
`

// logInterval is how often buffered log lines are written (internal/logbuf):
// a line of the access log reaches stderr at most this late, and a crash
// loses at most this much of INFO lines; warnings and errors are written at
// once, with every line before them.
const logInterval = 100 * time.Millisecond

func serve(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	cfg := config.Default()
	fs := newFlagSet("serve", serveHelp)
	storageFlags(fs, &cfg)
	fs.StringVar(&cfg.Addr, "addr", cfg.Addr, "listen address host:port")
	fs.StringVar(&cfg.StatementsDir, "statements-dir", cfg.StatementsDir, "a folder watched for the bank's statement files (camt.053/054, where an EBICS or SFTP client drops them): each is imported once and moved to done/ (summary beside it) or failed/ (reason beside it); safe with several instances (docs/banking.md)")
	fs.StringVar(&cfg.AdminAddr, "admin-addr", cfg.AdminAddr, "opt-in listener of Go's pprof profiles at /debug/pprof/ for operators, e.g. 127.0.0.1:6060 (no authentication: never on a public network; empty: off)")
	fs.StringVar(&cfg.PublicURL, "public-url", cfg.PublicURL, "address payers and merchants see (default: derived from --addr)")
	fs.StringVar(&cfg.Issuer, "issuer", cfg.Issuer, "JWT issuer, the same on every instance of a deployment (default: --public-url when set, else \""+config.DefaultIssuer+"\")")
	fs.StringVar(&cfg.SeedFile, "seed", cfg.SeedFile, "JSON or YAML file of customers, applications and users to create or update")
	fs.StringVar(&cfg.BanksFile, "banks", cfg.BanksFile, "production: the bank directory, a YAML file of the NextGenPSD2 banks to reach with their certificates (docs/operations.md, \"Connecting a bank\")")
	fs.DurationVar(&cfg.ShutdownTimeout, "shutdown-timeout", cfg.ShutdownTimeout, "how long a graceful shutdown may take")
	fs.DurationVar(&cfg.IdempotencyTTL, "idempotency-ttl", cfg.IdempotencyTTL, "how long Idempotency-Key replays are kept")
	fs.BoolVar(&cfg.IdempotencyStrict, "idempotency-strict", cfg.IdempotencyStrict, "answer every Idempotency-Key reuse with 409")
	fs.Int64Var(&cfg.MaxPaymentMajor, "max-payment-major", cfg.MaxPaymentMajor, "largest payment amount in whole major units of its currency, scaled by each currency's exponent (100000000: 100000000 JPY, 100000000.00 EUR, 100000000.000 BHD)")
	fs.Int64Var(&cfg.APIRateLimit, "api-rate-limit", cfg.APIRateLimit, "API requests each application may make per --api-rate-window, counted across the instances on one PostgreSQL database; more get 429 with Retry-After (0: no limit)")
	fs.DurationVar(&cfg.APIRateWindow, "api-rate-window", cfg.APIRateWindow, "the fixed window of --api-rate-limit")
	fs.StringVar(&cfg.TransfersDir, "transfers-dir", cfg.TransfersDir,
		"production: the transfers folder (docs/banking.md): payouts and refunds are written as pain.001 files to DIR/out, the bank's pain.002 answers are imported from DIR/status (empty: off; GET /transfer-files and bankrail transfers export still work)")
	fs.Int64Var(&cfg.MaxStatementBytes, "max-statement-bytes", cfg.MaxStatementBytes, "the largest statement file POST /statements and the dashboard take; larger is 413 (bankrail statements import has no limit)")
	fs.Int64Var(&cfg.MaxStatusBytes, "max-status-bytes", cfg.MaxStatusBytes, "the largest pain.002 report POST /transfer-status and the dashboard take; larger is 413")
	fs.DurationVar(&cfg.TransfersInterval, "transfers-interval", cfg.TransfersInterval, "how often the transfers folder is worked (with --transfers-dir)")
	fs.DurationVar(&cfg.LedgerVerifyInterval, "ledger-verify-interval", cfg.LedgerVerifyInterval,
		"how often to verify the books: balances against postings, entries against zero (docs/operations.md)")
	fs.StringVar(&cfg.ReplicaURL, "replica-url", cfg.ReplicaURL,
		"PostgreSQL only: a streaming standby of --database-url that list pages and report generation read on while it lags no more than --replica-max-lag (reads of one resource and within a change stay on the primary; a lagging or down replica is skipped; docs/operations.md, \"Read replicas\")")
	fs.DurationVar(&cfg.ReplicaMaxLag, "replica-max-lag", cfg.ReplicaMaxLag, "the most a replica may lag and still serve reads (with --replica-url)")
	fs.DurationVar(&cfg.ReplicaCheckInterval, "replica-check-interval", cfg.ReplicaCheckInterval, "how often the replica's lag is measured (with --replica-url)")
	fs.DurationVar(&cfg.DatabaseConnectTimeout, "database-connect-timeout", cfg.DatabaseConnectTimeout, "PostgreSQL: the longest one attempt to connect to one host may take (a multi-host URL then tries the next)")
	fs.DurationVar(&cfg.RequestTimeout, "request-timeout", cfg.RequestTimeout,
		"how long an API request may wait before its answer begins: a database that does not answer (a network partition) is answered 503 with Retry-After then; also bounds each statement of a group commit (docs/operations.md, \"Timeouts and network partitions\")")
	fs.DurationVar(&cfg.DatabaseKeepalive, "database-keepalive", cfg.DatabaseKeepalive, "PostgreSQL: how soon TCP finds a connection whose server is gone (keepalive probes while idle, TCP_USER_TIMEOUT while unanswered)")
	fs.IntVar(&cfg.ReportConcurrency, "report-concurrency", cfg.ReportConcurrency, "how many reports this instance generates at once")
	fs.IntVar(&cfg.ReportNice, "report-nice", cfg.ReportNice, "the CPU priority (nice, 1 to 19) of a report's generation, background work that must not starve the API (Linux; 0: the API's priority)")
	fs.IntVar(&cfg.ReportDutyCycle, "report-duty-cycle", cfg.ReportDutyCycle,
		"the percent of the time a report's generation works while this instance answers API requests: it rests in proportion to the time each batch of rows took, and so does its query on the database (1 to 100; 100: never rests; docs/reports.md)")
	fs.BoolVar(&cfg.TrustProxyHeaders, "trust-proxy-headers", cfg.TrustProxyHeaders,
		"behind a proxy only: take the client address (sign-in throttles, audit log) from X-Forwarded-For, as the outermost trusted proxy saw it (--trusted-proxy-count, --trusted-proxies); entries left of it are the client's own claim and ignored")
	fs.Func("trusted-proxies", "comma-separated networks (CIDR) of the proxies in front, e.g. 10.0.0.0/8,2001:db8::/32: the client is the right-most X-Forwarded-For hop outside them (needs --trust-proxy-headers)",
		func(s string) error { return parsePrefixes(s, &cfg.TrustedProxies) })
	fs.IntVar(&cfg.TrustedProxyCount, "trusted-proxy-count", cfg.TrustedProxyCount,
		"how many proxies are in front when --trusted-proxies is not given: the client is that many X-Forwarded-For hops from the right (needs --trust-proxy-headers; 0: 1 when it is on)")
	fs.BoolVar(&cfg.SandboxInstanceControls, "sandbox-instance-controls", cfg.SandboxInstanceControls,
		"sandbox: let the operator (role OPERATOR) reset, snapshot and restore the whole instance (a tenant's ADMIN has its own customer tree's either way)")
	if err := parse(fs, args); err != nil {
		return exitCode(fs, err, stdout, stderr)
	}
	// Every flag and the seed file are checked before the network or the
	// database is touched: a bad flag answers with its own error, whatever
	// listens on --addr (issue 30, item 1).
	opts, err := checkServe(&cfg)
	if err != nil {
		fmt.Fprintln(stderr, "bankrail:", err)
		return 1
	}
	out := logbuf.New(stderr, logInterval)
	defer out.Close() // after the last line: "stopped" or the error
	log := newLogger(cfg, out)
	log = slog.New(out.Handler(log.Handler()))
	ln, err := app.Listen(cfg.Addr) // before the database: a taken port changes nothing on disk
	if err != nil {
		fmt.Fprintln(stderr, "bankrail:", err)
		return 1
	}
	var adminLn net.Listener
	if cfg.AdminAddr != "" {
		if adminLn, err = app.Listen(cfg.AdminAddr); err != nil {
			ln.Close()
			fmt.Fprintln(stderr, "bankrail:", err)
			return 1
		}
	}
	a, err := app.New(ctx, cfg, log, opts)
	if err != nil {
		ln.Close()
		if adminLn != nil {
			adminLn.Close()
		}
		fmt.Fprintln(stderr, "bankrail:", err)
		return 1
	}
	// Starting hashed the seed's secrets (argon2id holds 19 MiB each): hand
	// that memory back now rather than when the runtime's scavenger gets to
	// it, so that an idle instance is small from its first second.
	debug.FreeOSMemory()
	if adminLn != nil {
		a.StartAdminOn(adminLn)
	}
	a.StartOn(ctx, ln)
	fmt.Fprint(stdout, a.Banner())
	waitErr := a.Wait(ctx)
	log.Info("shutting down")
	shutdownCtx, cancel := context.WithTimeout(context.Background(), a.ShutdownTimeout())
	defer cancel()
	if err := a.Shutdown(shutdownCtx); err != nil {
		log.Error("shutdown", "err", err)
		return 1
	}
	if waitErr != nil {
		log.Error("server stopped", "err", waitErr)
		return 1
	}
	log.Info("stopped")
	return 0
}

// checkServe validates cfg (filling its derived values) and reads the seed
// file, touching neither the network nor the database; it returns the
// options that start the app with that seed.
func checkServe(cfg *config.Config) (app.Options, error) {
	if err := cfg.Validate(); err != nil {
		return app.Options{}, err
	}
	var opts app.Options
	if cfg.BanksFile != "" {
		if cfg.Mode != config.Production {
			return app.Options{}, fmt.Errorf("--banks is for production: the sandbox's banks are its mock ASPSP")
		}
		d, err := xs2a.LoadDirectory(cfg.BanksFile)
		if err != nil {
			return app.Options{}, err
		}
		opts.Directory = &d
	}
	if cfg.SeedFile == "" {
		return opts, nil
	}
	f, err := seed.Load(cfg.SeedFile)
	if err != nil {
		return app.Options{}, err
	}
	opts.Seed = &f
	return opts, nil
}
