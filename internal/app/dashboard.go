package app

import (
	"time"

	"github.com/bankrail/bankrail/internal/channel"
	"github.com/bankrail/bankrail/internal/config"
	"github.com/bankrail/bankrail/internal/dashboard"
	"github.com/bankrail/bankrail/internal/event"
	"github.com/bankrail/bankrail/internal/mandate"
	"github.com/bankrail/bankrail/internal/notify"
	"github.com/bankrail/bankrail/internal/webguard"
	"github.com/bankrail/bankrail/internal/worker"
)

// SessionExpiryEvery is how often an instance deletes the web console's
// ended sessions (a session is refused as soon as it ends; this only
// keeps the table small).
const SessionExpiryEvery = 10 * time.Minute

// buildDashboard creates the web console over the same services as the
// API, and the worker that deletes its ended sessions.
func (a *App) buildDashboard(mandates *mandate.Service, channels *channel.Service, settings *notify.Settings,
	state dashboard.SandboxResetter) *dashboard.Handler {
	deps := dashboard.Deps{
		Log: a.log.With("component", "dashboard"), Clock: a.clock, Sandbox: a.sandboxClocks(),
		Production: a.cfg.Mode == config.Production, Proxies: a.proxies(),
		Auth: a.auth, Sessions: a.store, SignIns: a.store,
		Payments: a.payments, Events: event.NewReader(a.store.Events()), Notifications: a.notify, Inbox: a.inbox(),
		Refunds: a.refunds, Payouts: a.payouts, Reports: a.reports, Accounts: a.accounts,
		Mandates: mandates, Channels: channels,
		Identity: a.identity, Settings: settings, SandboxState: state,
		Statements: a.statements, Transfers: a.transfers,
		MaxStatementBytes: a.cfg.MaxStatementBytes, MaxStatusBytes: a.cfg.MaxStatusBytes,
	}
	a.adapterDeps = append(a.adapterDeps, deps)
	d := dashboard.New(deps)
	a.workers = append(a.workers, worker.NewPeriodic("dashboard session expiry", SessionExpiryEvery, a.log, d.ExpireSessions))
	return d
}

// proxies is what the configuration trusts of X-Forwarded-For, for both
// HTTP adapters: one reading of the client address for the sign-in
// throttles and the audit log.
func (a *App) proxies() webguard.Proxies {
	return webguard.Proxies{Trust: a.cfg.TrustProxyHeaders, Networks: a.cfg.TrustedProxies, Count: a.cfg.TrustedProxyCount}
}
