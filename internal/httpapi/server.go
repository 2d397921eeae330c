// Package httpapi is bankrail's HTTP adapter: the router, the middleware
// (request id, access log, panic recovery, authentication, permissions, API
// version), the error contract and the handlers that translate HTTP to calls
// on the domain services. It holds no business rules.
package httpapi

import (
	"context"
	"log/slog"
	"net/http"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	"github.com/bankrail/bankrail/internal/alias"
	"github.com/bankrail/bankrail/internal/auth"
	"github.com/bankrail/bankrail/internal/channel"
	"github.com/bankrail/bankrail/internal/clock"
	"github.com/bankrail/bankrail/internal/config"
	"github.com/bankrail/bankrail/internal/identity"
	"github.com/bankrail/bankrail/internal/inbox"
	"github.com/bankrail/bankrail/internal/ledger"
	legacyapi "github.com/bankrail/bankrail/internal/legacy"
	"github.com/bankrail/bankrail/internal/mandate"
	"github.com/bankrail/bankrail/internal/notify"
	"github.com/bankrail/bankrail/internal/payment"
	"github.com/bankrail/bankrail/internal/payout"
	"github.com/bankrail/bankrail/internal/ratelimit"
	"github.com/bankrail/bankrail/internal/refund"
	"github.com/bankrail/bankrail/internal/report"
	"github.com/bankrail/bankrail/internal/sandbox"
	"github.com/bankrail/bankrail/internal/statement"
	"github.com/bankrail/bankrail/internal/transfer"
	"github.com/bankrail/bankrail/internal/webguard"
)

// Pinger reports whether the database answers.
type Pinger interface {
	Ping(ctx context.Context) error
}

// Deps are what the HTTP adapter calls. Optional parts may be nil; their
// routes are then absent.
type Deps struct {
	Log          *slog.Logger
	Clock        clock.Clock
	Mode         config.Mode
	MaxBodyBytes int64
	Proxies      webguard.Proxies // which proxies may name the client address (sign-in throttle, audit)
	Version      string
	PublicURL    string // where clients reach this instance: the servers of the served OpenAPI document

	// MaxStatementBytes and MaxStatusBytes are the largest statement file
	// (POST /statements) and pain.002 report (POST /transfer-status)
	// taken; larger is 413. Zero: config's defaults.
	MaxStatementBytes, MaxStatusBytes int64

	Auth      *auth.Service
	DB        Pinger
	Sandbox   *sandbox.Clocks    // the controls of the per-tenant sandbox clocks; nil in production
	RateLimit *ratelimit.Limiter // API requests per application; nil: no limit

	Payments      *payment.Service    // Global API payments, banks and short links
	Legacy        *legacyapi.Service  // legacy Payments API and embedded checkout creation (needs Payments)
	Notifications *notify.Service     // the delivery log and test notifications
	Metrics       http.Handler        // Prometheus metrics at GET /metrics
	Requests      RequestObserver     // told about every answered request (metrics); may be nil
	Inbox         *inbox.Service      // the sandbox's built-in notification receiver (nil in production)
	Demo          *DemoMerchant       // the sandbox's demo merchant (nil in production or with a seed file)
	Mandates      *mandate.Service    // mandates and their amendments
	Reports       *report.Service     // asynchronous CSV reports
	SignIns       SignInAuditor       // writes the audit entries of refused sign-ins (nil: not audited)
	Accounts      *ledger.Service     // Connect accounts and their transactions (the Accounts API)
	Refunds       *refund.Service     // refunds of Connect payments
	Channels      *channel.Service    // stablecoin deposit channels
	Payouts       *payout.Service     // payouts and their account holder verifications
	Aliases       *alias.Service      // account alias orders and aliases
	Statements    *statement.Importer // bank statements and reconciliation exceptions (operators)
	Transfers     *transfer.Service   // transfer files out and the bank's answers (operators; the sandbox's mock bank files)

	NotificationSettings *notify.Settings // webhook chaos (sandbox) and notification secret rotation
	SandboxState         SandboxState     // reset, snapshot and restore of the whole sandbox (nil in production)

	// Pages serves the payer's HTML pages (hosted checkout, mock banks)
	// below PagePrefixes, behind the request id, access log and recovery.
	Pages        http.Handler
	PagePrefixes []string

	// Dashboard serves the web console (internal/dashboard) below /dashboard/.
	Dashboard http.Handler

	// Unavailable returns err as SERVICE_UNAVAILABLE when it is a lost or
	// refused database connection (store.Unavailable), else err; nil:
	// every uncoded error is internal.
	Unavailable func(err error) error

	// RequestTimeout is how long a request may wait before its answer
	// begins; it is then answered 503 SERVICE_UNAVAILABLE with
	// Retry-After (bounded). 0: no bound.
	RequestTimeout time.Duration

	// InFlight counts the requests being answered (nil: not counted); a
	// report generation gives way while it is above zero (report.Deps.Busy).
	InFlight *atomic.Int64
}

// Server routes requests to handlers.
type Server struct {
	Deps
	log     *slog.Logger
	clock   clock.Clock
	maxBody int64
	mux     *http.ServeMux
	handler http.Handler
	served  []string // every pattern registered on mux, in order
}

// Routes lists the patterns the server serves, as registered: "METHOD
// /path" for API routes, "/prefix/" for the payer's pages. The route
// coverage test compares them with the OpenAPI document.
func (s *Server) Routes() []string { return slices.Clone(s.served) }

// mount registers h at pattern on the mux and records the pattern ("{$}",
// the mux's exact match of "/", is recorded as the document's "/").
func (s *Server) mount(pattern string, h http.Handler) {
	s.served = append(s.served, strings.TrimSuffix(pattern, "{$}"))
	s.mux.Handle(pattern, h)
}

// New builds the HTTP handler of bankrail.
func New(d Deps) *Server {
	s := &Server{Deps: d, log: d.Log, clock: d.Clock, maxBody: d.MaxBodyBytes, mux: http.NewServeMux()}
	if s.MaxStatementBytes <= 0 {
		s.MaxStatementBytes = config.DefaultMaxStatementBytes
	}
	if s.MaxStatusBytes <= 0 {
		s.MaxStatusBytes = config.DefaultMaxStatusBytes
	}
	s.routes()
	s.handler = s.withInFlight(s.withRequestID(s.withAccessLog(s.withRecovery(s.withCleanInput(http.HandlerFunc(s.dispatch))))))
	return s
}

// ServeHTTP implements http.Handler.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) { s.handler.ServeHTTP(w, r) }

// handlerFunc is a handler that returns its error instead of writing it.
type handlerFunc func(w http.ResponseWriter, r *http.Request) error

// route describes how one endpoint is guarded.
type route struct {
	public      bool               // no bearer token needed
	operation   identity.Operation // what it asks of a service, unless public: its permission is checked first
	orElse      identity.Operation // another operation that also lets the caller in (needsEither)
	apiVersions []string           // X-Service-Api-Version required, one of these
	legacy      bool               // legacy error shape and deprecation headers
	unbounded   bool               // not answered 503 after Deps.RequestTimeout (bounded): its work grows with its input
}

// routeOption sets one property of a route.
type routeOption func(*route)

// public marks a route that needs no token.
func public(r *route) { r.public = true }

// needs names the operation a route asks of a service. The permission comes
// from the operation's one definition (identity.Operation.Needs) and is
// checked again by the service: the route checks it first only so that a
// caller without it gets 403 before any other answer, as it always has.
func needs(op identity.Operation) routeOption { return func(r *route) { r.operation = op } }

// needsEither names a route whose operation the caller's role decides: the
// principal must be permitted op or else (the sandbox's controls: a
// tenant's ADMIN acts on its tree, the operator on the instance).
func needsEither(op, orElse identity.Operation) routeOption {
	return func(r *route) { r.operation, r.orElse = op, orElse }
}

// versioned marks a route that requires X-Service-Api-Version: 1.
func versioned(r *route) { r.apiVersions = []string{"1"} }

// legacyVersioned marks a route that requires the legacy API's
// X-Service-Api-Version: 1 to 4 or edge.
func legacyVersioned(r *route) { r.apiVersions = []string{"1", "2", "3", "4", "edge"} }

// unbounded marks a route whose work grows with its input (a bank file
// imported entry by entry): its answer may rightly take longer than
// Deps.RequestTimeout, so it is not cut at it. Its size is bounded by the
// body's limit and each of its statements by the database's timeouts.
func unbounded(r *route) { r.unbounded = true }

// legacy marks a route of the legacy Payments API: legacy error shape and
// the deprecation headers.
func legacy(r *route) { r.legacy = true }

// handle registers h at pattern ("METHOD /path") behind the guards of opts.
func (s *Server) handle(pattern string, h handlerFunc, opts ...routeOption) {
	var rt route
	for _, o := range opts {
		o(&rt)
	}
	if !rt.public && rt.operation.Needs() == "" {
		panic("route " + pattern + " must be public or name a known operation") // a programming error caught at start
	}
	s.mount(pattern, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if rt.legacy {
			r = asLegacy(w, r)
		}
		if !rt.unbounded {
			var done func()
			w, r, done = s.bounded(w, r)
			defer done()
		}
		if err := s.serveRetrying(w, r, func(w http.ResponseWriter, r *http.Request) error {
			r, err := s.guard(r, rt)
			if err != nil {
				return err
			}
			return h(w, s.audited(r, pattern, rt))
		}); err != nil {
			s.writeError(w, r, s.timedOut(r, err))
		}
	}))
}
