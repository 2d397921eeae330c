package app

import (
	"github.com/prometheus/client_golang/prometheus"

	"github.com/bankrail/bankrail/internal/config"
	"github.com/bankrail/bankrail/internal/inbox"
	"github.com/bankrail/bankrail/internal/notify"
	"github.com/bankrail/bankrail/internal/notify/dispatch"
	"github.com/bankrail/bankrail/internal/store"
)

// buildNotifications creates the dispatcher and the notification service,
// with their metrics on reg.
func (a *App) buildNotifications(opts Options, reg prometheus.Registerer) {
	d := opts.Dispatch
	d.Guard = a.cfg.Mode == config.Production
	d.Chaos = a.cfg.Mode == config.Sandbox
	d.Metrics = dispatch.NewMetrics(reg, a.store.NotificationStats)
	a.dispatcher = dispatch.New(a.store, a.clock, a.log.With("component", "notifications"), d)
	a.notify = notify.NewService(a.store, a.dispatcher, a.clock)
	if a.virtual != nil {
		a.virtual.OnAdvance(a.dispatcher.Wake) // a tenant's advance may make its retries due
	}
	a.workers = append(a.workers, a.dispatcher)
}

// inbox is the sandbox's built-in notification receiver; nil in production.
// The sandbox dispatcher runs without the production guard, so it may post
// to the inbox at this instance's own (often loopback) public URL.
func (a *App) inbox() *inbox.Service {
	if a.cfg.Mode != config.Sandbox {
		return nil
	}
	return inbox.NewService(a.store.Inbox(), inbox.Transactor(store.Transactor[inbox.Repos](a.store)), a.store, a.clock)
}
