package app

import (
	"fmt"

	"github.com/bankrail/bankrail/internal/bank"
	"github.com/bankrail/bankrail/internal/checkout"
	"github.com/bankrail/bankrail/internal/config"
)

// bankConnectors are the connectors that reach the banks of the registry in
// mode: in the sandbox the mock banks reach every bank; in production none
// is wired yet, so a payer who picks a bank is told it cannot be reached
// and the payment ends (docs/checkout.md, "Banks and connectors").
func bankConnectors(mode config.Mode, banks *bank.Registry) (*bank.Connectors, error) {
	cs := bank.NewConnectors()
	if mode != config.Sandbox {
		return cs, nil
	}
	if err := cs.Connect(checkout.MockBanks{}, banks.List(bank.Filter{})...); err != nil {
		return nil, fmt.Errorf("connect the mock banks: %w", err)
	}
	return cs, nil
}
