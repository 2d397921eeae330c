package refund

import (
	"context"
	"testing"
	"time"

	"github.com/bankrail/bankrail/internal/bank"
	"github.com/bankrail/bankrail/internal/clock"
)

// The mock bank answers by the sandbox's rules once AnswerAfter has passed
// on the clock, PENDING (ask again at the due time) before; sending again
// gives the same answer.
func TestMockBank(t *testing.T) {
	t.Parallel()
	at := time.Date(2026, 6, 1, 9, 0, 0, 0, time.UTC)
	clk := clock.NewFake(at)
	ctx := context.Background()
	m := MockBank{Clock: clk, AnswerAfter: time.Minute}
	tr := bank.Transfer{ID: "r1", Kind: bank.TransferRefund, Amount: 100, Currency: "EUR", RequestedAt: at}
	if a, err := m.Send(ctx, tr); err != nil || a.State != bank.TransferPending || !a.AskAgainAt.Equal(at.Add(time.Minute)) {
		t.Fatalf("before the delay: %+v %v", a, err)
	}
	clk.Advance(time.Minute)
	for _, tc := range []struct {
		amount   int64
		scenario string
		want     bank.TransferState
	}{
		{100, "", bank.TransferCompleted},
		{FailingAmount, "", bank.TransferFailed},
		{FailingAmount, ScenarioRejected, bank.TransferFailed},
		{100, ScenarioRejected, bank.TransferRejected},
	} {
		tr.Amount, tr.Scenario = tc.amount, tc.scenario
		for range 2 {
			if a, err := m.Send(ctx, tr); err != nil || a.State != tc.want || (a.State != bank.TransferCompleted) != (a.Reason != "") {
				t.Fatalf("amount %d scenario %q: %+v %v, want %s", tc.amount, tc.scenario, a, err, tc.want)
			}
		}
	}
	if a, err := (MockBank{Clock: clk}).Send(ctx, bank.Transfer{Kind: bank.TransferRefund, Amount: 5, RequestedAt: clk.Now().Add(time.Hour)}); err != nil || a.State != bank.TransferCompleted {
		t.Fatalf("without a delay the answer is at once: %+v %v", a, err)
	}
	if _, err := m.Send(ctx, bank.Transfer{Kind: "PAYOUT"}); err == nil {
		t.Fatal("a transfer of another kind is answered")
	}
}
