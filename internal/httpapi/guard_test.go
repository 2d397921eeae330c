package httpapi

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/bankrail/bankrail/api"
	"github.com/bankrail/bankrail/internal/clock"
	"github.com/bankrail/bankrail/internal/errs"
)

// testServer is a Server with only the routes a test registers.
func testServer(t *testing.T, logs io.Writer) *Server {
	t.Helper()
	s := &Server{log: slog.New(slog.NewJSONHandler(logs, nil)), clock: clock.NewFake(time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)),
		maxBody: 1 << 10, mux: http.NewServeMux()}
	s.handler = s.withRequestID(s.withAccessLog(s.withRecovery(http.HandlerFunc(s.dispatch))))
	return s
}

func TestPanicBecomesLoggedInternalErrorWithTraceID(t *testing.T) {
	t.Parallel()
	var logs bytes.Buffer
	s := testServer(t, &logs)
	s.handle("GET /boom", func(w http.ResponseWriter, r *http.Request) error { panic("secret detail") }, public)
	s.handle("GET /fail", func(w http.ResponseWriter, r *http.Request) error {
		return errors.New("pq: password authentication failed for user bankrail")
	}, public)
	for _, path := range []string{"/boom", "/fail"} {
		rec := httptest.NewRecorder()
		s.ServeHTTP(rec, httptest.NewRequest("GET", path, nil))
		var body api.Error
		if err := json.Unmarshal(rec.Body.Bytes(), &body); err != nil {
			t.Fatal(err)
		}
		trace := rec.Header().Get("X-Request-Id")
		if rec.Code != 500 || body.Code != api.ErrorCode(errs.Internal) || !strings.Contains(body.Message, trace) || !strings.Contains(body.Message, "2026-01-02T03:04:05Z") {
			t.Fatalf("%s: %d %+v", path, rec.Code, body)
		}
		if strings.Contains(rec.Body.String(), "secret detail") || strings.Contains(rec.Body.String(), "password") {
			t.Fatalf("%s: internals leaked to the client: %s", path, rec.Body.String())
		}
		if !strings.Contains(logs.String(), trace) {
			t.Fatalf("%s: trace id %s not in the log:\n%s", path, trace, logs.String())
		}
	}
	if !strings.Contains(logs.String(), "secret detail") {
		t.Fatal("the panic value must be logged for operators")
	}
}

func TestAPIVersionHeader(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, value string
		status      int
		code        errs.Code
	}{
		{"missing", "", 400, errs.MissingHeader},
		{"wrong", "2", 400, errs.InvalidHeader},
		{"right", "1", 204, ""},
	}
	s := testServer(t, io.Discard)
	s.handle("GET /versioned", func(w http.ResponseWriter, r *http.Request) error { w.WriteHeader(204); return nil }, public, versioned)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req := httptest.NewRequest("GET", "/versioned", nil)
			if tt.value != "" {
				req.Header.Set("X-Service-Api-Version", tt.value)
			}
			rec := httptest.NewRecorder()
			s.ServeHTTP(rec, req)
			if rec.Code != tt.status {
				t.Fatalf("status %d, want %d: %s", rec.Code, tt.status, rec.Body)
			}
			if tt.code != "" && !strings.Contains(rec.Body.String(), string(tt.code)) {
				t.Fatalf("body %s, want %s", rec.Body, tt.code)
			}
		})
	}
}

func TestRouteWithoutPermissionIsRefusedAtStart(t *testing.T) {
	t.Parallel()
	for name, opts := range map[string][]routeOption{
		"no operation":         nil,
		"an unknown operation": {needs("do anything")},
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			s := testServer(t, io.Discard)
			defer func() {
				if recover() == nil {
					t.Fatal("a route that is neither public nor guarded by a known operation must not register")
				}
			}()
			s.handle("GET /open", func(w http.ResponseWriter, r *http.Request) error { return nil }, opts...)
		})
	}
}

func TestStatusOfEveryCode(t *testing.T) {
	t.Parallel()
	want := map[errs.Code]int{
		errs.BadRequest: 400, errs.MissingHeader: 400, errs.InvalidHeader: 400, errs.MalformedPathParam: 400,
		errs.MissingQueryParam: 400, errs.InvalidQueryParam: 400, errs.Unauthorised: 401, errs.AccessDenied: 403,
		errs.NotFound: 404, errs.MethodNotSupported: 405, errs.Conflict: 409, errs.IdempotencyConflict: 409,
		errs.NotModifiable: 409, errs.PayloadTooLarge: 413, errs.UnsupportedMediaType: 415, errs.ValidationFailure: 422, errs.ReportEmpty: 422,
		errs.TooManyRequests: 429, errs.Internal: 500,
	}
	for code, status := range want {
		if got := statusOf(code); got != status {
			t.Errorf("statusOf(%s) = %d, want %d", code, got, status)
		}
	}
}
