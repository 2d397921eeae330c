package httpapi

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// A request whose answer has not begun within Deps.RequestTimeout is
// answered 503 with Retry-After; a route marked unbounded (a bank file's
// import, whose work grows with the file) is not cut and answers when its
// work is done.
func TestRequestTimeoutSparesUnboundedRoutes(t *testing.T) {
	t.Parallel()
	const timeout = 100 * time.Millisecond
	s := testServer(t, io.Discard)
	s.RequestTimeout = timeout
	// work waits for its context's end or three timeouts, whichever
	// comes first: only the timeout can end it early.
	work := func(w http.ResponseWriter, r *http.Request) error {
		select {
		case <-r.Context().Done():
			return context.Cause(r.Context())
		case <-time.After(3 * timeout):
			w.WriteHeader(http.StatusNoContent)
			return nil
		}
	}
	s.handle("POST /bounded", work, public)
	s.handle("POST /import", work, public, unbounded)
	for _, c := range []struct {
		path       string
		status     int
		retryAfter string
	}{{"/bounded", http.StatusServiceUnavailable, "1"}, {"/import", http.StatusNoContent, ""}} {
		rec := httptest.NewRecorder()
		s.ServeHTTP(rec, httptest.NewRequest("POST", c.path, nil))
		if rec.Code != c.status || rec.Header().Get("Retry-After") != c.retryAfter {
			t.Errorf("POST %s: %d Retry-After %q %s; want %d Retry-After %q", c.path, rec.Code,
				rec.Header().Get("Retry-After"), rec.Body, c.status, c.retryAfter)
		}
	}
}

// The HTML pages (the dashboard, the payer's pages) are under the request
// timeout too: a page whose answer has not begun within it is answered 503
// with Retry-After, an HTML page (the API's error shape for a client that
// accepts only JSON), without the headers the page had set (a cookie) or
// the error page it wrote once its context ended; a page whose answer has
// begun is not cut, and bank-file imports and downloads are exempt.
func TestRequestTimeoutCoversPages(t *testing.T) {
	t.Parallel()
	const timeout = 100 * time.Millisecond
	s := testServer(t, io.Discard)
	s.RequestTimeout = timeout
	// page waits for its context's end (then writes its own error page, as
	// the dashboard does for a failed read) or three timeouts; ?begin=1
	// begins its answer first.
	page := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Set-Cookie", "session=renewed")
		w.Header().Set("X-Page", "yes")
		if r.URL.Query().Get("begin") == "1" {
			w.WriteHeader(http.StatusOK)
			http.NewResponseController(w).Flush() //nolint:errcheck // a recorder flushes
		}
		select {
		case <-r.Context().Done():
			w.WriteHeader(http.StatusInternalServerError)
			_, _ = io.WriteString(w, "<p>Something went wrong</p>")
		case <-time.After(3 * timeout):
			_, _ = io.WriteString(w, "<p>the page</p>")
		}
	})
	s.mount("/dashboard/", s.boundedPages(page))
	s.mount("/checkout/", s.boundedPages(page))
	for _, c := range []struct {
		method, path, accept string
		status               int
		retryAfter, body     string
		pageHeaders          bool
	}{
		{"GET", "/dashboard/payments", "text/html,application/xhtml+xml,*/*;q=0.8", http.StatusServiceUnavailable, "1", "Please try again in a moment", false},
		{"GET", "/checkout/7c1f/confirm", "", http.StatusServiceUnavailable, "1", "Please try again in a moment", false},
		{"GET", "/dashboard/payments", "application/json", http.StatusServiceUnavailable, "1", `"SERVICE_UNAVAILABLE"`, false},
		{"GET", "/dashboard/payments?begin=1", "", http.StatusOK, "", "the page", true}, // begun: not cut
		{"POST", "/dashboard/statements", "", http.StatusOK, "", "the page", true},
		{"POST", "/dashboard/transfer-status", "", http.StatusOK, "", "the page", true},
		{"GET", "/dashboard/reports/3f2a/download", "", http.StatusOK, "", "the page", true},
		{"GET", "/dashboard/transfer-files/3f2a/download", "", http.StatusOK, "", "the page", true},
	} {
		rec := httptest.NewRecorder()
		req := httptest.NewRequest(c.method, c.path, nil)
		if c.accept != "" {
			req.Header.Set("Accept", c.accept)
		}
		s.ServeHTTP(rec, req)
		body := rec.Body.String()
		if rec.Code != c.status || rec.Header().Get("Retry-After") != c.retryAfter || !strings.Contains(body, c.body) {
			t.Errorf("%s %s: %d Retry-After %q %s; want %d Retry-After %q and %q", c.method, c.path, rec.Code,
				rec.Header().Get("Retry-After"), body, c.status, c.retryAfter, c.body)
		}
		if got := rec.Header().Get("X-Page") == "yes" && rec.Header().Get("Set-Cookie") != ""; got != c.pageHeaders {
			t.Errorf("%s %s: the page's headers sent %v, want %v: %v", c.method, c.path, got, c.pageHeaders, rec.Header())
		}
		if c.status == http.StatusServiceUnavailable && strings.Contains(body, "Something went wrong") {
			t.Errorf("%s %s: the page's late error page was sent: %s", c.method, c.path, body)
		}
	}
}
