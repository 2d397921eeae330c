// Package config holds bankrail's typed configuration, its defaults and its
// validation. Flags and BANKRAIL_* environment variables fill it in cmd/.
package config

import (
	"errors"
	"fmt"
	"net"
	"net/netip"
	"net/url"
	"path/filepath"
	"strings"
	"time"

	"github.com/bankrail/bankrail/internal/iso"
	"github.com/bankrail/bankrail/internal/money"
	"github.com/bankrail/bankrail/internal/replica"
)

// Mode is sandbox or production.
type Mode string

// Modes.
const (
	Sandbox    Mode = "sandbox"
	Production Mode = "production"
)

// Config is everything bankrail needs to start. Secrets never appear here
// except the database URL, which String redacts.
type Config struct {
	Addr      string // listen address
	AdminAddr string // opt-in listener of /debug/pprof for operators; empty: none
	PublicURL string // address payers and merchants see; derived from Addr when empty
	// SelfURL is where this instance reaches its own listener: the
	// sandbox's connector calls the mock ASPSP there over HTTP (derived
	// from Addr when empty).
	SelfURL     string
	DataDir     string // SQLite file and local state
	DatabaseURL string // postgres://... switches to PostgreSQL; empty means SQLite in DataDir
	Mode        Mode
	// ModeGiven says Mode was given (flag or environment) rather than left
	// at its default: the administration commands otherwise take the mode
	// recorded in the database (internal/app, mode.go).
	ModeGiven bool
	SeedFile  string
	// StatementsDir, when set, is a folder watched for the bank's statement
	// files (camt.053/054): each is imported once and moved to done/ or
	// failed/ (internal/statement.Folder).
	StatementsDir string
	// BanksFile is the production bank directory (YAML,
	// internal/xs2a.Directory); empty: none.
	BanksFile string
	LogLevel  string // debug, info, warn, error
	LogFormat string // text or json

	ShutdownTimeout   time.Duration
	ReadHeaderTimeout time.Duration
	ReadTimeout       time.Duration
	WriteTimeout      time.Duration
	IdleTimeout       time.Duration
	MaxBodyBytes      int64
	// MaxStatementBytes is the largest statement file POST /statements and
	// the dashboard's statements page take (spooled to disk, read as a
	// stream); larger is 413. MaxStatusBytes is the same for a pain.002
	// report (POST /transfer-status and its page; read into memory).
	MaxStatementBytes int64
	MaxStatusBytes    int64

	AccessTokenTTL  time.Duration // 24 h by contract
	RefreshTokenTTL time.Duration // 24 h by contract
	Issuer          string        // JWT issuer; see Validate for the default

	LoginMaxFailures      int           // per application and username within LoginFailureWindow
	LoginMaxFailuresUser  int           // per username through the applications that may sign it in
	LoginMaxFailuresPerIP int           // per client address within LoginFailureWindow
	LoginFailureWindow    time.Duration // also the lock-out time
	TrustProxyHeaders     bool          // take the client address from X-Forwarded-For
	// TrustedProxies are the addresses of the proxies in front: the client
	// is the right-most X-Forwarded-For hop outside them. Empty: count them
	// instead (TrustedProxyCount).
	TrustedProxies []netip.Prefix
	// TrustedProxyCount is how many proxies are in front when
	// TrustedProxies is empty: the client is that many hops from the right
	// of X-Forwarded-For. Validate makes 0 one when the headers are trusted.
	TrustedProxyCount int

	IdempotencyTTL    time.Duration // how long Idempotency-Key replays are kept
	IdempotencyStrict bool          // every key reuse is a 409
	MaxPaymentMajor   int64         // the largest amount in whole major units of its currency (see Validate)

	ClockRefresh time.Duration // how long an instance trusts a tenant's sandbox clock offset it read

	// APIRateLimit is how many API requests (those with a bearer token) each
	// application may make in each fixed window of APIRateWindow, shared by
	// the instances on one PostgreSQL database; 0 turns the limit off.
	APIRateLimit  int64
	APIRateWindow time.Duration

	// LedgerVerifyInterval is how often the instance verifies the books
	// (cached balances against postings, entries against zero).
	LedgerVerifyInterval time.Duration

	// SandboxInstanceControls allows POST /sandbox/reset, GET /sandbox/snapshot
	// and POST /sandbox/restore of the whole instance (scope INSTANCE, to the
	// operator); a tenant's ADMIN has its own tree's either way.
	SandboxInstanceControls bool

	// TransfersDir, when set, is the transfers folder of production
	// (docs/banking.md): every TransfersInterval the queued payouts and
	// refunds are written as pain.001 files to its out/, and the bank's
	// pain.002 answers dropped in its status/ are imported.
	TransfersDir      string
	TransfersInterval time.Duration

	// ReplicaURL is a PostgreSQL streaming standby that list pages and
	// report generation read on while it lags no more than ReplicaMaxLag,
	// measured every ReplicaCheckInterval (docs/operations.md, "Read
	// replicas"); empty: every read is on the primary. PostgreSQL only.
	ReplicaURL           string
	ReplicaMaxLag        time.Duration
	ReplicaCheckInterval time.Duration

	// The database's timeouts (docs/operations.md, "Timeouts and network
	// partitions"; validateDatabase): DatabaseConnectTimeout bounds one
	// attempt to connect to one host; RequestTimeout is how long an API
	// request may wait before its answer begins (a database that does
	// not answer, say across a network partition, is answered 503 with
	// Retry-After then) and bounds each statement of the store's own (a
	// group commit's BEGIN and COMMIT); DatabaseKeepalive is how soon a
	// connection whose peer is gone is found dead by TCP (keepalive
	// probes while idle, TCP_USER_TIMEOUT while a request is unanswered).
	DatabaseConnectTimeout time.Duration
	RequestTimeout         time.Duration
	DatabaseKeepalive      time.Duration

	// ReportConcurrency is how many reports an instance generates at once;
	// ReportNice is the CPU priority (nice, 0 to 19) of the thread that
	// reads, formats and compresses a report: 19, the lowest, by default,
	// so that background work never starves the API; 0 turns it off.
	// ReportDutyCycle is the percent of the time a generation works while
	// the instance answers API requests (it rests the rest): 1 to 100,
	// DefaultReportDutyCycle by default; 100 never rests.
	ReportConcurrency int
	ReportNice        int
	ReportDutyCycle   int
}

// DefaultTransfersInterval is how often the transfers folder is worked.
const DefaultTransfersInterval = time.Minute

// DefaultIssuer is the JWT issuer when neither --issuer nor --public-url is
// set. It must not depend on the listen address: instances sharing a
// database accept each other's tokens only when their issuers agree.
const DefaultIssuer = "bankrail"

// DefaultMaxStatementBytes and DefaultMaxStatusBytes are the default
// largest statement file (512 MiB) and pain.002 report (64 MiB) taken over
// HTTP; the CLI and the watched folders have no limit.
const (
	DefaultMaxStatementBytes = 512 << 20
	DefaultMaxStatusBytes    = 64 << 20
)

// DefaultLedgerVerifyInterval is how often the books are verified by
// default: each run reads every posting, so not often on a large ledger.
const DefaultLedgerVerifyInterval = time.Hour

// MinLedgerVerifyInterval is the shortest interval accepted.
const MinLedgerVerifyInterval = time.Second

// Default returns the configuration used when nothing is set.
func Default() Config {
	return Config{
		Addr:                  "127.0.0.1:8080",
		DataDir:               "./bankrail-data",
		Mode:                  Sandbox,
		LogLevel:              "info",
		LogFormat:             "text",
		ShutdownTimeout:       15 * time.Second,
		ReadHeaderTimeout:     5 * time.Second,
		ReadTimeout:           30 * time.Second,
		WriteTimeout:          60 * time.Second,
		IdleTimeout:           120 * time.Second,
		MaxBodyBytes:          1 << 20,
		MaxStatementBytes:     DefaultMaxStatementBytes,
		MaxStatusBytes:        DefaultMaxStatusBytes,
		AccessTokenTTL:        24 * time.Hour,
		RefreshTokenTTL:       24 * time.Hour,
		LoginMaxFailures:      5,
		LoginMaxFailuresUser:  20,
		LoginMaxFailuresPerIP: 50,
		LoginFailureWindow:    15 * time.Minute,
		IdempotencyTTL:        24 * time.Hour,
		MaxPaymentMajor:       100_000_000, // 100 million JPY, EUR or BHD: each currency's exponent scales it
		ClockRefresh:          time.Second,
		APIRateLimit:          6_000, // 100 a second on average: generous for a merchant's CI (docs/decisions.md)
		APIRateWindow:         time.Minute,
		LedgerVerifyInterval:  DefaultLedgerVerifyInterval,
		TransfersInterval:     DefaultTransfersInterval,
		ReplicaMaxLag:         replica.DefaultMaxLag,
		ReplicaCheckInterval:  replica.DefaultInterval,

		DatabaseConnectTimeout: DefaultDatabaseConnectTimeout,
		RequestTimeout:         DefaultRequestTimeout,
		DatabaseKeepalive:      DefaultDatabaseKeepalive,
		ReportConcurrency:      DefaultReportConcurrency,
		ReportNice:             DefaultReportNice,
		ReportDutyCycle:        DefaultReportDutyCycle,

		SandboxInstanceControls: true,
	}
}

// Validate checks the configuration and fills derived values: PublicURL from
// Addr, and Issuer from an explicit PublicURL or else DefaultIssuer. It returns every problem at once.
func (c *Config) Validate() error {
	var problems []string
	add := func(format string, args ...any) { problems = append(problems, fmt.Sprintf(format, args...)) }

	if c.Mode != Sandbox && c.Mode != Production {
		add("--mode must be sandbox or production, got %q", c.Mode)
	}
	if c.Issuer == "" {
		// An explicit public URL names the deployment (and keeps the issuer of
		// tokens issued before --issuer existed); a derived one names only
		// this instance's listen address.
		c.Issuer = DefaultIssuer
		if c.PublicURL != "" {
			c.Issuer = strings.TrimRight(c.PublicURL, "/")
		}
	}
	host, port, err := net.SplitHostPort(c.Addr)
	if err != nil {
		add("--addr must be host:port, got %q", c.Addr)
	}
	if c.PublicURL == "" && err == nil {
		if host == "" || host == "0.0.0.0" || host == "::" {
			host = "127.0.0.1"
		}
		c.PublicURL = "http://" + net.JoinHostPort(host, port)
	}
	c.PublicURL = strings.TrimRight(c.PublicURL, "/")
	if c.SelfURL == "" && err == nil {
		self := host
		if self == "" || self == "0.0.0.0" || self == "::" {
			self = "127.0.0.1"
		}
		c.SelfURL = "http://" + net.JoinHostPort(self, port)
	}
	c.SelfURL = strings.TrimRight(c.SelfURL, "/")
	if u, err := url.Parse(c.PublicURL); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		add("--public-url must be an http(s) URL, got %q", c.PublicURL)
	}
	if c.AdminAddr != "" {
		if _, port, err := net.SplitHostPort(c.AdminAddr); err != nil {
			add("--admin-addr must be host:port, got %q", c.AdminAddr)
		} else if c.AdminAddr == c.Addr && port != "0" {
			add("--admin-addr must differ from --addr: profiles are never served where the API is")
		}
	}
	if c.DatabaseURL != "" && !c.UsesPostgres() {
		add("--database-url must start with postgres:// or postgresql:// (leave it empty for SQLite in --data-dir)")
	}
	if c.ReplicaURL != "" {
		c.validateReplica(add)
	}
	c.validateDatabase(add)
	if !c.UsesPostgres() && c.DataDir == "" {
		add("--data-dir is required when no --database-url is given")
	}
	switch c.LogLevel {
	case "debug", "info", "warn", "error":
	default:
		add("--log-level must be debug, info, warn or error, got %q", c.LogLevel)
	}
	if c.LogFormat != "text" && c.LogFormat != "json" {
		add("--log-format must be text or json, got %q", c.LogFormat)
	}
	for name, d := range map[string]time.Duration{
		"shutdown timeout": c.ShutdownTimeout, "access token TTL": c.AccessTokenTTL,
		"refresh token TTL": c.RefreshTokenTTL, "login failure window": c.LoginFailureWindow,
		"idempotency TTL": c.IdempotencyTTL, "clock refresh": c.ClockRefresh,
	} {
		if d <= 0 {
			add("%s must be positive", name)
		}
	}
	if c.TransfersDir != "" && c.TransfersInterval < time.Second {
		add("--transfers-interval must be at least 1s, got %s", c.TransfersInterval)
	}
	if c.TransfersDir != "" && c.Mode == Sandbox {
		add("--transfers-dir is for production: the sandbox's mock bank takes the sandbox's transfers (GET /sandbox/bank-files)")
	}
	if c.LedgerVerifyInterval < MinLedgerVerifyInterval {
		add("--ledger-verify-interval must be at least %s, got %s", MinLedgerVerifyInterval, c.LedgerVerifyInterval)
	}
	if c.MaxBodyBytes <= 0 || c.LoginMaxFailures <= 0 || c.LoginMaxFailuresUser <= 0 || c.LoginMaxFailuresPerIP <= 0 || c.MaxPaymentMajor <= 0 {
		add("body limit, login failure limits and maximum payment amount must be positive")
	}
	if c.MaxStatementBytes <= 0 || c.MaxStatusBytes <= 0 {
		add("--max-statement-bytes and --max-status-bytes must be positive, got %d and %d", c.MaxStatementBytes, c.MaxStatusBytes)
	}
	if c.TrustedProxyCount < 0 {
		add("--trusted-proxy-count must be 0 or positive, got %d", c.TrustedProxyCount)
	}
	if len(c.TrustedProxies) > 0 && c.TrustedProxyCount > 0 {
		add("--trusted-proxies and --trusted-proxy-count exclude each other: name the proxies or count them")
	}
	if (len(c.TrustedProxies) > 0 || c.TrustedProxyCount > 0) && !c.TrustProxyHeaders {
		add("--trusted-proxies and --trusted-proxy-count need --trust-proxy-headers")
	}
	for _, p := range c.TrustedProxies {
		if !p.IsValid() {
			add("--trusted-proxies: %q is not a network", p)
		}
	}
	if c.TrustProxyHeaders && len(c.TrustedProxies) == 0 && c.TrustedProxyCount == 0 {
		c.TrustedProxyCount = 1 // one proxy in front, the common case
	}
	if c.APIRateLimit < 0 {
		add("--api-rate-limit must be 0 (off) or positive, got %d", c.APIRateLimit)
	}
	if c.APIRateLimit > 0 && c.APIRateWindow < time.Second {
		add("--api-rate-window must be at least 1s, got %s", c.APIRateWindow)
	}
	if _, err := money.MajorToMinor(c.MaxPaymentMajor, iso.MaxDecimals); err != nil {
		add("--max-payment-major %d is too large: it must fit in minor units of every currency (%d decimals at most)", c.MaxPaymentMajor, iso.MaxDecimals)
	}
	if len(problems) > 0 {
		return errors.New("invalid configuration:\n  - " + strings.Join(problems, "\n  - "))
	}
	return nil
}

// validateReplica checks the replica's settings (when ReplicaURL is set).
func (c *Config) validateReplica(add func(string, ...any)) {
	if !c.UsesPostgres() {
		add("--replica-url needs PostgreSQL (--database-url): SQLite has no replicas, its readers already run beside its writer")
	}
	if !isPostgresURL(c.ReplicaURL) {
		add("--replica-url must start with postgres:// or postgresql://")
	}
	if err := c.Replica().Validate(); err != nil {
		add("%s", err)
	}
}

// Replica is the replica monitor's configuration.
func (c *Config) Replica() replica.Config {
	return replica.Config{MaxLag: c.ReplicaMaxLag, Interval: c.ReplicaCheckInterval}
}

// isPostgresURL reports whether u names PostgreSQL.
func isPostgresURL(u string) bool {
	return strings.HasPrefix(u, "postgres://") || strings.HasPrefix(u, "postgresql://")
}

// UsesPostgres reports whether DatabaseURL names PostgreSQL.
func (c *Config) UsesPostgres() bool {
	return isPostgresURL(c.DatabaseURL)
}

// SQLitePath is the SQLite database file inside DataDir.
func (c *Config) SQLitePath() string { return filepath.Join(c.DataDir, "bankrail.db") }

// DatabaseDescription names the database for logs and the banner, without
// credentials.
func (c *Config) DatabaseDescription() string {
	if !c.UsesPostgres() {
		return "SQLite " + c.SQLitePath()
	}
	u, err := url.Parse(c.DatabaseURL)
	if err != nil {
		return "PostgreSQL"
	}
	return "PostgreSQL " + u.Redacted()
}

// ReplicaDescription names the read replica for the banner, without
// credentials; empty without one.
func (c *Config) ReplicaDescription() string {
	if c.ReplicaURL == "" {
		return ""
	}
	u, err := url.Parse(c.ReplicaURL)
	if err != nil {
		return "PostgreSQL"
	}
	return "PostgreSQL " + u.Redacted()
}
