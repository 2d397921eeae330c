package apptest

import (
	"bytes"
	"io"
	"net/http"
	"slices"
	"sync"

	"github.com/bankrail/bankrail/internal/xs2a/xs2atest"
)

// xs2aLog records the exchanges with the sandbox's mock ASPSP
// (/xs2a/{bankId}/v1/...) that reach an Env's server: what the connector
// (or a test) sent and what the mock ASPSP answered, over real HTTP.
type xs2aLog struct {
	mu        sync.Mutex
	exchanges []xs2atest.Exchange
}

// recording wraps next: requests to the mock ASPSP are recorded.
func (l *xs2aLog) recording(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		path, ok := xs2atest.BankPath(r.URL.Path)
		if !ok {
			next.ServeHTTP(w, r)
			return
		}
		body, _ := io.ReadAll(r.Body)
		r.Body = io.NopCloser(bytes.NewReader(body))
		rec := &recorder{ResponseWriter: w, status: http.StatusOK}
		next.ServeHTTP(rec, r)
		if r.URL.RawQuery != "" {
			path += "?" + r.URL.RawQuery
		}
		l.mu.Lock()
		defer l.mu.Unlock()
		l.exchanges = append(l.exchanges, xs2atest.Exchange{Method: r.Method, Path: path, RequestHeader: r.Header.Clone(),
			RequestBody: body, Status: rec.status, Header: w.Header().Clone(), Body: rec.body.Bytes()})
	})
}

// recorder keeps a copy of what a handler writes.
type recorder struct {
	http.ResponseWriter
	status int
	body   bytes.Buffer
}

func (r *recorder) WriteHeader(status int) {
	r.status = status
	r.ResponseWriter.WriteHeader(status)
}

func (r *recorder) Write(b []byte) (int, error) {
	r.body.Write(b)
	return r.ResponseWriter.Write(b)
}

// XS2AExchanges are the exchanges with the mock ASPSP so far, oldest first.
func (e *Env) XS2AExchanges() []xs2atest.Exchange {
	e.xs2a.mu.Lock()
	defer e.xs2a.mu.Unlock()
	return slices.Clone(e.xs2a.exchanges)
}
