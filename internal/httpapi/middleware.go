package httpapi

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"log/slog"
	"net/http"
	"runtime/debug"
	"strings"
	"time"

	"github.com/bankrail/bankrail/internal/auth"
	"github.com/bankrail/bankrail/internal/errs"
	legacyapi "github.com/bankrail/bankrail/internal/legacy"
)

type ctxKey int

const (
	requestIDKey ctxKey = iota
	legacyKey
	routeKey
)

// RequestObserver is told about every answered request: its method, the
// route pattern that served it ("/payments/{id}", empty when none did), its
// status and how long it took. bankrail's metrics implement it.
type RequestObserver interface {
	ObserveRequest(method, route string, status int, d time.Duration)
}

// routeSlot receives the route pattern that serves a request: dispatch
// fills it for the middleware around it, which ran before the mux chose.
type routeSlot struct{ pattern string }

// setRoute records the pattern that serves r ("GET /payments/{id}" is
// recorded as "/payments/{id}": the method is a label of its own).
func setRoute(r *http.Request, pattern string) {
	if slot, ok := r.Context().Value(routeKey).(*routeSlot); ok {
		_, path, found := strings.Cut(pattern, " ")
		if !found {
			path = pattern
		}
		slot.pattern = strings.TrimSuffix(path, "{$}")
	}
}

// requestIDFrom returns the request id (also the trace id of errors).
func requestIDFrom(ctx context.Context) string {
	id, _ := ctx.Value(requestIDKey).(string)
	return id
}

// legacyTokenPath is the legacy API's token endpoint, whose errors have a
// shape of their own (legacyTokenErrorOf).
const legacyTokenPath = "/legacy/oauth"

// errorShape is the shape of a request's errors.
type errorShape int

const (
	globalShape      errorShape = iota // {code, message, errors}
	legacyShape                        // {exception: {code, message, errorList}}
	legacyTokenShape                   // {code, message, exception} (legacyTokenPath)
)

// asLegacy marks a request of the legacy API: its errors take the legacy
// shape (the token endpoint's its own), and its answer carries the
// deprecation headers.
func asLegacy(w http.ResponseWriter, r *http.Request) *http.Request {
	for _, h := range legacyapi.DeprecationHeaders() {
		w.Header().Set(h.Name, h.Value)
	}
	shape := legacyShape
	if r.URL.Path == legacyTokenPath {
		shape = legacyTokenShape
	}
	return r.WithContext(context.WithValue(r.Context(), legacyKey, shape))
}

// errorShapeOf is the shape of the errors of the request of ctx.
func errorShapeOf(ctx context.Context) errorShape {
	v, _ := ctx.Value(legacyKey).(errorShape)
	return v
}

// withInFlight counts the request in Deps.InFlight while it is answered.
func (s *Server) withInFlight(next http.Handler) http.Handler {
	if s.InFlight == nil {
		return next
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.InFlight.Add(1)
		defer s.InFlight.Add(-1)
		next.ServeHTTP(w, r)
	})
}

// withRequestID takes a sane X-Request-Id from the client or makes one, and
// echoes it on the response.
func (s *Server) withRequestID(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		id := r.Header.Get("X-Request-Id")
		if !saneRequestID(id) {
			b := make([]byte, 16)
			_, _ = rand.Read(b)
			id = hex.EncodeToString(b)
		}
		w.Header().Set("X-Request-Id", id)
		next.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), requestIDKey, id)))
	})
}

func saneRequestID(id string) bool {
	if id == "" || len(id) > 64 {
		return false
	}
	for _, c := range id {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_' || c == '.') {
			return false
		}
	}
	return true
}

// statusRecorder remembers the status and size of a response.
type statusRecorder struct {
	http.ResponseWriter
	status int
	bytes  int
}

func (r *statusRecorder) WriteHeader(code int) {
	if r.status == 0 {
		r.status = code
	}
	r.ResponseWriter.WriteHeader(code)
}

func (r *statusRecorder) Write(b []byte) (int, error) {
	if r.status == 0 {
		r.status = http.StatusOK
	}
	n, err := r.ResponseWriter.Write(b)
	r.bytes += n
	return n, err
}

// Unwrap lets http.ResponseController reach the underlying writer.
func (r *statusRecorder) Unwrap() http.ResponseWriter { return r.ResponseWriter }

// withAccessLog logs one line per request, with the route that served it,
// and tells the RequestObserver (metrics).
func (s *Server) withAccessLog(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		rec := &statusRecorder{ResponseWriter: w}
		route := &routeSlot{}
		next.ServeHTTP(rec, r.WithContext(context.WithValue(r.Context(), routeKey, route)))
		took := time.Since(start)
		status := rec.status
		if status == 0 {
			status = http.StatusOK // nothing written: net/http answers 200
		}
		if s.Requests != nil {
			s.Requests.ObserveRequest(r.Method, route.pattern, status, took)
		}
		level := slog.LevelInfo
		if r.URL.Path == "/healthz" || r.URL.Path == "/readyz" {
			level = slog.LevelDebug
		}
		if ctx := r.Context(); s.log.Enabled(ctx, level) { // typed attributes: nothing boxed, nothing built when off
			s.log.LogAttrs(ctx, level, "request", slog.String("method", r.Method), slog.String("path", r.URL.Path),
				slog.String("route", route.pattern), slog.Int("status", status), slog.Int("bytes", rec.bytes),
				slog.Duration("duration", took), slog.String("request_id", requestIDFrom(ctx)))
		}
	})
}

// withRecovery turns a panic into a logged INTERNAL_SERVER_ERROR.
func (s *Server) withRecovery(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		defer func() {
			v := recover()
			if v == nil {
				return
			}
			if v == http.ErrAbortHandler {
				panic(v)
			}
			s.log.ErrorContext(r.Context(), "panic", "trace_id", requestIDFrom(r.Context()), "panic", v, "stack", string(debug.Stack()))
			s.writeError(w, r, fmt.Errorf("panic: %v", v))
		}()
		next.ServeHTTP(w, r)
	})
}

// dispatch routes through the mux, answering unknown paths and wrong methods
// in the error contract's shape instead of the mux's plain text.
func (s *Server) dispatch(w http.ResponseWriter, r *http.Request) {
	h, pattern := s.mux.Handler(r)
	if pattern != "" {
		setRoute(r, pattern)
		s.mux.ServeHTTP(w, r) // not h.ServeHTTP: only the mux sets r.PathValue
		return
	}
	probe := &headerProbe{header: http.Header{}}
	h.ServeHTTP(probe, r)
	if strings.HasPrefix(r.URL.Path, "/legacy/") {
		r = asLegacy(w, r)
	}
	if probe.status == http.StatusMethodNotAllowed {
		w.Header().Set("Allow", probe.header.Get("Allow"))
		s.writeError(w, r, errs.E(errs.MethodNotSupported, "%s is not supported on %s; allowed: %s.", r.Method, r.URL.Path, probe.header.Get("Allow")))
		return
	}
	s.writeError(w, r, errs.E(errs.NotFound, "No resource at %s %s.", r.Method, r.URL.Path))
}

// headerProbe captures what the mux's own 404/405 handler would send.
type headerProbe struct {
	header http.Header
	status int
}

func (p *headerProbe) Header() http.Header         { return p.header }
func (p *headerProbe) Write(b []byte) (int, error) { return len(b), nil }
func (p *headerProbe) WriteHeader(code int)        { p.status = code }

// guard applies a route's authentication, permission and version checks, and
// puts the principal into the request's context.
func (s *Server) guard(r *http.Request, rt route) (*http.Request, error) {
	if !rt.public {
		p, err := s.authenticate(r)
		if err != nil {
			return r, err
		}
		if err := s.RateLimit.Allow(r.Context(), p.ClientID); err != nil {
			return r, err
		}
		if err := p.Permits(rt.operation); err != nil && (rt.orElse == "" || p.Permits(rt.orElse) != nil) {
			return r, err
		}
		r = r.WithContext(auth.WithPrincipal(r.Context(), p))
	}
	if len(rt.apiVersions) > 0 {
		return r, checkAPIVersion(r, rt.apiVersions...)
	}
	return r, nil
}

// authenticate reads and verifies the bearer token.
func (s *Server) authenticate(r *http.Request) (auth.Principal, error) {
	h := r.Header.Get("Authorization")
	if h == "" {
		return auth.Principal{}, errs.E(errs.Unauthorised, "Authorization header is missing; send Authorization: Bearer <access_token> from POST /oauth.")
	}
	scheme, token, ok := strings.Cut(h, " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") || strings.TrimSpace(token) == "" {
		return auth.Principal{}, errs.E(errs.Unauthorised, "Authorization header must be: Bearer <access_token>.")
	}
	return s.Auth.Authenticate(r.Context(), strings.TrimSpace(token))
}

// checkAPIVersion enforces X-Service-Api-Version on versioned endpoints.
func checkAPIVersion(r *http.Request, allowed ...string) error {
	v := r.Header.Get("X-Service-Api-Version")
	if v == "" {
		return errs.E(errs.MissingHeader, "X-Service-Api-Version header is required; send X-Service-Api-Version: %s.", allowed[0])
	}
	for _, a := range allowed {
		if v == a {
			return nil
		}
	}
	return errs.E(errs.InvalidHeader, "X-Service-Api-Version %q is not supported; allowed: %s.", v, strings.Join(allowed, ", "))
}

// clientAddr is the address failed logins are counted against.
func (s *Server) clientAddr(r *http.Request) string { return s.Proxies.ClientAddr(r) }
