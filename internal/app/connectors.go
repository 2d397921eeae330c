package app

import (
	"fmt"

	"github.com/bankrail/bankrail/internal/bank"
	"github.com/bankrail/bankrail/internal/clock"
	"github.com/bankrail/bankrail/internal/config"
	"github.com/bankrail/bankrail/internal/refund"
)

// bankConnectors are the connectors that reach the banks of the registry in
// mode, and the sender of transfers out of the Connect accounts (refunds):
// psd2, the NextGenPSD2 connector, reaches psd2Banks (in the sandbox every
// bank, at the mock ASPSP; in production the banks of the directory,
// --banks) and the mock bank sends refunds in the sandbox (answering on the
// tenant's clock clk). A bank without a connector cannot be paid from: the
// payer is told and the payment ends (docs/checkout.md, "Banks and
// connectors"), and a refund fails in production (docs/connect.md,
// "Refunds"). transfers, when set (tests), sends the transfers instead of
// the mode's sender.
func bankConnectors(mode config.Mode, clk clock.Clock, transfers bank.TransferSender, psd2 bank.Connector, psd2Banks []bank.Bank) (*bank.Connectors, error) {
	cs := bank.NewConnectors()
	if transfers == nil && mode == config.Sandbox {
		transfers = refund.MockBank{Clock: clk, AnswerAfter: refund.SandboxAnswerAfter}
	}
	if transfers != nil {
		if err := cs.SendTransfersWith(transfers); err != nil {
			return nil, err
		}
	}
	if psd2 == nil || len(psd2Banks) == 0 {
		return cs, nil
	}
	if err := cs.Connect(psd2, psd2Banks...); err != nil {
		return nil, fmt.Errorf("connect the NextGenPSD2 banks: %w", err)
	}
	return cs, nil
}
