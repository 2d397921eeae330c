// Package app wires bankrail together: configuration in, a running service
// out. It is the only package that knows every other one; domain packages
// and adapters never import it.
package app

import (
	"context"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/bankrail/bankrail/internal/alias"
	"github.com/bankrail/bankrail/internal/auth"
	"github.com/bankrail/bankrail/internal/bank"
	"github.com/bankrail/bankrail/internal/channel"
	"github.com/bankrail/bankrail/internal/checkout"
	"github.com/bankrail/bankrail/internal/clock"
	"github.com/bankrail/bankrail/internal/config"
	"github.com/bankrail/bankrail/internal/httpapi"
	"github.com/bankrail/bankrail/internal/idempotency"
	"github.com/bankrail/bankrail/internal/identity"
	"github.com/bankrail/bankrail/internal/job"
	"github.com/bankrail/bankrail/internal/ledger"
	"github.com/bankrail/bankrail/internal/legacy"
	"github.com/bankrail/bankrail/internal/mandate"
	"github.com/bankrail/bankrail/internal/metrics"
	"github.com/bankrail/bankrail/internal/netguard"
	"github.com/bankrail/bankrail/internal/notify"
	"github.com/bankrail/bankrail/internal/notify/dispatch"
	"github.com/bankrail/bankrail/internal/payment"
	"github.com/bankrail/bankrail/internal/payout"
	"github.com/bankrail/bankrail/internal/ratelimit"
	"github.com/bankrail/bankrail/internal/refund"
	"github.com/bankrail/bankrail/internal/replica"
	"github.com/bankrail/bankrail/internal/report"
	"github.com/bankrail/bankrail/internal/seed"
	"github.com/bankrail/bankrail/internal/statement"
	"github.com/bankrail/bankrail/internal/store"
	"github.com/bankrail/bankrail/internal/timedmove"
	"github.com/bankrail/bankrail/internal/transfer"
	"github.com/bankrail/bankrail/internal/worker"
	"github.com/bankrail/bankrail/internal/xs2a"
	"github.com/bankrail/bankrail/internal/xs2a/aspsp"
)

// Options are the parts tests replace.
type Options struct {
	BaseClock  clock.Clock          // the wall clock by default
	HashParams *identity.HashParams // argon2id cost; identity.DefaultHashParams by default
	Seed       *seed.File           // applied instead of cfg.SeedFile when set
	Dispatch   dispatch.Options     // notification delivery tuning (Guard and Metrics are set here)
	// TimedMoves is how often the worker looks for due timed moves
	// (a payment's abandonment or delayed bank's answer, a mandate's expiry,
	// an amendment's abandonment, a deposit's confirmation);
	// DefaultTimedMoves when zero.
	TimedMoves time.Duration
	// Transfers sends refunds out of the Connect accounts instead of the
	// mode's sender (the mock bank in the sandbox, none in production).
	Transfers bank.TransferSender
	// RefundAnswerAfter is how long the sandbox's mock bank takes to answer
	// a refund, on the tenant's clock; refund.SandboxAnswerAfter (at once)
	// when zero.
	RefundAnswerAfter time.Duration
	// Jobs tunes the job worker (poll, lease, the lease's clock); the
	// defaults of job.Config when zero.
	Jobs job.Config
	// Directory is the production bank directory (serve --banks): the
	// NextGenPSD2 banks the connector reaches. Ignored in the sandbox,
	// whose banks are the mock ASPSP's.
	Directory *xs2a.Directory
	// MockBanksInProcess (sandbox, bankrail-bench only): the mock banks
	// answer in-process (aspsp.InProcess), the sandbox's path before the
	// NextGenPSD2 connector, as the fair baseline of the connector's
	// lifecycle. No command sets it.
	MockBanksInProcess bool
}

// ConnectTimeout bounds the first connection to the database at start: a
// host that does not answer fails the start with a clear message instead of
// waiting for the operating system's TCP timeout.
const ConnectTimeout = 10 * time.Second

// DefaultTimedMoves is how often an instance looks for due timed moves.
const DefaultTimedMoves = time.Second

// App is a configured bankrail instance.
type App struct {
	cfg      config.Config
	log      *slog.Logger
	store    *store.Store
	clock    clock.Clock
	virtual  *clock.Tenants
	limiter  *ratelimit.Limiter // the API rate limit per application
	identity *identity.Service
	hasher   *identity.Hasher // argon2id, bounded to the cores: sign-ins and seeding share it
	auth     *auth.Service
	payments *payment.Service
	xs2a     *xs2a.Connector  // the NextGenPSD2 connector; nil without banks to reach
	aspsp    *aspsp.Bank      // the sandbox's mock ASPSP; nil in production
	inProc   *aspsp.InProcess // the mock banks in-process (Options.MockBanksInProcess); nil otherwise
	replica  *replica.Monitor // the read replica's lag; nil without --replica-url
	reports  *report.Service
	accounts *ledger.Service
	books    *ledger.Checker // the periodic verification of the books
	refunds  *refund.Service
	payouts  *payout.Service
	aliases  *alias.Service
	// statements imports bank statements (statements.go)
	statements *statement.Importer
	// transfers writes the transfer files and applies the bank's answers
	// (transfers.go); built lazily for the admin CLI.
	transfers *transfer.Service
	http      *httpapi.Server
	jobs      *job.Worker

	adapterDeps []any // what the API and the console were given (httpapi.Deps, dashboard.Deps): AdapterDeps

	workers     []backgroundWorker // started by Start, stopped in reverse order by Shutdown
	timed       []*worker.Periodic // the workers that poll for what time made due (WakeWorkers)
	notify      *notify.Service
	dispatcher  *dispatch.Dispatcher
	workersOnce sync.Once

	server    *http.Server
	listener  net.Listener
	admin     *http.Server // --admin-addr: pprof (admin.go); nil when off
	adminAddr string
	serveErr  chan error
	stopOnce  sync.Once

	demo bool // the demo merchant is in use (sandbox, no seed)

	modeToRecord bool // the database had no mode: New records the app's once it has started (mode.go)

	inFlight atomic.Int64 // requests being answered (httpapi); report generations give way to them
}

// New opens the database, applies migrations and the seed, and builds every
// component. Nothing listens until Start.
func New(ctx context.Context, cfg config.Config, log *slog.Logger, opts Options) (*App, error) {
	a, err := open(ctx, cfg, log, opts, recordMode)
	if err != nil {
		return nil, err
	}
	if err := a.build(ctx, opts); err != nil {
		_ = a.store.Close() // the build's error is the one to report
		return nil, err
	}
	if err := a.recordStartMode(ctx); err != nil {
		_ = a.store.Close() // the mode's error is the one to report
		return nil, err
	}
	a.warnProduction(ctx)
	return a, nil
}

// Admin opens the database and the identity service only, for the
// administration commands: no seed, no demo merchant, no server. It runs in
// the mode recorded in the database unless cfg.ModeGiven (mode.go).
func Admin(ctx context.Context, cfg config.Config, log *slog.Logger) (*App, error) {
	return open(ctx, cfg, log, Options{}, adoptMode)
}

// open validates cfg, opens and migrates the database and builds the clock
// and the identity service.
func open(ctx context.Context, cfg config.Config, log *slog.Logger, opts Options, mode modePolicy) (*App, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	a := &App{cfg: cfg, log: log}
	openCtx, cancel := context.WithTimeout(ctx, ConnectTimeout)
	st, err := store.Open(openCtx, store.Options{DatabaseURL: cfg.DatabaseURL, SQLitePath: cfg.SQLitePath(),
		ReplicaURL: cfg.ReplicaURL, ReplicaMaxLag: cfg.ReplicaMaxLag,
		Timeouts: store.Timeouts{Connect: cfg.DatabaseConnectTimeout, Keepalive: cfg.DatabaseKeepalive, Statement: cfg.RequestTimeout}}, log)
	cancel()
	if err != nil && cfg.DatabaseURL != "" && ctx.Err() == nil {
		return nil, databaseUnavailable(cfg.DatabaseURL, err)
	}
	if err != nil {
		return nil, err
	}
	a.store = st
	if err := a.core(ctx, opts, mode); err != nil {
		_ = st.Close() // the core's error is the one to report
		return nil, err
	}
	return a, nil
}

func (a *App) core(ctx context.Context, opts Options, mode modePolicy) error {
	if err := a.store.Migrate(ctx); err != nil {
		return err
	}
	if err := a.settleMode(ctx, mode); err != nil {
		return err
	}
	base := opts.BaseClock
	if base == nil {
		base = clock.Real{}
	}
	a.clock = base
	a.limiter = a.rateLimiter(base)
	if a.cfg.Mode == config.Sandbox {
		a.virtual = clock.NewTenants(base, a.store.TenantClocks(), a.cfg.ClockRefresh)
		a.clock = a.virtual
	}
	hash := identity.DefaultHashParams
	if opts.HashParams != nil {
		hash = *opts.HashParams
	}
	a.hasher = identity.NewHasher(hash, runtime.GOMAXPROCS(0))
	a.identity = identity.NewService(a.store, a.clock, a.hasher)
	a.accounts = ledger.NewService(a.store.Ledger(), a.clock)
	if check := a.notificationURLCheck(); check != nil {
		a.identity.CheckNotificationURLs(check)
	}
	return nil
}

// notificationURLCheck is the one check of a notification URL as it enters
// (API, seed file, admin command): netguard's in production, none in the
// sandbox (whose receivers are often on the same machine). Delivery checks
// again in the dialer.
func (a *App) notificationURLCheck() func(ctx context.Context, rawURL, field string) error {
	if a.cfg.Mode != config.Production {
		return nil
	}
	return func(ctx context.Context, rawURL, field string) error {
		return netguard.CheckURL(ctx, net.DefaultResolver, rawURL, field)
	}
}

// build seeds and creates the auth service and the HTTP adapter.
func (a *App) build(ctx context.Context, opts Options) error {
	if err := a.seed(ctx, opts); err != nil {
		return err
	}
	keys := auth.NewKeyRing(a.store, a.clock)
	if err := keys.Load(ctx); err != nil {
		return fmt.Errorf("load signing keys: %w", err)
	}
	a.workers = append(a.workers, worker.NewPeriodic("signing key refresh", time.Minute, a.log, keys.Refresh))
	a.auth = auth.NewService(a.store, keys, a.hasher, a.clock, a.log, auth.Config{
		Issuer: a.cfg.Issuer, AccessTTL: a.cfg.AccessTokenTTL, RefreshTTL: a.cfg.RefreshTokenTTL,
		MaxFailures: a.cfg.LoginMaxFailures, MaxFailuresPerUser: a.cfg.LoginMaxFailuresUser, MaxFailuresPerClient: a.cfg.LoginMaxFailuresPerIP,
		FailureWindow: a.cfg.LoginFailureWindow,
	})
	a.identity.OnUserChanged(a.auth.ForgetUser) // this instance refuses a changed user's old tokens at once
	reg := newRegistry()
	registerStoreMetrics(reg, a.store)
	a.watchReplica(reg)
	a.books = ledger.NewChecker(a.store.Books(), a.clock, a.log.With("component", "ledger"), metrics.NewLedger(reg))
	a.workers = append(a.workers, worker.NewPeriodic("ledger verification", a.cfg.LedgerVerifyInterval, a.log, a.books.Run))
	paymentCfg := payment.Config{PublicURL: a.cfg.PublicURL, MaxMajor: a.cfg.MaxPaymentMajor,
		CheckNotificationURL: a.notificationURLCheck(), Observer: metrics.NewPayments(reg), WaitForFunds: a.cfg.Mode != config.Sandbox}
	keyGuard := idempotency.NewGuard(a.store.IdempotencyKeys(), a.clock,
		idempotency.Config{TTL: a.cfg.IdempotencyTTL, Strict: a.cfg.IdempotencyStrict, Log: a.log.With("component", "idempotency")})
	banks, directoryBanks, err := a.bankRegistry(&opts)
	if err != nil {
		return err
	}
	a.payments = payment.NewService(a.store.Payments(), store.Transactor[payment.Repos](a.store), keyGuard,
		banks, a.clock, paymentCfg)
	a.reports = report.NewService(report.Deps{Reports: a.store.Reports(), InTx: store.Transactor[report.Repos](a.store),
		Data: a.store.ReportData(), Hierarchy: a.store, Accounts: report.LedgerAccounts{Ledger: a.store.Ledger()}, Banks: banks, Clock: a.clock,
		Log: a.log.With("component", "reports"), Busy: func() bool { return a.inFlight.Load() > 0 },
		DutyCycle: a.cfg.ReportDutyCycle, Aside: func(fn func() error) error { return worker.LowPriority(a.cfg.ReportNice, fn) }})
	a.aliases = alias.NewService(a.store.Aliases(), store.Transactor[alias.Repos](a.store), keyGuard, a.clock,
		a.log.With("component", "aliases"))
	a.accounts.UseAliases(alias.Resolver{Aliases: a.store.Aliases()})
	a.payments.UseConnect(a.accounts)
	transfers := opts.Transfers
	if transfers == nil && opts.RefundAnswerAfter > 0 && a.cfg.Mode == config.Sandbox {
		transfers = refund.MockBank{Clock: a.clock, AnswerAfter: opts.RefundAnswerAfter}
	}
	psd2, psd2Banks, err := a.psd2Connector(opts, directoryBanks)
	if err != nil {
		return err
	}
	connectors, err := bankConnectors(a.cfg.Mode, a.clock, transfers, psd2, psd2Banks)
	if err != nil {
		return err
	}
	refundBank, _ := connectors.Transfers()
	a.transfers = a.newTransfers()
	a.refunds = refund.NewService(refund.Deps{Refunds: a.store.Refunds(), Payments: a.store.Payments(), Accounts: a.store.Ledger(),
		InTx: store.Transactor[refund.Repos](a.store), Keys: keyGuard, Clock: a.clock, Sandbox: a.cfg.Mode == config.Sandbox,
		Bank: refundBank, Files: transfers == nil && a.cfg.Mode != config.Sandbox, MockBank: a.mockBankFor(refundBank),
		Log: a.log.With("component", "refunds")})
	if err := a.buildJobs(ctx, keyGuard, opts.Jobs, reg); err != nil {
		return err
	}
	interval := opts.TimedMoves
	if interval <= 0 {
		interval = DefaultTimedMoves
	}
	mandates := mandate.NewService(a.store.Mandates(), a.store.Amendments(), store.Transactor[mandate.Repos](a.store), a.clock,
		mandate.Config{PublicURL: a.cfg.PublicURL, MaxMajor: a.cfg.MaxPaymentMajor})
	a.payments.UseMandates(mandate.Payments{Service: mandates})
	mandates.ListAmendmentsWith(a.store)
	a.payments.CountWith(a.store)
	channels := channel.NewService(a.store.Channels(), a.store.ChannelPayments(), store.Transactor[channel.Repos](a.store), a.clock)
	// One loop for every timed move (payments, mandates and amendments,
	// deposits): docs/decisions.md says why it polls rather than queues jobs.
	moves := slices.Concat(a.payments.TimedMoves(), mandates.TimedMoves(), channels.TimedMoves())
	a.addTimed(worker.NewPeriodic("timed moves", interval, a.log, func(ctx context.Context) error {
		return timedmove.Run(ctx, a.clock, moves...)
	}))
	a.payouts = payout.NewService(a.store.Payouts(), store.Transactor[payout.Repos](a.store), keyGuard, a.clock,
		a.cfg.Mode == config.Sandbox, a.log.With("component", "payouts"))
	a.payouts.UseSettlement(a.payments.Lifecycle())
	a.buildTransfers()
	a.addTimed(worker.NewPeriodic("payout verification expiry", interval, a.log, func(ctx context.Context) error {
		_, err := a.payouts.RunExpiry(ctx)
		return err
	}))
	if err := a.buildStatements(); err != nil {
		return err
	}
	a.buildNotifications(opts, reg)
	demo, err := a.demoMerchant(ctx)
	if err != nil {
		return fmt.Errorf("read the demo merchant: %w", err)
	}
	state, err := a.sandboxState(ctx)
	if err != nil {
		return err
	}
	settings := notify.NewSettings(a.store, a.clock)
	pages := checkout.New(checkout.Deps{Payments: a.payments, Secrets: a.notificationSecret, Clock: a.clock,
		Log: a.log.With("component", "checkout"), PublicURL: a.cfg.PublicURL, Sandbox: a.cfg.Mode == config.Sandbox,
		Connectors: connectors, AnswerAtMockBank: a.answerAtMockBank(), ClientAddr: a.proxies().ClientAddr})
	apiDeps := httpapi.Deps{
		Log: a.log, Clock: a.clock, Mode: a.cfg.Mode, MaxBodyBytes: a.cfg.MaxBodyBytes,
		MaxStatementBytes: a.cfg.MaxStatementBytes, MaxStatusBytes: a.cfg.MaxStatusBytes,
		Proxies: a.proxies(), Version: Version(), PublicURL: a.cfg.PublicURL,
		Auth: a.auth, DB: a.store, Unavailable: store.Unavailable, Sandbox: a.sandboxClocks(), RateLimit: a.limiter,
		Payments:      a.payments,
		Legacy:        legacy.NewService(a.payments),
		Notifications: a.notify, Metrics: metricsHandler(reg), Requests: metrics.NewHTTP(reg), Inbox: a.inbox(),
		Pages: a.withMockASPSP(pages.WithMandates(mandates)), PagePrefixes: a.pagePrefixes(), Demo: demo,
		Mandates: mandates, Reports: a.reports, SignIns: a.store,
		Accounts:   a.accounts,
		Refunds:    a.refunds,
		Channels:   channels,
		Payouts:    a.payouts,
		Aliases:    a.aliases,
		Statements: a.statements,
		Transfers:  a.transfers,

		NotificationSettings: settings,
		SandboxState:         state,

		Dashboard: a.buildDashboard(mandates, channels, settings, state), // the web console, internal/dashboard
		InFlight:  &a.inFlight,

		RequestTimeout: a.cfg.RequestTimeout,
	}
	a.adapterDeps = append(a.adapterDeps, apiDeps)
	a.http = httpapi.New(apiDeps)
	return nil
}

// notificationSecret is the notification secret of the application with
// clientID: it signs the outcome on return URLs.
func (a *App) notificationSecret(ctx context.Context, clientID string) (string, error) {
	app, err := a.store.GetApplicationByClientID(ctx, clientID)
	return app.NotificationSecret, err
}

// RotateSigningKey creates a new token signing key (it signs from now on)
// and retires keys superseded for longer than the access-token lifetime.
func (a *App) RotateSigningKey(ctx context.Context) (kid string, retired int, err error) {
	keys := auth.NewKeyRing(a.store, a.clock)
	if a.auth != nil {
		keys = a.auth.Keys() // a running instance signs with the new key at once
	}
	if kid, err = keys.Rotate(ctx); err != nil {
		return "", 0, err
	}
	retired, err = keys.RetireSuperseded(ctx, a.cfg.AccessTokenTTL)
	return kid, retired, err
}
