package httpapi

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
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
