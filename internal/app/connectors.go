package app

import (
	"fmt"

	"github.com/bankrail/bankrail/internal/bank"
	"github.com/bankrail/bankrail/internal/checkout"
	"github.com/bankrail/bankrail/internal/clock"
	"github.com/bankrail/bankrail/internal/config"
	"github.com/bankrail/bankrail/internal/refund"
)

// bankConnectors are the connectors that reach the banks of the registry in
// mode, and the sender of transfers out of the Connect accounts (refunds):
// in the sandbox the mock banks reach every bank and the mock bank sends
// refunds (answering on the tenant's clock clk); in production none is
// wired yet, so a payer who picks a bank is told it cannot be reached and
// the payment ends (docs/checkout.md, "Banks and connectors"), and a
// refund fails (docs/connect.md, "Refunds"). transfers, when set (tests),
// sends the transfers instead of the mode's sender.
func bankConnectors(mode config.Mode, banks *bank.Registry, clk clock.Clock, transfers bank.TransferSender) (*bank.Connectors, error) {
	cs := bank.NewConnectors()
	if transfers == nil && mode == config.Sandbox {
		transfers = refund.MockBank{Clock: clk, AnswerAfter: refund.SandboxAnswerAfter}
	}
	if transfers != nil {
		if err := cs.SendTransfersWith(transfers); err != nil {
			return nil, err
		}
	}
	if mode != config.Sandbox {
		return cs, nil
	}
	if err := cs.Connect(checkout.MockBanks{}, banks.List(bank.Filter{})...); err != nil {
		return nil, fmt.Errorf("connect the mock banks: %w", err)
	}
	return cs, nil
}
