package app

import (
	"context"

	"github.com/bankrail/bankrail/internal/config"
	"github.com/bankrail/bankrail/internal/payout"
	"github.com/bankrail/bankrail/internal/refund"
	"github.com/bankrail/bankrail/internal/store"
	"github.com/bankrail/bankrail/internal/transfer"
	"github.com/bankrail/bankrail/internal/worker"
)

// buildTransfers wires the transfer files (internal/transfer): the payouts
// and the refunds own their transfers (the bank's answers end them), and
// with --transfers-dir a worker works the folder (docs/banking.md).
func (a *App) buildTransfers() {
	a.transfers = a.newTransfers(a.payouts, a.refunds)
	if a.cfg.TransfersDir != "" {
		folder := transfer.Folder{Service: a.transfers, Dir: a.cfg.TransfersDir}
		a.workers = append(a.workers, worker.NewPeriodic("transfers folder", a.cfg.TransfersInterval, a.log, folder.Tick))
	}
}

// newTransfers is the transfer service with payouts and refunds as the
// owners of their transfers.
func (a *App) newTransfers(payouts *payout.Service, refunds *refund.Service) *transfer.Service {
	s := transfer.NewService(a.store.Transfers(), store.Transactor[transfer.Repos](a.store), a.clock,
		transfer.Config{Initiator: "bankrail"}, a.log.With("component", "transfers"))
	s.UseOwner(transfer.KindPayout, payout.Transfers{Service: payouts})
	s.UseOwner(transfer.KindRefund, refund.Transfers{Service: refunds})
	return s
}

// Transfers is the transfer service: the one of a running instance, or
// for the admin CLI (bankrail transfers ...) one with payout and refund
// services of its own that only settle what the bank answers.
func (a *App) Transfers() *transfer.Service {
	if a.transfers == nil {
		sandbox := a.cfg.Mode == config.Sandbox
		payouts := payout.NewService(a.store.Payouts(), store.Transactor[payout.Repos](a.store), nil, a.clock, sandbox,
			a.log.With("component", "payouts"))
		refunds := refund.NewService(refund.Deps{Refunds: a.store.Refunds(), Payments: a.store.Payments(), Accounts: a.store.Ledger(),
			InTx: store.Transactor[refund.Repos](a.store), Clock: a.clock, Sandbox: sandbox, Files: !sandbox,
			Log: a.log.With("component", "refunds")})
		a.transfers = a.newTransfers(payouts, refunds)
	}
	return a.transfers
}

// ExportTransfers writes every queued transfer into pain.001 files and
// delivers every file not yet delivered to dir (bankrail transfers
// export --out DIR); it returns the files delivered.
func (a *App) ExportTransfers(ctx context.Context, dir string) ([]transfer.File, error) {
	s := a.Transfers()
	if _, err := s.ExportAll(ctx); err != nil {
		return nil, err
	}
	return s.Deliver(ctx, dir)
}
