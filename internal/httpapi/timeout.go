package httpapi

import (
	"context"
	"errors"
	"net/http"
	"sync/atomic"
	"time"

	"github.com/bankrail/bankrail/internal/errs"
)

// errRequestTimeout is the cause of the cancellation of a request whose
// answer had not begun after Deps.RequestTimeout.
var errRequestTimeout = errors.New("the request's answer had not begun within the request timeout")

// timeoutRetryAfter is the Retry-After of a request answered 503 after
// its timeout: a partition or a failover may have ended by then.
const timeoutRetryAfter = time.Second

// bounded gives r a context that is cancelled (cause errRequestTimeout)
// when the answer has not begun Deps.RequestTimeout after the request
// came: a database that does not answer (a network partition, where no
// connection fails but none answers) then ends the request, which is
// answered 503 (timedOut) instead of waiting for ever. An answer that has
// begun (a file being downloaded) is not cut. done stops the clock.
func (s *Server) bounded(w http.ResponseWriter, r *http.Request) (http.ResponseWriter, *http.Request, func()) {
	if s.RequestTimeout <= 0 {
		return w, r, func() {}
	}
	ctx, cancel := context.WithCancelCause(r.Context())
	b := &beganWriter{ResponseWriter: w}
	t := time.AfterFunc(s.RequestTimeout, func() {
		if !b.began.Load() {
			cancel(errRequestTimeout)
		}
	})
	return b, r.WithContext(ctx), func() { t.Stop(); cancel(nil) }
}

// timedOut is err as SERVICE_UNAVAILABLE with Retry-After when r's
// context ended because the request timed out (bounded); a lost
// connection's own SERVICE_UNAVAILABLE (say a commit of unknown outcome)
// keeps its message.
func (s *Server) timedOut(r *http.Request, err error) error {
	if err == nil || !errors.Is(context.Cause(r.Context()), errRequestTimeout) || errs.Is(s.unavailable(err), errs.Unavailable) {
		return err
	}
	return &errs.Error{Code: errs.Unavailable, RetryAfter: timeoutRetryAfter, Cause: err,
		Message: "The service did not answer within the request timeout (the database is unreachable for a moment); retry after the Retry-After delay, with the same Idempotency-Key for a change."}
}

// beganWriter notes whether the answer has begun.
type beganWriter struct {
	http.ResponseWriter
	began atomic.Bool
}

func (w *beganWriter) WriteHeader(code int) {
	w.began.Store(true)
	w.ResponseWriter.WriteHeader(code)
}

func (w *beganWriter) Write(b []byte) (int, error) {
	w.began.Store(true)
	return w.ResponseWriter.Write(b)
}

// Unwrap lets http.ResponseController reach the connection's writer.
func (w *beganWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }
