// Package checkout is the payer's side of bankrail, served as HTML: the
// hosted checkout (bank picker with search, confirmation page), the mock
// banks' authorisation pages (sandbox only: the SCA pages of the mock
// ASPSP, internal/xs2a/aspsp), the way to any bank through its
// bank.Connector (connector.go; a bank without one ends the payment with a
// page that says so) and the return to
// the merchant with a signed outcome; the same pages embedded in a merchant's page
// (embed.go) with their small JavaScript library. Pages are rendered on the server from embedded
// html/template files and work without JavaScript. It is an adapter: the
// rules live in internal/payment.
//
// Forms POST the payment's checkout token, a random capability that only
// the payer's link carries, so another site cannot submit them (CSRF); a
// request whose Origin is another site is refused as well.
package checkout

import (
	"context"
	"embed"
	"log/slog"
	"net/http"
	"net/url"

	"github.com/bankrail/bankrail/internal/bank"
	"github.com/bankrail/bankrail/internal/clock"
	"github.com/bankrail/bankrail/internal/payment"
)

//go:embed templates/*.html static/*
var files embed.FS

// SecretSource returns the notification secret of an application (by
// client id): it signs the outcome on return URLs.
type SecretSource func(ctx context.Context, clientID string) (string, error)

// Deps are what the pages call.
type Deps struct {
	Payments  *payment.Service
	Secrets   SecretSource
	Clock     clock.Clock
	Log       *slog.Logger
	PublicURL string // where the pages are served; forms from another origin are refused
	Sandbox   bool   // mock banks are served only in the sandbox
	// Connectors reach the payers' banks (in the sandbox the NextGenPSD2
	// connector to the mock ASPSP); the payment of a bank without one ends
	// when the payer picks it.
	Connectors *bank.Connectors
	// AnswerAtMockBank records the payer's answer on the mock bank page at
	// the mock ASPSP (sandbox: internal/xs2a/aspsp), for the bank's payment
	// paymentID (its aspspPaymentId); nil without mock banks.
	AnswerAtMockBank func(ctx context.Context, bankID, paymentID, outcome, holder string) error
	// ClientAddr is the payer's address as the instance's trusted proxies
	// report it (webguard.Proxies.ClientAddr), the PSU-IP-Address of a
	// payment that names no device; nil: the connection's peer.
	ClientAddr func(r *http.Request) string
}

// Handler serves the payer's pages.
type Handler struct {
	Deps
	mux    *http.ServeMux
	origin string
}

// New returns the handler of /checkout/... and /mock-banks/....
func New(d Deps) *Handler {
	h := &Handler{Deps: d, mux: http.NewServeMux()}
	if u, err := url.Parse(d.PublicURL); err == nil {
		h.origin = u.Scheme + "://" + u.Host
	}
	h.mux.HandleFunc("GET /checkout/static/checkout.css", serveStatic("static/checkout.css", "text/css; charset=utf-8"))
	h.mux.HandleFunc("GET /checkout/static/embed.js", serveStatic("static/embed.js", "text/javascript; charset=utf-8"))
	h.mux.HandleFunc("GET "+LibraryPath, serveStatic("static/checkout.js", "text/javascript; charset=utf-8"))
	h.mux.HandleFunc("GET /checkout/{id}", h.page(h.showCheckout))
	h.mux.HandleFunc("GET /checkout/{id}/embed", h.page(h.startEmbedded))
	h.mux.HandleFunc("GET /checkout/{id}/confirm", h.page(h.showConfirm))
	h.mux.HandleFunc("POST /checkout/{id}/confirm", h.page(h.goToBank))
	h.mux.HandleFunc("GET /checkout/{id}/done", h.page(h.showDone))
	h.mux.HandleFunc("GET /checkout/{id}/return", h.page(h.returnFromBank))
	h.mux.HandleFunc("GET /checkout/{id}/bank-app", h.page(h.waitForApp))
	if d.Sandbox {
		h.mux.HandleFunc("GET /mock-banks/{bank}/authorise/{id}", h.page(h.showBank))
		h.mux.HandleFunc("POST /mock-banks/{bank}/authorise/{id}", h.page(h.answerAtBank))
	} else {
		// The api channel's directUrl: no mock bank here, the bank's connector.
		h.mux.HandleFunc("GET /mock-banks/{bank}/authorise/{id}", h.page(h.arriveAtBank))
	}
	return h
}

// Prefixes are the paths the handler serves below; the HTTP server mounts
// it there. The embedded checkout's library, LibraryPath, is mounted as
// one API route (GET only: another method is the API's JSON 405).
var Prefixes = []string{"/checkout/", "/mock-banks/"}

// LibraryPath is where the embedded checkout's JavaScript library is served.
const LibraryPath = "/js/v1/checkout.js"

// ServeHTTP implements http.Handler.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	hd := w.Header()
	hd.Set("Cache-Control", "no-store")
	hd.Set("Referrer-Policy", "same-origin") // the address carries the checkout token: never sent to another site
	hd.Set("X-Content-Type-Options", "nosniff")
	hd.Set("X-Frame-Options", "DENY")
	hd.Set("Content-Security-Policy", "default-src 'none'; style-src 'self'; img-src 'self' data:; base-uri 'none'; frame-ancestors 'none'")
	if _, pattern := h.mux.Handler(r); pattern == "" {
		h.renderError(w, r, http.StatusNotFound, "This page does not exist.")
		return
	}
	h.mux.ServeHTTP(w, r)
}

// pageFunc is a page handler that returns its error instead of writing it.
type pageFunc func(w http.ResponseWriter, r *http.Request) error

// page adapts a pageFunc: errors become an HTML error page; a form posted
// from another site is refused.
func (h *Handler) page(fn pageFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost && !h.sameOrigin(r) {
			h.renderError(w, r, http.StatusForbidden, "This form was sent from another site.")
			return
		}
		if origin := embeddedOrigin(r.FormValue("token")); origin != "" {
			allowFraming(w, origin)
		}
		if err := fn(w, r); err != nil {
			h.fail(w, r, err)
		}
	}
}

// sameOrigin reports whether a form was posted from the checkout's own
// pages (browsers send Origin on POST; a client that sends none, such as a
// test, is let through: the checkout token is the protection).
func (h *Handler) sameOrigin(r *http.Request) bool {
	o := r.Header.Get("Origin")
	return o == "" || o == h.origin
}
