package app

import (
	"context"
	"net/http"

	"github.com/bankrail/bankrail/internal/alias"
	"github.com/bankrail/bankrail/internal/clock"
	"github.com/bankrail/bankrail/internal/identity"
	"github.com/bankrail/bankrail/internal/ledger"
	"github.com/bankrail/bankrail/internal/payment"
	"github.com/bankrail/bankrail/internal/payout"
	"github.com/bankrail/bankrail/internal/refund"
	"github.com/bankrail/bankrail/internal/report"
	"github.com/bankrail/bankrail/internal/store"
)

// The components of a built App, for tests and administration commands.

// Refunds is the refund service.
func (a *App) Refunds() *refund.Service { return a.refunds }

// RunDueJobs runs the jobs that are due now, batch after batch, until none
// is (for tests that drive the job worker, and for an instance whose
// workers are not started); it returns how many ran.
func (a *App) RunDueJobs(ctx context.Context) (int, error) { return a.jobs.RunDue(ctx) }

// WakeWorkers makes the workers look at once for what a clock's advance
// made due (timed moves, payout verification expiries, jobs, notification
// retries), as an advance of a tenant's clock does: for a base clock that
// the App does not advance itself, such as a test's fake clock.
func (a *App) WakeWorkers() {
	for _, p := range a.timed {
		p.Wake()
	}
	a.jobs.Wake()
	a.dispatcher.Wake()
}

// VerifyBooks runs the periodic verification of the books once, now: its
// metrics and, when they do not balance, its ERROR log lines (for tests
// that drive the workers, and for an instance whose workers are not
// started).
func (a *App) VerifyBooks(ctx context.Context) error { return a.books.Run(ctx) }

// Payouts is the payout service.
func (a *App) Payouts() *payout.Service { return a.payouts }

// Aliases is the account alias service.
func (a *App) Aliases() *alias.Service { return a.aliases }

// Accounts is the accounts service (for administration commands).
func (a *App) Accounts() *ledger.Service { return a.accounts }

// Handler is the HTTP handler (for tests that serve it themselves).
func (a *App) Handler() http.Handler { return a.http }

// Clock is the clock every rule follows.
func (a *App) Clock() clock.Clock { return a.clock }

// Store is the database (for tests and administration commands).
func (a *App) Store() *store.Store { return a.store }

// Identity is the identity service (for administration commands).
func (a *App) Identity() *identity.Service { return a.identity }

// Reports is the report service.
func (a *App) Reports() *report.Service { return a.reports }

// Payments is the payment service.
func (a *App) Payments() *payment.Service { return a.payments }

// AdapterDeps are the dependencies the HTTP API and the web console were
// given (an httpapi.Deps and a dashboard.Deps): everything an adapter can
// reach. The permission test walks their services' methods.
func (a *App) AdapterDeps() []any { return a.adapterDeps }
