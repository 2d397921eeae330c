package httpapi

import (
	"context"
	"html"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/bankrail/bankrail/internal/errs"
)

// unboundedPages are the pages whose work grows with their input or
// output (a bank file imported entry by entry, a long download): like the
// API's unbounded routes they are not cut at Deps.RequestTimeout.
var unboundedPages = func() *http.ServeMux {
	m := http.NewServeMux()
	for _, p := range []string{
		"POST /dashboard/statements",
		"POST /dashboard/transfer-status",
		"GET /dashboard/reports/{id}/download",
		"GET /dashboard/transfer-files/{id}/download",
	} {
		m.Handle(p, http.NotFoundHandler()) // only matched, never served
	}
	return m
}()

// isUnboundedPage reports whether r is for one of unboundedPages.
func isUnboundedPage(r *http.Request) bool {
	_, pattern := unboundedPages.Handler(r)
	return pattern != ""
}

// boundedPages puts the HTML pages of h (the payer's pages, the
// dashboard) under the request timeout as the API's routes are (bounded):
// a page whose answer has not begun Deps.RequestTimeout after the request
// came has its context cancelled (cause errRequestTimeout), whatever it
// writes after is dropped, and it is answered 503 with Retry-After (an
// HTML page; the API's error shape for a client that accepts JSON and not
// HTML) once its handler has returned. Until its answer begins the page's
// headers are kept aside, so that none of them (a cookie) reaches the
// 503. unboundedPages are not cut.
func (s *Server) boundedPages(h http.Handler) http.Handler {
	if s.RequestTimeout <= 0 {
		return h
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if isUnboundedPage(r) {
			h.ServeHTTP(w, r)
			return
		}
		ctx, cancel := context.WithCancelCause(r.Context())
		pw := &pageWriter{w: w, header: http.Header{}}
		t := time.AfterFunc(s.RequestTimeout, func() {
			if pw.expire() {
				cancel(errRequestTimeout)
			}
		})
		defer func() { t.Stop(); cancel(nil) }()
		h.ServeHTTP(pw, r.WithContext(ctx))
		if pw.expired() {
			s.pageUnavailable(w, r)
		}
	})
}

// pageUnavailable answers a page that timed out: 503 with Retry-After.
func (s *Server) pageUnavailable(w http.ResponseWriter, r *http.Request) {
	const msg = "The service did not answer within the request timeout (the database is unreachable for a moment); retry after the Retry-After delay."
	accept := r.Header.Get("Accept")
	if strings.Contains(accept, "application/json") && !strings.Contains(accept, "text/html") {
		s.writeError(w, r, &errs.Error{Code: errs.Unavailable, RetryAfter: timeoutRetryAfter, Message: msg})
		return
	}
	hd := w.Header()
	hd.Set("Content-Type", "text/html; charset=utf-8")
	hd.Set("Cache-Control", "no-store")
	hd.Set("X-Content-Type-Options", "nosniff")
	hd.Set("Content-Security-Policy", "default-src 'none'; base-uri 'none'; frame-ancestors 'none'")
	hd.Set("Retry-After", strconv.Itoa(int(timeoutRetryAfter/time.Second)))
	w.WriteHeader(http.StatusServiceUnavailable)
	_, _ = w.Write([]byte(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Please try again in a moment</title></head>
<body><main><h1>Please try again in a moment</h1><p>` + html.EscapeString(msg) + `</p>
<p>Reload this page in a few seconds; nothing you sent was lost or done twice.</p></main></body></html>
`)) // the client may be gone: nothing to do about it
}

// pageWriter is a page's ResponseWriter under the request timeout: its
// headers are its own until the answer begins; once expired (the timeout
// came first) it drops what the page writes.
type pageWriter struct {
	w      http.ResponseWriter
	header http.Header
	mu     sync.Mutex
	began  bool // the answer has begun: the timeout no longer applies
	late   bool // the timeout came first: the page's answer is dropped
}

// expire marks the timeout unless the answer has begun; it reports
// whether it did.
func (p *pageWriter) expire() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if !p.began {
		p.late = true
	}
	return p.late
}

// expired reports whether the timeout came before the answer.
func (p *pageWriter) expired() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.late
}

// begin starts the answer: the page's headers go out. It reports false
// when the timeout came first.
func (p *pageWriter) begin() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.late {
		return false
	}
	if !p.began {
		p.began = true
		dst := p.w.Header()
		for k, v := range p.header {
			dst[k] = v
		}
	}
	return true
}

// Header is the page's headers: its own until the answer begins.
func (p *pageWriter) Header() http.Header {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.began {
		return p.w.Header()
	}
	return p.header
}

// WriteHeader begins the answer unless the timeout came first.
func (p *pageWriter) WriteHeader(code int) {
	if p.begin() {
		p.w.WriteHeader(code)
	}
}

// Write begins the answer unless the timeout came first (then it fails).
func (p *pageWriter) Write(b []byte) (int, error) {
	if !p.begin() {
		return 0, errRequestTimeout
	}
	return p.w.Write(b)
}

// Flush begins the answer and flushes it (a page that streams).
func (p *pageWriter) Flush() {
	if p.begin() {
		if f, ok := p.w.(http.Flusher); ok {
			f.Flush()
		}
	}
}

// Unwrap lets http.ResponseController reach the connection's writer.
func (p *pageWriter) Unwrap() http.ResponseWriter { return p.w }
