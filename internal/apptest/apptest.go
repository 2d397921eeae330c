// Package apptest runs a whole bankrail instance for tests: the real HTTP
// stack through httptest, on a fresh SQLite or PostgreSQL database, with a
// fake base clock and the fixture customers of testdata/seed.yaml.
package apptest

import (
	"bytes"
	"context"
	_ "embed"
	"encoding/json"
	"io"
	"log/slog"
	"math"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/bankrail/bankrail/internal/app"
	"github.com/bankrail/bankrail/internal/clock"
	"github.com/bankrail/bankrail/internal/config"
	"github.com/bankrail/bankrail/internal/dbtest"
	"github.com/bankrail/bankrail/internal/identity"
	"github.com/bankrail/bankrail/internal/seed"
)

//go:embed testdata/seed.yaml
var fixture []byte

// Fixture ids and credentials (see testdata/seed.yaml).
const (
	PSPID       = "00000000-0000-4000-8000-0000000000a0"
	ShopID      = "00000000-0000-4000-8000-0000000000a1"
	OtherShopID = "00000000-0000-4000-8000-0000000000b1"
	OperatorID  = "00000000-0000-4000-8000-0000000000c0" // the operator's own customer
)

// Login is one set of credentials of the fixture.
type Login struct {
	ClientID, ClientSecret, Username, Password string
}

// Fixture logins.
var (
	PSPAdmin   = Login{"psp-client", "psp-client-secret", "admin@psp.test", "psp-password"}
	Merchant   = Login{"shop-client", "shop-client-secret", "merchant@shop.test", "shop-password"}
	Viewer     = Login{"shop-client", "shop-client-secret", "viewer@shop.test", "viewer-password"}
	OtherMerch = Login{"other-client", "other-client-secret", "merchant@other.test", "other-password"}
	// Operator is the instance's operator (role OPERATOR): bank files and
	// reconciliation exceptions, no merchant permission.
	Operator    = Login{"operator-client", "operator-client-secret", "operator@bankrail.test", "operator-password"}
	cheapHashes = identity.HashParams{Time: 1, Memory: 1024, Threads: 1}
)

// Epoch is where the fake clock of every Env starts.
var Epoch = time.Date(2026, 6, 1, 9, 0, 0, 0, time.UTC)

// Env is one running bankrail under test.
type Env struct {
	T      testing.TB
	App    *app.App
	Server *httptest.Server
	URL    string
	Clock  *clock.Fake // the base clock; the sandbox clock adds its offset
	DB     dbtest.DB
	Config config.Config
	xs2a   *xs2aLog // the exchanges with the mock ASPSP (XS2AExchanges)
}

// Option edits the configuration of an Env before it starts.
type Option func(*config.Config)

// Production runs the Env in production mode.
func Production(c *config.Config) { c.Mode = config.Production }

// servedURL stands for the test server's own address until it is known.
const servedURL = "http://apptest.served"

// ServedAtPublicURL makes the public URL the test server's real address, so
// that the payer's links (redirect.url, directUrl) work in a browser.
func ServedAtPublicURL(c *config.Config) { c.PublicURL = servedURL }

// TimedMovesEvery is how often an Env looks for due timed payment moves
// on its own. An advance of its clock (the fake base clock or a tenant's)
// wakes its workers at once, so tests that advance the clock do not wait
// for this poll; polling more often cost every running Env CPU (with 20 ms
// a fifth of a long test's) for nothing.
const TimedMovesEvery = 100 * time.Millisecond

// Each runs fn once per database engine, each with a fresh Env on a
// database of its own (a copy of a migrated template: dbtest.Migrated).
func Each(t *testing.T, fn func(t *testing.T, env *Env), opts ...Option) {
	t.Helper()
	dbtest.EachMigrated(t, func(t *testing.T, db dbtest.DB) {
		fn(t, NewOn(t, db, opts...))
	})
}

// New starts an Env on SQLite.
func New(t testing.TB, opts ...Option) *Env {
	t.Helper()
	return NewOn(t, dbtest.Migrated(t, dbtest.SQLite), opts...)
}

// NewOn starts an Env on db (migrated at start, as an instance does: on a
// dbtest.Migrated copy there is nothing left to apply).
func NewOn(t testing.TB, db dbtest.DB, opts ...Option) *Env {
	t.Helper()
	cfg := config.Default()
	cfg.DataDir = db.DataDir
	cfg.DatabaseURL = db.DatabaseURL
	if db.Engine == dbtest.Postgres {
		cfg.DataDir = t.TempDir()
	}
	cfg.Addr = "127.0.0.1:0"
	cfg.PublicURL = "http://bankrail.test"
	// Every API request is counted against its application's rate limit but
	// none is refused: an Env's fake clock stays in one window while a test
	// makes any number of requests. Tests of the limit set their own.
	cfg.APIRateLimit = math.MaxInt64
	for _, o := range opts {
		o(&cfg)
	}
	var handler atomic.Pointer[http.Handler]
	xs2aExchanges := &xs2aLog{}
	srv := httptest.NewServer(xs2aExchanges.recording(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { (*handler.Load()).ServeHTTP(w, r) })))
	if cfg.PublicURL == servedURL {
		cfg.PublicURL = srv.URL
	}
	cfg.SelfURL = srv.URL // the sandbox's connector reaches the mock ASPSP here
	f, err := seed.Parse(fixture)
	if err != nil {
		t.Fatalf("parse fixture: %v", err)
	}
	fake := clock.NewFake(Epoch)
	hp := cheapHashes
	a, err := app.New(context.Background(), cfg, Logger(t), app.Options{BaseClock: fake, HashParams: &hp, Seed: &f,
		TimedMoves: TimedMovesEvery})
	if err != nil {
		srv.Close()
		t.Fatalf("start bankrail: %v", err)
	}
	fake.OnAdvance(a.WakeWorkers) // what the advance made due is looked for at once
	h := a.Handler()
	handler.Store(&h)
	a.StartWorkers(context.Background())
	t.Cleanup(func() {
		srv.Close()
		_ = a.Close()
	})
	return &Env{T: t, App: a, Server: srv, URL: srv.URL, Clock: fake, DB: db, Config: cfg, xs2a: xs2aExchanges}
}

// Logger logs to the test log when BANKRAIL_TEST_LOG=1, else nowhere.
func Logger(t testing.TB) *slog.Logger {
	if os.Getenv("BANKRAIL_TEST_LOG") == "1" {
		return slog.New(slog.NewTextHandler(tWriter{t}, &slog.HandlerOptions{Level: slog.LevelDebug}))
	}
	return slog.New(slog.NewTextHandler(io.Discard, nil))
}

type tWriter struct{ t testing.TB }

func (w tWriter) Write(p []byte) (int, error) {
	w.t.Log(strings.TrimRight(string(p), "\n"))
	return len(p), nil
}

// Response is a finished HTTP exchange.
type Response struct {
	Status int
	Header http.Header
	Body   []byte
}

// JSON decodes the body into v, failing the test on error.
func (r *Response) JSON(t testing.TB, v any) {
	t.Helper()
	if err := json.Unmarshal(r.Body, v); err != nil {
		t.Fatalf("decode response %d %s: %v", r.Status, r.Body, err)
	}
}

// Error is the Global API error body.
type Error struct {
	Code    string `json:"code"`
	Message string `json:"message"`
	Errors  []struct {
		Type         string `json:"type"`
		PropertyPath string `json:"propertyPath"`
		Message      string `json:"message"`
	} `json:"errors"`
}

// Error decodes the body as an error, failing the test unless status matches.
func (r *Response) Error(t testing.TB, status int, code string) Error {
	t.Helper()
	var e Error
	r.JSON(t, &e)
	if r.Status != status || e.Code != code {
		t.Fatalf("got %d %s, want %d %s; body %s", r.Status, e.Code, status, code, r.Body)
	}
	if e.Message == "" {
		t.Fatalf("error %s has no message", code)
	}
	return e
}

// Request describes one call.
type Request struct {
	Method string
	Path   string
	Body   any // marshalled as JSON unless []byte or string
	Token  string
	Header map[string]string
	// SkipSpec turns off the OpenAPI check, for the few tests that probe
	// what the document does not describe (such as a panic handler).
	SkipSpec bool
	// OffSpec says why this request lies outside the document although the
	// server accepts it on purpose (a header value in another case, which
	// the server tolerates). Its request check is skipped; the response is
	// still checked. Requests the server refuses (4xx) need no mark.
	OffSpec string
}

// Do performs req against the Env.
func (e *Env) Do(t testing.TB, req Request) *Response {
	t.Helper()
	var body io.Reader
	switch b := req.Body.(type) {
	case nil:
	case []byte:
		body = bytes.NewReader(b)
	case string:
		body = strings.NewReader(b)
	default:
		buf, err := json.Marshal(b)
		if err != nil {
			t.Fatalf("marshal request: %v", err)
		}
		body = bytes.NewReader(buf)
	}
	hr, err := http.NewRequest(req.Method, e.URL+req.Path, body)
	if err != nil {
		t.Fatalf("build request: %v", err)
	}
	if req.Body != nil {
		hr.Header.Set("Content-Type", "application/json")
	}
	if req.Token != "" {
		hr.Header.Set("Authorization", "Bearer "+req.Token)
	}
	for k, v := range req.Header {
		if v == "" {
			hr.Header.Del(k)
		} else {
			hr.Header.Set(k, v)
		}
	}
	resp, err := e.Server.Client().Do(hr)
	if err != nil {
		t.Fatalf("%s %s: %v", req.Method, req.Path, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("read response: %v", err)
	}
	out := &Response{Status: resp.StatusCode, Header: resp.Header, Body: b}
	switch {
	case req.SkipSpec:
	case req.OffSpec != "":
		CheckResponseAgainstSpec(t, hr, out)
	default:
		CheckAgainstSpec(t, hr, out)
	}
	return out
}

// Tokens is a token response.
type Tokens struct {
	AccessToken  string `json:"access_token"`
	TokenType    string `json:"token_type"`
	ExpiresIn    int    `json:"expires_in"`
	RefreshToken string `json:"refresh_token"`
}

// Login signs in with the password grant and returns the tokens.
func (e *Env) Login(t testing.TB, l Login) Tokens {
	t.Helper()
	resp := e.Do(t, Request{Method: "POST", Path: "/oauth", Body: map[string]string{
		"grant_type": "password", "client_id": l.ClientID, "client_secret": l.ClientSecret,
		"username": l.Username, "password": l.Password}})
	if resp.Status != http.StatusOK {
		t.Fatalf("login %s: %d %s", l.Username, resp.Status, resp.Body)
	}
	var tok Tokens
	resp.JSON(t, &tok)
	return tok
}

// Token returns an access token for l.
func (e *Env) Token(t testing.TB, l Login) string {
	t.Helper()
	return e.Login(t, l).AccessToken
}
