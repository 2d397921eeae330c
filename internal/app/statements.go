package app

import (
	"context"
	"log/slog"

	"github.com/bankrail/bankrail/internal/bank"
	"github.com/bankrail/bankrail/internal/config"
	"github.com/bankrail/bankrail/internal/idempotency"
	"github.com/bankrail/bankrail/internal/payment"
	"github.com/bankrail/bankrail/internal/payout"
	"github.com/bankrail/bankrail/internal/refund"
	"github.com/bankrail/bankrail/internal/statement"
	"github.com/bankrail/bankrail/internal/store"
	"github.com/bankrail/bankrail/internal/transfer"
)

// buildStatements creates the statement importer over the payment, payout
// and refund services; in the sandbox, POST /payin's funds go through it
// as camt.054 credit advices (statement.Payins), and the mock bank books
// the transfers it carries out with camt.054 debit advices applied by it
// (statement.Advices).
//
// The debits of payouts and refunds that left as transfer files are
// booked through the transfer service (one path: the transfer row and its
// owner end together); OpenStatements, which has none, gets one whose
// owners are its own payouts and refunds.
func (a *App) buildStatements() error {
	if a.transfers == nil {
		a.transfers = a.newTransfers()
		a.transfers.UseOwner(transfer.KindPayout, a.payouts.Transfers())
		a.transfers.UseOwner(transfer.KindRefund, a.refunds.Transfers())
	}
	im, err := statement.New(statement.Deps{InTx: store.Transactor[statement.Repos](a.store), Reads: a.store.Statements(),
		Credit: a.payments, Payouts: a.payouts, Refunds: a.refunds, Transfers: a.transfers, Clock: a.clock,
		Log: a.log.With("component", "statements")})
	if err != nil {
		return err
	}
	a.statements = im
	if a.cfg.StatementsDir != "" {
		folder, err := statement.NewFolder(im, statement.FolderConfig{Dir: a.cfg.StatementsDir}, a.clock, a.log.With("component", "statements folder"))
		if err != nil {
			return err
		}
		a.workers = append(a.workers, folder)
	}
	if a.cfg.Mode == config.Sandbox {
		a.payments.UseIncomingBank(statement.Payins{Importer: im, Clock: a.clock})
		a.transfers.UseAdvices(statement.Advices{Importer: im}) // the mock bank's camt.054 debit advices
	}
	return nil
}

// Statements is the statement importer.
func (a *App) Statements() *statement.Importer { return a.statements }

// OpenStatements opens the database of cfg with what importing statements
// needs and nothing more (no seed, no demo merchant, no server, no
// workers): for `bankrail statements`, which runs beside a server on the
// same database or without one. Close it after use.
func OpenStatements(ctx context.Context, cfg config.Config, log *slog.Logger) (*App, error) {
	a, err := open(ctx, cfg, log, Options{}, adoptMode) // an administration command: the database's mode
	if err != nil {
		return nil, err
	}
	keys := idempotency.NewGuard(a.store.IdempotencyKeys(), a.clock, idempotency.Config{TTL: a.cfg.IdempotencyTTL})
	a.payments = payment.NewService(a.store.Payments(), store.Transactor[payment.Repos](a.store), keys, bank.Default(), a.clock,
		payment.Config{PublicURL: a.cfg.PublicURL, MaxMajor: a.cfg.MaxPaymentMajor, WaitForFunds: a.cfg.Mode != config.Sandbox})
	a.refunds = refund.NewService(refund.Deps{Refunds: a.store.Refunds(), Payments: a.store.Payments(), Accounts: a.store.Ledger(),
		InTx: store.Transactor[refund.Repos](a.store), Keys: keys, Clock: a.clock, Log: log})
	a.payouts = payout.NewService(a.store.Payouts(), store.Transactor[payout.Repos](a.store), keys, a.clock, false, log)
	a.payouts.UseSettlement(a.payments.Lifecycle())
	if err := a.buildStatements(); err != nil {
		_ = a.store.Close() // the build's error is the one to report
		return nil, err
	}
	return a, nil
}
