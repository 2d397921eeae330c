package httpapi

import (
	"io"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
)

// Deps.InFlight counts a request while it is answered, a failed one too,
// and is back at zero after.
func TestInFlightCountsRequestsBeingAnswered(t *testing.T) {
	t.Parallel()
	s := testServer(t, io.Discard)
	var n atomic.Int64
	s.InFlight = &n
	s.handler = s.withInFlight(s.handler)
	var during []int64
	s.handle("GET /look", func(w http.ResponseWriter, r *http.Request) error {
		during = append(during, n.Load())
		w.WriteHeader(http.StatusNoContent)
		return nil
	}, public)
	s.handle("GET /boom", func(w http.ResponseWriter, r *http.Request) error { panic("boom") }, public)
	for _, path := range []string{"/look", "/boom", "/look"} {
		rec := httptest.NewRecorder()
		s.ServeHTTP(rec, httptest.NewRequest("GET", path, nil))
		if n.Load() != 0 {
			t.Fatalf("after %s: %d in flight", path, n.Load())
		}
	}
	if len(during) != 2 || during[0] != 1 || during[1] != 1 {
		t.Fatalf("in flight during the requests: %v, want [1 1]", during)
	}
}
