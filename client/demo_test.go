package client_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"time"

	"github.com/bankrail/bankrail/internal/app"
	"github.com/bankrail/bankrail/internal/config"
	"github.com/bankrail/bankrail/internal/identity"
)

// demoInstance is bankrail as `bankrail serve` starts on an empty database:
// a sandbox with the demo merchant, its Connect accounts and its
// notifications going to the instance's own sandbox inbox, served by
// httptest on the wall clock.
type demoInstance struct {
	URL   string
	app   *app.App
	srv   *httptest.Server
	close func()
}

// startDemo starts a demo instance on the database of cfg (DataDir or
// DatabaseURL).
func startDemo(cfg config.Config) (*demoInstance, error) {
	cfg.Mode = config.Sandbox
	cfg.Addr = "127.0.0.1:0"
	var handler atomic.Pointer[http.Handler]
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { (*handler.Load()).ServeHTTP(w, r) }))
	cfg.PublicURL = srv.URL
	hashes := identity.HashParams{Time: 1, Memory: 1024, Threads: 1}
	a, err := app.New(context.Background(), cfg, slog.New(slog.NewTextHandler(io.Discard, nil)),
		app.Options{HashParams: &hashes, TimedMoves: 20 * time.Millisecond})
	if err != nil {
		srv.Close()
		return nil, fmt.Errorf("start bankrail: %w", err)
	}
	h := a.Handler()
	handler.Store(&h)
	ctx, cancel := context.WithCancel(context.Background())
	a.StartWorkers(ctx)
	return &demoInstance{URL: srv.URL, app: a, srv: srv, close: func() {
		cancel()
		srv.Close()
		_ = a.Close()
	}}, nil
}
