package refund

import (
	"context"
	"fmt"
	"time"

	"github.com/bankrail/bankrail/internal/bank"
	"github.com/bankrail/bankrail/internal/clock"
)

// SandboxAnswerAfter is how long the sandbox's mock bank takes to answer a
// refund, on the clock of the refund's customer. Neither the contract nor
// decisions.md gives refunds a delay (decisions.md: "amount 1177 fails;
// REFUND_REJECTED rejects"), so the mock bank answers the first time it is
// asked: the settlement job runs as soon as the refund commits.
const SandboxAnswerAfter time.Duration = 0

// MockBank is the sandbox's bank for refunds (a bank.TransferSender): it
// answers a refund by the sandbox's rules (outcomeOf: 1177 fails,
// REFUND_REJECTED rejects, anything else is confirmed) once AnswerAfter has
// passed since the refund was requested on the clock of its customer's
// tenant, and PENDING until then. It keeps nothing: the answer follows from
// the transfer alone, so sending a refund again is harmless.
type MockBank struct {
	Clock       clock.Clock
	AnswerAfter time.Duration
}

var _ bank.TransferSender = MockBank{}

// Send answers t.
func (m MockBank) Send(ctx context.Context, t bank.Transfer) (bank.TransferAnswer, error) {
	if t.Kind != bank.TransferRefund {
		return bank.TransferAnswer{}, fmt.Errorf("mock bank: transfers of kind %q are not sent here", t.Kind)
	}
	if m.AnswerAfter > 0 {
		now, err := clock.For(ctx, m.Clock, t.CustomerID)
		if err != nil {
			return bank.TransferAnswer{}, err
		}
		if due := t.RequestedAt.Add(m.AnswerAfter); now.Before(due) {
			return bank.TransferAnswer{State: bank.TransferPending, AskAgainAt: due}, nil
		}
	}
	switch outcomeOf(Refund{Amount: t.Amount}, t.Scenario == ScenarioRejected) {
	case Failed:
		return bank.TransferAnswer{State: bank.TransferFailed, Reason: fmt.Sprintf("the sandbox fails refunds of %d", FailingAmount)}, nil
	case Rejected:
		return bank.TransferAnswer{State: bank.TransferRejected, Reason: "the payer's bank refused it (scenario " + ScenarioRejected + ")"}, nil
	}
	return bank.TransferAnswer{State: bank.TransferCompleted}, nil
}
