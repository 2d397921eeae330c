package apptest

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"
)

// NotificationSecrets are the fixture applications' notification secrets.
var NotificationSecrets = map[string]string{
	"psp-client":      "psp-notification-secret",
	"shop-client":     "shop-notification-secret",
	"other-client":    "other-notification-secret",
	"operator-client": "operator-notification-secret",
}

// Received is one request a Receiver got.
type Received struct {
	Header http.Header
	Body   []byte
	At     time.Time // wall time
}

// Receiver is a merchant's notification endpoint for tests: it records
// every request and answers with the status of its responder (204 unless
// told otherwise).
type Receiver struct {
	*httptest.Server
	mu      sync.Mutex
	got     []Received
	respond func(r Received, n int) int
	arrived chan struct{}
}

// NewReceiver starts a Receiver, closed when the test ends.
func NewReceiver(t testing.TB) *Receiver {
	rc := &Receiver{arrived: make(chan struct{}, 1), respond: func(Received, int) int { return http.StatusNoContent }}
	rc.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		got := Received{Header: r.Header.Clone(), Body: body, At: time.Now()}
		rc.mu.Lock()
		rc.got = append(rc.got, got)
		status := rc.respond(got, len(rc.got))
		rc.mu.Unlock()
		select {
		case rc.arrived <- struct{}{}:
		default:
		}
		if status >= 300 && status < 400 {
			w.Header().Set("Location", "http://elsewhere.test/")
		}
		w.WriteHeader(status)
	}))
	t.Cleanup(rc.Close)
	return rc
}

// Respond sets how the receiver answers: fn gets the request and its
// 1-based number and returns a status code.
func (rc *Receiver) Respond(fn func(r Received, n int) int) {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	rc.respond = fn
}

// Status makes the receiver answer every request with status.
func (rc *Receiver) Status(status int) { rc.Respond(func(Received, int) int { return status }) }

// Got returns the requests received so far.
func (rc *Receiver) Got() []Received {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	return append([]Received(nil), rc.got...)
}

// WaitFor waits (at most 10 s of wall time) until n requests have arrived
// and returns them all.
func (rc *Receiver) WaitFor(t testing.TB, n int) []Received {
	t.Helper()
	deadline := time.After(10 * time.Second)
	for {
		if got := rc.Got(); len(got) >= n {
			return got
		}
		select {
		case <-rc.arrived:
		case <-time.After(20 * time.Millisecond):
		case <-deadline:
			t.Fatalf("receiver got %d requests, want %d", len(rc.Got()), n)
		}
	}
}

// Quiet checks that no more than n requests arrive within a short wall-time
// wait (several dispatcher polls): for "nothing is sent" assertions.
func (rc *Receiver) Quiet(t testing.TB, n int) {
	t.Helper()
	time.Sleep(400 * time.Millisecond)
	if got := rc.Got(); len(got) != n {
		t.Fatalf("receiver got %d requests, want exactly %d", len(got), n)
	}
}

// SetNotificationURL points the fixture application of l at url. It writes
// the row directly, past the production check of identity, so that a test
// can give a production Env an internal URL (as one stored before the check,
// or a name that now resolves inside) and prove that the dialer refuses it.
func (e *Env) SetNotificationURL(t testing.TB, l Login, url string) {
	t.Helper()
	app, err := e.App.Store().GetApplicationByClientID(context.Background(), l.ClientID)
	if err != nil {
		t.Fatal(err)
	}
	app.NotificationURL, app.NotificationSecret = url, NotificationSecrets[l.ClientID]
	if err := e.App.Store().UpdateApplication(context.Background(), app); err != nil {
		t.Fatal(err)
	}
}

// Eventually polls cond until it holds, for at most 30 s of wall time: a
// deadline for a loaded machine (CI runs every package at once under -race),
// not a timing; a condition that holds returns at once.
func Eventually(t testing.TB, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}
