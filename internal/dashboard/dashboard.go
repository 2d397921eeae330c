// Package dashboard is bankrail's web console for merchants and operators,
// served below /dashboard/ by the same binary: server-rendered
// html/template pages (embedded, with their stylesheet) that work without
// JavaScript, over the same domain services and permissions as the API. A
// person signs in with a user's username and password (the auth service,
// under the password grant's throttle); the session is kept on the server
// (auth.Session, table dashboard_sessions), the browser holds a random id
// in an HttpOnly, SameSite=Lax cookie (Secure in production), and every
// form carries the session's synchronizer token, checked on every POST.
// The user's role decides what the pages show and allow exactly as it
// decides what the API allows (identity.Role.Can); the customer tree
// decides what the user sees (a PSP's user sees its merchants' records,
// another customer's record is 404), because every read goes through the
// services with the user's customer as the viewer. It is an adapter: the
// rules live in the domain packages. See docs/dashboard.md.
package dashboard

import (
	"context"
	"embed"
	"log/slog"
	"net/http"
	"time"

	"github.com/bankrail/bankrail/internal/auth"
	"github.com/bankrail/bankrail/internal/channel"
	"github.com/bankrail/bankrail/internal/clock"
	"github.com/bankrail/bankrail/internal/event"
	"github.com/bankrail/bankrail/internal/identity"
	"github.com/bankrail/bankrail/internal/inbox"
	"github.com/bankrail/bankrail/internal/ledger"
	"github.com/bankrail/bankrail/internal/mandate"
	"github.com/bankrail/bankrail/internal/notify"
	"github.com/bankrail/bankrail/internal/payment"
	"github.com/bankrail/bankrail/internal/payout"
	"github.com/bankrail/bankrail/internal/refund"
	"github.com/bankrail/bankrail/internal/report"
	"github.com/bankrail/bankrail/internal/sandbox"
	"github.com/bankrail/bankrail/internal/statement"
	"github.com/bankrail/bankrail/internal/transfer"
	"github.com/bankrail/bankrail/internal/webguard"
)

//go:embed templates/*.html static/*
var files embed.FS

// Prefix is where the console is mounted.
const Prefix = "/dashboard/"

// Session lifetimes, on the service clock (see docs/dashboard.md: a
// sandbox tenant's virtual clock does not end a person's session).
const (
	IdleTimeout = 30 * time.Minute // a session not used for this long ends
	MaxLifetime = 12 * time.Hour   // a session ends this long after sign-in, used or not
	touchEvery  = time.Minute      // how often activity is written
)

// Audit actions of the console that are not a change of a record (a
// change's action is the console's route pattern, such as
// "POST /dashboard/payments/{id}/refund").
const (
	ActionSignIn       = "dashboard.sign_in"
	ActionSignInFailed = "dashboard.sign_in_failed"
	ActionSignOut      = "dashboard.sign_out"
)

// SignInAuditor writes the audit entry of a refused sign-in (the store).
type SignInAuditor = webguard.SignInAuditor

// SandboxResetter brings the signed-in user's own customer tree back to
// its seed state (internal/sandbox); the whole instance is the operator's,
// through the API and the CLI.
type SandboxResetter interface {
	ResetTree(ctx context.Context) (sandbox.State, error)
}

// Deps are what the console calls. Inbox, Sandbox, Mandates, Channels,
// Identity, Settings, SandboxState, Statements and Transfers may be nil:
// their pages are then absent.
type Deps struct {
	Log        *slog.Logger
	Clock      clock.Clock      // the service clock; Now is the base time (sessions)
	Sandbox    *sandbox.Clocks  // the controls of the per-tenant sandbox clocks; nil in production
	Production bool             // Secure cookies; no sandbox pages
	Proxies    webguard.Proxies // which proxies may name the client address (sign-in throttle, audit)

	Auth     *auth.Service
	Sessions auth.SessionStore
	SignIns  SignInAuditor

	Payments      *payment.Service
	Events        *event.Reader // a payment's and a mandate's history
	Notifications *notify.Service
	Inbox         *inbox.Service
	Refunds       *refund.Service
	Payouts       *payout.Service
	Reports       *report.Service
	Accounts      *ledger.Service
	Mandates      *mandate.Service
	Channels      *channel.Service

	Identity     *identity.Service // customers' names, the applications pages (nil: none)
	Settings     *notify.Settings  // secret rotation, webhook chaos (sandbox)
	SandboxState SandboxResetter   // nil: no sandbox reset

	// The instance operator's pages (role OPERATOR): the bank's statements
	// and the reconciliation exceptions, the transfer files.
	Statements *statement.Importer
	Transfers  *transfer.Service
	// MaxStatementBytes and MaxStatusBytes are the largest statement file
	// and pain.002 report their pages take, as the API (larger is 413;
	// zero: config's defaults). A statement is spooled to disk and read
	// as a stream; larger files go through `bankrail statements import`
	// or the watched folder.
	MaxStatementBytes, MaxStatusBytes int64
}

// Handler serves the console: its areas (area.go) share a base and
// register their own routes.
type Handler struct {
	b   *base
	mux *http.ServeMux
}

// New returns the console's handler.
func New(d Deps) *Handler {
	b := &base{Deps: d}
	h := &Handler{b: b, mux: http.NewServeMux()}
	h.mux.HandleFunc("GET /dashboard/static/dashboard.css", serveStatic("static/dashboard.css", "text/css; charset=utf-8"))
	h.mux.HandleFunc("GET /dashboard/{$}", h.start)
	for _, a := range areas(b) {
		a.register(h.mux)
	}
	return h
}

// contentSecurityPolicy allows nothing but this origin's stylesheet and
// images, and forms that post here: no script at all.
const contentSecurityPolicy = "default-src 'none'; style-src 'self'; img-src 'self' data:; form-action 'self'; " +
	"base-uri 'none'; frame-ancestors 'none'"

// ServeHTTP implements http.Handler.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	hd := w.Header()
	hd.Set("Cache-Control", "no-store")
	hd.Set("Referrer-Policy", "same-origin")
	hd.Set("X-Content-Type-Options", "nosniff")
	hd.Set("X-Frame-Options", "DENY")
	hd.Set("Content-Security-Policy", contentSecurityPolicy)
	if _, pattern := h.mux.Handler(r); pattern == "" {
		h.b.renderError(w, r, nil, http.StatusNotFound, "This page does not exist.")
		return
	}
	h.mux.ServeHTTP(w, r)
}

// start is GET /dashboard/: the first page the role may open (the
// payments; an operator's statements), or the sign-in page.
func (h *Handler) start(w http.ResponseWriter, r *http.Request) {
	if q, ok := h.b.current(w, r); ok {
		http.Redirect(w, r, h.b.landing(q.p), http.StatusSeeOther)
		return
	}
	http.Redirect(w, r, Prefix+"sign-in", http.StatusSeeOther)
}

// serveStatic serves an embedded file.
func serveStatic(name, contentType string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		b, err := files.ReadFile(name)
		if err != nil {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", contentType)
		w.Header().Set("Cache-Control", "public, max-age=300")
		_, _ = w.Write(b)
	}
}
