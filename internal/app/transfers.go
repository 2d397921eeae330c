package app

import (
	"context"

	"github.com/bankrail/bankrail/internal/bank"
	"github.com/bankrail/bankrail/internal/config"
	"github.com/bankrail/bankrail/internal/payout"
	"github.com/bankrail/bankrail/internal/refund"
	"github.com/bankrail/bankrail/internal/store"
	"github.com/bankrail/bankrail/internal/transfer"
	"github.com/bankrail/bankrail/internal/worker"
)

// newTransfers is the transfer service (internal/transfer), without its
// owners yet (buildTransfers, or Transfers for the admin CLI).
func (a *App) newTransfers() *transfer.Service {
	return transfer.NewService(a.store.Transfers(), store.Transactor[transfer.Repos](a.store), a.clock,
		transfer.Config{Initiator: "bankrail"}, a.log.With("component", "transfers"))
}

// mockBankFor is the sandbox's bank of transfer files for refunds when
// sender is the sandbox's refund.MockBank (the answer it decides goes
// through pain.001 and pain.002 files); nil otherwise (production, or a
// sender a test wired).
func (a *App) mockBankFor(sender bank.TransferSender) refund.FileBank {
	if _, ok := sender.(refund.MockBank); !ok || a.cfg.Mode != config.Sandbox {
		return nil
	}
	return transfer.MockBank{Service: a.transfers}
}

// buildTransfers makes the payouts and the refunds the owners of their
// transfers (the bank's answers end them), sends the sandbox's payouts
// through the mock bank's files, and with --transfers-dir works the folder
// (docs/banking.md).
func (a *App) buildTransfers() {
	a.transfers.UseOwner(transfer.KindPayout, a.payouts.Transfers())
	a.transfers.UseOwner(transfer.KindRefund, a.refunds.Transfers())
	if a.cfg.Mode == config.Sandbox {
		a.payouts.UseMockBank(transfer.MockBank{Service: a.transfers})
	}
	if a.cfg.TransfersDir != "" {
		folder := transfer.Folder{Service: a.transfers, Dir: a.cfg.TransfersDir}
		a.workers = append(a.workers, worker.NewPeriodic("transfers folder", a.cfg.TransfersInterval, a.log, folder.Tick))
	}
}

// Transfers is the transfer service: the one of a running instance, or
// for the admin CLI (bankrail transfers ...) one with payout and refund
// services of its own that only settle what the bank answers (the CLI
// knows no mode: a sandbox's database has no queued transfer, its mock
// bank files them at once).
func (a *App) Transfers() *transfer.Service {
	if a.transfers == nil {
		a.transfers = a.newTransfers()
		payouts := payout.NewService(a.store.Payouts(), store.Transactor[payout.Repos](a.store), nil, a.clock, false,
			a.log.With("component", "payouts"))
		refunds := refund.NewService(refund.Deps{Refunds: a.store.Refunds(), Payments: a.store.Payments(), Accounts: a.store.Ledger(),
			InTx: store.Transactor[refund.Repos](a.store), Clock: a.clock, Files: true,
			Log: a.log.With("component", "refunds")})
		a.transfers.UseOwner(transfer.KindPayout, payouts.Transfers())
		a.transfers.UseOwner(transfer.KindRefund, refunds.Transfers())
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
