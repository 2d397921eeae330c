package app

import (
	"errors"
	"net"
	"net/http"
	"net/http/pprof"
	"time"
)

// The admin listener (--admin-addr, off by default) serves the Go
// runtime's profiles under /debug/pprof/ for operators: CPU, heap,
// goroutines, mutex and block profiles, execution traces. It is a listener
// of its own, never the API's, so that profiles are not reachable where the
// API is; bind it to loopback or an operators' network only (it has no
// authentication). See docs/operations.md.

// adminHandler serves net/http/pprof.
func adminHandler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("/debug/pprof/", pprof.Index)
	mux.HandleFunc("/debug/pprof/cmdline", pprof.Cmdline)
	mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
	mux.HandleFunc("/debug/pprof/symbol", pprof.Symbol)
	mux.HandleFunc("/debug/pprof/trace", pprof.Trace)
	return mux
}

// StartAdminOn serves the admin endpoints on ln until Shutdown.
func (a *App) StartAdminOn(ln net.Listener) {
	a.admin = &http.Server{Handler: adminHandler(), ReadHeaderTimeout: 5 * time.Second}
	a.adminAddr = ln.Addr().String()
	go func() {
		if err := a.admin.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			a.log.Error("admin listener stopped", "err", err)
		}
	}()
	a.log.Warn("admin listener with pprof is on: keep it off public networks", "addr", "http://"+a.adminAddr+"/debug/pprof/")
}

// AdminAddr is the admin listener's address, "" when it is off.
func (a *App) AdminAddr() string { return a.adminAddr }
