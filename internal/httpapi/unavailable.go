package httpapi

import (
	"net/http"
	"time"

	"github.com/bankrail/bankrail/internal/errs"
)

// readAttempts bounds how often a read (GET, HEAD) that met a lost or
// refused database connection is tried, and readBackoff is the first wait
// between tries (doubled each time): a failover usually ends within them,
// and the client never sees it.
const (
	readAttempts = 4
	readBackoff  = 100 * time.Millisecond
)

// serveRetrying runs h, and runs a read again while it fails with
// SERVICE_UNAVAILABLE before writing anything: a read changes nothing, so
// trying it on a new connection (to the promoted standby, say) is safe.
// Other methods run once: their units of work are retried by the store
// where that is safe. The last error is h's.
func (s *Server) serveRetrying(w http.ResponseWriter, r *http.Request, h handlerFunc) error {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		return h(w, r)
	}
	wait := readBackoff
	for attempt := 1; ; attempt++ {
		rec := &writeWatcher{ResponseWriter: w}
		err := h(rec, r)
		if err == nil || rec.wrote || attempt == readAttempts || !errs.Is(s.unavailable(err), errs.Unavailable) {
			return err
		}
		select {
		case <-r.Context().Done():
			return err
		case <-time.After(wait):
		}
		wait *= 2
	}
}

// unavailable is err classified by Deps.Unavailable, when given.
func (s *Server) unavailable(err error) error {
	if s.Unavailable == nil {
		return err
	}
	return s.Unavailable(err)
}

// writeWatcher notes whether a handler began its answer.
type writeWatcher struct {
	http.ResponseWriter
	wrote bool
}

func (w *writeWatcher) WriteHeader(code int) {
	w.wrote = true
	w.ResponseWriter.WriteHeader(code)
}

func (w *writeWatcher) Write(b []byte) (int, error) {
	w.wrote = true
	return w.ResponseWriter.Write(b)
}

// Unwrap lets http.ResponseController reach the connection's writer.
func (w *writeWatcher) Unwrap() http.ResponseWriter { return w.ResponseWriter }
