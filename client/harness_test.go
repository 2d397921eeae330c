package client_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"path/filepath"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/getkin/kin-openapi/routers"
	"github.com/getkin/kin-openapi/routers/gorillamux"

	"github.com/bankrail/bankrail/client"
	"github.com/bankrail/bankrail/internal/apptest"
)

// recorder is the transport of the tests' clients: it checks every
// exchange against api/openapi.yaml (the request the SDK sent and the
// answer, as apptest does for its own requests) and counts the exchanges
// of each operation by the document's routing, independently of the SDK.
type recorder struct {
	t      testing.TB
	base   http.RoundTripper
	router routers.Router

	mu        sync.Mutex
	calls     map[string]int    // operationId -> exchanges
	successes map[string]int    // operationId -> exchanges answered below 400
	queries   map[string]string // operationId -> the query of its last exchange
}

var (
	routerOnce sync.Once
	docRouter  routers.Router
	routerErr  error
)

func newRecorder(t testing.TB, base http.RoundTripper) *recorder {
	t.Helper()
	routerOnce.Do(func() {
		doc, err := apptest.Spec()
		if err != nil {
			routerErr = err
			return
		}
		docRouter, routerErr = gorillamux.NewRouter(doc)
	})
	if routerErr != nil {
		t.Fatal(routerErr)
	}
	if base == nil {
		base = http.DefaultTransport
	}
	return &recorder{t: t, base: base, router: docRouter, calls: map[string]int{}, successes: map[string]int{},
		queries: map[string]string{}}
}

func (r *recorder) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := r.base.RoundTrip(req)
	if err != nil {
		return nil, err
	}
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil {
		return nil, err
	}
	resp.Body = io.NopCloser(bytes.NewReader(body))
	routed := req.Clone(context.Background())
	routed.URL, _ = url.Parse("http://127.0.0.1:8080" + req.URL.RequestURI())
	routed.Host = routed.URL.Host
	if route, _, err := r.router.FindRoute(routed); err == nil {
		r.mu.Lock()
		r.calls[route.Operation.OperationID]++
		r.queries[route.Operation.OperationID] = req.URL.RawQuery
		if resp.StatusCode < 400 {
			r.successes[route.Operation.OperationID]++
		}
		r.mu.Unlock()
	} else {
		r.t.Errorf("the SDK called %s %s, which is not an operation of the document", req.Method, req.URL.Path)
	}
	for _, e := range apptest.SpecMismatches(req, &apptest.Response{Status: resp.StatusCode, Header: resp.Header, Body: body}, true) {
		r.t.Error(e)
	}
	return resp, nil
}

// count is the number of exchanges of operation id so far.
func (r *recorder) count(id string) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.calls[id]
}

// lastQuery is the query string of the last exchange of operation id.
func (r *recorder) lastQuery(id string) string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.queries[id]
}

// uncovered lists the operations of the client's table that no exchange
// answered with a success.
func (r *recorder) uncovered() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []string
	for id := range client.Operations() {
		if r.successes[id] == 0 {
			out = append(out, id)
		}
	}
	return out
}

// fastRetries keeps the tests' retries quick.
var fastRetries = client.RetryPolicy{MaxAttempts: 4, BaseDelay: time.Millisecond, MaxDelay: 10 * time.Millisecond, MaxRetryAfter: 2 * time.Second}

// newClient is a client of baseURL signed in as login, through transport
// (a recorder, or a transport that ends in one).
func newClient(t testing.TB, baseURL string, login apptest.Login, transport http.RoundTripper, opts ...client.Option) *client.Client {
	t.Helper()
	all := append([]client.Option{
		client.WithCredentials(client.Credentials{ClientID: login.ClientID, ClientSecret: login.ClientSecret,
			Username: login.Username, Password: login.Password}),
		client.WithHTTPClient(&http.Client{Transport: transport}),
		client.WithRetry(fastRetries),
	}, opts...)
	c, err := client.New(baseURL, all...)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// must returns v, or stops the test on err: it panics with where it was
// called, and failOnMust, deferred by the test, fails the test with it.
func must[T any](v T, err error) T {
	if err != nil {
		_, file, line, _ := runtime.Caller(1)
		panic(mustFailure{fmt.Sprintf("%s:%d: %v", filepath.Base(file), line, err)})
	}
	return v
}

type mustFailure struct{ msg string }

// failOnMust turns a must failure into t.Fatal; defer it at the top of
// every test (and goroutine) that calls must.
func failOnMust(t testing.TB) {
	if r := recover(); r != nil {
		if f, ok := r.(mustFailure); ok {
			t.Fatal(f.msg)
		}
		panic(r)
	}
}

// eventually polls cond (10 s at most).
func eventually(t testing.TB, what string, cond func() bool) {
	t.Helper()
	apptest.Eventually(t, what, cond)
}
