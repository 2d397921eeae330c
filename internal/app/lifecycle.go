package app

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"time"
)

// backgroundWorker is a task with an orderly stop.
type backgroundWorker interface {
	Start(ctx context.Context)
	Stop()
}

// Start listens on cfg.Addr and serves until Shutdown, and starts the
// background workers.
func (a *App) Start(ctx context.Context) error {
	ln, err := Listen(a.cfg.Addr)
	if err != nil {
		return err
	}
	if a.cfg.AdminAddr != "" {
		admin, err := Listen(a.cfg.AdminAddr)
		if err != nil {
			ln.Close()
			return err
		}
		a.StartAdminOn(admin)
	}
	a.StartOn(ctx, ln)
	return nil
}

// Listen opens the listener of addr, with an error that says how to pick
// another address. serve calls it before New, so that a taken port fails
// before anything is migrated or seeded.
func Listen(addr string) (net.Listener, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("cannot listen on %s (%w); is another bankrail or program using it? Start on another address with --addr, e.g. --addr 127.0.0.1:0 for any free port", addr, err)
	}
	return ln, nil
}

// StartOn serves on ln until Shutdown, and starts the background workers.
func (a *App) StartOn(ctx context.Context, ln net.Listener) {
	a.listener = ln
	a.reachSelfAt(ln.Addr().String())
	a.server = &http.Server{
		Handler:           a.http,
		ReadHeaderTimeout: a.cfg.ReadHeaderTimeout,
		ReadTimeout:       a.cfg.ReadTimeout,
		WriteTimeout:      a.cfg.WriteTimeout,
		IdleTimeout:       a.cfg.IdleTimeout,
		ErrorLog:          slog.NewLogLogger(a.log.Handler(), slog.LevelWarn),
	}
	a.StartWorkers(ctx)
	a.serveErr = make(chan error, 1)
	go func() {
		err := a.server.Serve(ln)
		if errors.Is(err, http.ErrServerClosed) {
			err = nil
		}
		a.serveErr <- err
	}()
	a.log.Info("listening", "addr", "http://"+ln.Addr().String(), "public_url", a.cfg.PublicURL, "mode", a.cfg.Mode)
}

// StartWorkers starts the background workers once (sandbox clock and key
// refresh, notification delivery). Start calls it; tests that serve Handler
// themselves call it directly.
func (a *App) StartWorkers(ctx context.Context) {
	a.workersOnce.Do(func() {
		for _, w := range a.workers {
			w.Start(ctx)
		}
	})
}

// Addr is the address the server listens on (after Start).
func (a *App) Addr() string { return a.listener.Addr().String() }

// Wait blocks until the server stops on its own (an error) or ctx ends.
func (a *App) Wait(ctx context.Context) error {
	select {
	case err := <-a.serveErr:
		return err
	case <-ctx.Done():
		return nil
	}
}

// Shutdown stops in order: stop accepting requests and finish those in
// flight, stop the workers, close the database.
func (a *App) Shutdown(ctx context.Context) error {
	var err error
	a.stopOnce.Do(func() {
		if a.server != nil {
			if e := a.server.Shutdown(ctx); e != nil {
				err = errors.Join(err, fmt.Errorf("shut down http server: %w", e))
			}
		}
		if a.admin != nil {
			_ = a.admin.Close() // profiles in flight are cut: nothing to finish
		}
		for i := len(a.workers) - 1; i >= 0; i-- {
			a.workers[i].Stop()
		}
		err = errors.Join(err, a.store.Close())
	})
	return err
}

// Close releases the database without starting (for commands that only
// migrate or administer).
func (a *App) Close() error { return a.Shutdown(context.Background()) }

// ShutdownTimeout is how long a graceful shutdown may take.
func (a *App) ShutdownTimeout() time.Duration { return a.cfg.ShutdownTimeout }
