package client_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/bankrail/bankrail/api"
	"github.com/bankrail/bankrail/client"
	"github.com/bankrail/bankrail/internal/apptest"
)

// TestOneSignInForAHundredParallelCalls: 100 calls at once on a new client
// make exactly one POST /oauth, counted on the wire.
func TestOneSignInForAHundredParallelCalls(t *testing.T) {
	t.Parallel()
	apptest.Each(t, func(t *testing.T, env *apptest.Env) {
		defer failOnMust(t)
		rec := newRecorder(t, nil)
		c := newClient(t, env.URL, apptest.Merchant, rec)
		start := make(chan struct{})
		var wg sync.WaitGroup
		for i := range 100 {
			wg.Go(func() {
				<-start
				var err error
				if i%2 == 0 {
					_, err = c.GetSandboxClock(t.Context())
				} else {
					_, err = c.ListBanks(t.Context(), &api.ListBanksParams{Country: client.Ptr("AT")})
				}
				if err != nil {
					t.Error(err)
				}
			})
		}
		close(start)
		wg.Wait()
		if n := rec.count("createToken"); n != 1 {
			t.Fatalf("%d sign-ins for 100 parallel calls", n)
		}
		if n := rec.count("getSandboxClock") + rec.count("listBanks"); n != 100 {
			t.Fatalf("%d calls reached the server", n)
		}
	})
}

// loseAnswer is a transport that lets the server handle the first request
// lost(req) picks, then drops its answer (as a connection reset after the
// server committed), and records every attempt of those requests.
type loseAnswer struct {
	base  http.RoundTripper
	lost  func(*http.Request) bool
	mu    sync.Mutex
	keys  []string // the Idempotency-Key of each attempt
	reply []string // the Idempotent-Replayed of each answer that arrived
	done  bool
}

func (l *loseAnswer) RoundTrip(req *http.Request) (*http.Response, error) {
	if !l.lost(req) {
		return l.base.RoundTrip(req)
	}
	resp, err := l.base.RoundTrip(req)
	l.mu.Lock()
	defer l.mu.Unlock()
	l.keys = append(l.keys, req.Header.Get("Idempotency-Key"))
	if err != nil {
		return nil, err
	}
	if !l.done {
		l.done = true
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		return nil, errors.New("read tcp: connection reset by peer (the answer was lost)")
	}
	l.reply = append(l.reply, resp.Header.Get("Idempotent-Replayed"))
	return resp, nil
}

// TestLostAnswerOfACreateIsRetriedAndCreatesOnePayment: the server creates
// the payment, its answer is lost; the SDK sends the same request with the
// same made-up Idempotency-Key, gets the stored answer replayed, and there
// is exactly one payment.
func TestLostAnswerOfACreateIsRetriedAndCreatesOnePayment(t *testing.T) {
	t.Parallel()
	apptest.Each(t, func(t *testing.T, env *apptest.Env) {
		defer failOnMust(t)
		lose := &loseAnswer{base: http.DefaultTransport, lost: func(r *http.Request) bool {
			return r.Method == "POST" && r.URL.Path == "/payments"
		}}
		c := newClient(t, env.URL, apptest.Merchant, newRecorder(t, lose))
		body := euPayment(1234, "Lost answer", true)
		body.InternalReference = client.Ptr("lost-answer-1")
		p := must(c.CreatePayment(t.Context(), body, nil))
		if len(lose.keys) != 2 || lose.keys[0] == "" || lose.keys[0] != lose.keys[1] {
			t.Fatalf("attempts with keys %q: want two with the same made-up key", lose.keys)
		}
		if len(lose.reply) != 1 || lose.reply[0] != "true" {
			t.Fatalf("the retry's answer was not the replayed one: Idempotent-Replayed %q", lose.reply)
		}
		got := must(c.ListPayments(t.Context(), &api.ListPaymentsParams{InternalReference: client.Ptr("lost-answer-1")}))
		if got.TotalItems != 1 || got.Items[0].ID != p.ID {
			t.Fatalf("%d payments with the reference (want exactly 1, %s)", got.TotalItems, p.ID)
		}
		if all := must(c.ListPayments(t.Context(), nil)); all.TotalItems != 1 {
			t.Fatalf("%d payments in all", all.TotalItems)
		}
	})
}

// TestLostAnswerOfAMoveIsNotRepeated: a POST without an Idempotency-Key
// that is not harmless to repeat (advancing the clock) is not sent again
// when its outcome is unknown: the error is returned, the clock moved once.
func TestLostAnswerOfAMoveIsNotRepeated(t *testing.T) {
	t.Parallel()
	defer failOnMust(t)
	env := apptest.New(t)
	lose := &loseAnswer{base: http.DefaultTransport, lost: func(r *http.Request) bool { return r.URL.Path == "/sandbox/clock/advance" }}
	c := newClient(t, env.URL, apptest.Merchant, newRecorder(t, lose))
	if _, err := c.AdvanceSandboxClockBy(t.Context(), time.Hour); err == nil || !strings.Contains(err.Error(), "connection reset") {
		t.Fatalf("a lost answer: %v", err)
	}
	if len(lose.keys) != 1 {
		t.Fatalf("sent %d times", len(lose.keys))
	}
	if clk := must(c.GetSandboxClock(t.Context())); clk.OffsetSeconds != 3600 {
		t.Fatalf("the clock is %d s ahead, want 3600", clk.OffsetSeconds)
	}
}

// stub answers the first requests of a path with canned answers, then lets
// the rest through.
type stub struct {
	base    http.RoundTripper
	path    string
	answers []*http.Response
	sent    atomic.Int64
	at      []time.Time
	mu      sync.Mutex
}

func (s *stub) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.URL.Path != s.path {
		return s.base.RoundTrip(req)
	}
	s.mu.Lock()
	s.at = append(s.at, time.Now())
	n := int(s.sent.Add(1)) - 1
	s.mu.Unlock()
	if n < len(s.answers) {
		a := *s.answers[n]
		a.Request = req
		return &a, nil
	}
	return s.base.RoundTrip(req)
}

// canned is an answer in the API's error shape.
func canned(status int, code, retryAfter string) *http.Response {
	h := http.Header{"Content-Type": {"application/json"}, "X-Request-Id": {"stub-trace"}}
	if retryAfter != "" {
		h.Set("Retry-After", retryAfter)
	}
	body := `{"code":"` + code + `","message":"canned"}`
	return &http.Response{StatusCode: status, Header: h, Body: io.NopCloser(bytes.NewReader([]byte(body))), ContentLength: int64(len(body))}
}

// TestRetriesOn429And5xx: 429 waits its Retry-After; 503 and 500 on a read
// back off and succeed; a 500 on a move that is unsafe to repeat is
// returned at once; a Retry-After beyond MaxRetryAfter is returned with it.
func TestRetriesOn429And5xx(t *testing.T) {
	t.Parallel()
	defer failOnMust(t)
	env := apptest.New(t)
	ctx := t.Context()

	st := &stub{base: newRecorder(t, nil), path: "/sandbox/clock", answers: []*http.Response{
		canned(429, "TOO_MANY_REQUESTS", "1"), canned(503, "INTERNAL_SERVER_ERROR", ""), canned(500, "INTERNAL_SERVER_ERROR", "")}}
	c := newClient(t, env.URL, apptest.Merchant, st)
	must(c.GetSandboxClock(ctx))
	if st.sent.Load() != 4 || st.at[1].Sub(st.at[0]) < time.Second {
		t.Fatalf("%d attempts, the first retry after %v (want 4, >= 1s)", st.sent.Load(), st.at[1].Sub(st.at[0]))
	}

	// Out of attempts: the last error, typed.
	st = &stub{base: newRecorder(t, nil), path: "/sandbox/clock", answers: []*http.Response{
		canned(503, "INTERNAL_SERVER_ERROR", ""), canned(503, "INTERNAL_SERVER_ERROR", ""), canned(503, "INTERNAL_SERVER_ERROR", ""), canned(502, "INTERNAL_SERVER_ERROR", "")}}
	c = newClient(t, env.URL, apptest.Merchant, st)
	_, err := c.GetSandboxClock(ctx)
	var e *client.Error
	if !errors.As(err, &e) || e.StatusCode != 502 || e.TraceID != "stub-trace" || st.sent.Load() != 4 {
		t.Fatalf("after 4 failures: %v (%d attempts)", err, st.sent.Load())
	}

	// A 500 on a move unsafe to repeat: not retried.
	st = &stub{base: newRecorder(t, nil), path: "/sandbox/clock/advance", answers: []*http.Response{canned(500, "INTERNAL_SERVER_ERROR", "")}}
	c = newClient(t, env.URL, apptest.Merchant, st)
	if _, err := c.AdvanceSandboxClockBy(ctx, time.Minute); client.StatusCode(err) != 500 || st.sent.Load() != 1 {
		t.Fatalf("500 on advance: %v, %d attempts", err, st.sent.Load())
	}
	// ... but a 429 is: nothing was done.
	st = &stub{base: newRecorder(t, nil), path: "/sandbox/clock/advance", answers: []*http.Response{canned(429, "TOO_MANY_REQUESTS", "0")}}
	c = newClient(t, env.URL, apptest.Merchant, st)
	if clk := must(c.AdvanceSandboxClockBy(ctx, time.Minute)); st.sent.Load() != 2 || clk.OffsetSeconds != 60 {
		t.Fatalf("429 on advance: %+v, %d attempts", clk, st.sent.Load())
	}

	// A Retry-After longer than the policy allows is not waited for.
	st = &stub{base: newRecorder(t, nil), path: "/sandbox/clock", answers: []*http.Response{canned(429, "TOO_MANY_REQUESTS", "3600")}}
	c = newClient(t, env.URL, apptest.Merchant, st)
	began := time.Now()
	_, err = c.GetSandboxClock(ctx)
	if !errors.As(err, &e) || e.Code != api.ErrorCodeTOOMANYREQUESTS || e.RetryAfter != time.Hour || time.Since(began) > 10*time.Second {
		t.Fatalf("Retry-After 3600: %v after %v", err, time.Since(began))
	}
}

// TestRetriesStopWithTheContext: a cancelled context ends the wait for the
// next try at once, and a deadline that comes before the next try ends the
// call without waiting. The canned 503s ask for 30 s.
func TestRetriesStopWithTheContext(t *testing.T) {
	t.Parallel()
	defer failOnMust(t)
	env := apptest.New(t)
	always503 := make([]*http.Response, 10)
	for i := range always503 {
		always503[i] = canned(503, "INTERNAL_SERVER_ERROR", "30")
	}
	patient := client.RetryPolicy{MaxAttempts: 10, MaxRetryAfter: time.Minute}
	st := &stub{base: newRecorder(t, nil), path: "/healthz", answers: always503}
	c := newClient(t, env.URL, apptest.Merchant, st, client.WithRetry(patient))

	ctx, cancel := context.WithCancel(t.Context())
	time.AfterFunc(100*time.Millisecond, cancel)
	began := time.Now()
	_, err := c.Healthz(ctx)
	if !errors.Is(err, context.Canceled) || time.Since(began) > 10*time.Second || st.sent.Load() != 1 {
		t.Fatalf("cancelled during the wait: %v after %v, %d tries", err, time.Since(began), st.sent.Load())
	}
	var e *client.Error
	if !errors.As(err, &e) || e.StatusCode != 503 || e.RetryAfter != 30*time.Second {
		t.Fatalf("the error does not carry the last answer: %v", err)
	}

	ctx, cancelDeadline := context.WithTimeout(t.Context(), 15*time.Second)
	defer cancelDeadline()
	began = time.Now()
	if _, err := c.Healthz(ctx); !errors.Is(err, context.DeadlineExceeded) || time.Since(began) > 10*time.Second || st.sent.Load() != 2 {
		t.Fatalf("a deadline before the next try: %v after %v, %d tries", err, time.Since(began), st.sent.Load())
	}
}
