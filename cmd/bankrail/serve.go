package main

import (
	"context"
	"fmt"
	"io"
	"runtime/debug"

	"github.com/bankrail/bankrail/internal/app"
	"github.com/bankrail/bankrail/internal/config"
)

const serveHelp = `Usage: bankrail serve [flags]

Runs the Global API at the root of --addr, the legacy Payments API under /legacy,
the sandbox controls (sandbox mode) and the background workers.

With no flags it uses SQLite in ./bankrail-data, sandbox mode, and - in an empty
database - creates a demo merchant whose credentials it prints.

Examples:
  bankrail serve
  bankrail serve --seed seed.yaml
  bankrail serve --database-url postgres://postgres@127.0.0.1:5432/bankrail --mode production
`

func serve(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	cfg := config.Default()
	fs := newFlagSet("serve", serveHelp)
	storageFlags(fs, &cfg)
	fs.StringVar(&cfg.Addr, "addr", cfg.Addr, "listen address host:port")
	fs.StringVar(&cfg.PublicURL, "public-url", cfg.PublicURL, "address payers and merchants see (default: derived from --addr)")
	fs.StringVar(&cfg.Issuer, "issuer", cfg.Issuer, "JWT issuer, the same on every instance of a deployment (default: --public-url when set, else \""+config.DefaultIssuer+"\")")
	fs.StringVar(&cfg.SeedFile, "seed", cfg.SeedFile, "JSON or YAML file of customers, applications and users to create or update")
	fs.DurationVar(&cfg.ShutdownTimeout, "shutdown-timeout", cfg.ShutdownTimeout, "how long a graceful shutdown may take")
	fs.DurationVar(&cfg.IdempotencyTTL, "idempotency-ttl", cfg.IdempotencyTTL, "how long Idempotency-Key replays are kept")
	fs.BoolVar(&cfg.IdempotencyStrict, "idempotency-strict", cfg.IdempotencyStrict, "answer every Idempotency-Key reuse with 409")
	fs.Int64Var(&cfg.MaxPaymentAmount, "max-payment-amount", cfg.MaxPaymentAmount, "largest payment amount in minor units")
	fs.BoolVar(&cfg.TrustProxyHeaders, "trust-proxy-headers", cfg.TrustProxyHeaders, "take the client address from X-Forwarded-For (behind a proxy only)")
	if err := parse(fs, args); err != nil {
		return exitCode(fs, err, stdout, stderr)
	}
	log := newLogger(cfg, stderr)
	ln, err := app.Listen(cfg.Addr) // first: a taken port changes nothing on disk
	if err != nil {
		fmt.Fprintln(stderr, "bankrail:", err)
		return 1
	}
	a, err := app.New(ctx, cfg, log, app.Options{})
	if err != nil {
		ln.Close()
		fmt.Fprintln(stderr, "bankrail:", err)
		return 1
	}
	// Starting hashed the seed's secrets (argon2id holds 19 MiB each): hand
	// that memory back now rather than when the runtime's scavenger gets to
	// it, so that an idle instance is small from its first second.
	debug.FreeOSMemory()
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
