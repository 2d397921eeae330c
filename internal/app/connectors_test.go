package app

import (
	"testing"
	"time"

	"github.com/bankrail/bankrail/internal/bank"
	"github.com/bankrail/bankrail/internal/clock"
	"github.com/bankrail/bankrail/internal/config"
	"github.com/bankrail/bankrail/internal/refund"
	"github.com/bankrail/bankrail/internal/xs2a"
)

// The NextGenPSD2 connector reaches the banks it is given (the sandbox:
// every bank, at the mock ASPSP), and the sandbox sends refunds through the
// mock bank; production without banks reaches none and sends nothing,
// unless a sender is given.
func TestBankConnectorsWiring(t *testing.T) {
	t.Parallel()
	banks := bank.Default().List(bank.Filter{})
	clk := clock.NewFake(time.Date(2026, 6, 1, 9, 0, 0, 0, time.UTC))
	psd2 := &xs2a.Connector{}
	sandbox, err := bankConnectors(config.Sandbox, clk, nil, psd2, banks)
	if err != nil {
		t.Fatal(err)
	}
	production, err := bankConnectors(config.Production, clk, nil, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if s, ok := sandbox.Transfers(); !ok || s != (refund.MockBank{Clock: clk, AnswerAfter: refund.SandboxAnswerAfter}) {
		t.Fatalf("sandbox sends refunds with %v", s)
	}
	if _, ok := production.Transfers(); ok {
		t.Fatal("production sends refunds without a connector")
	}
	given := refund.MockBank{Clock: clk, AnswerAfter: time.Minute}
	if withSender, err := bankConnectors(config.Production, clk, given, nil, nil); err != nil {
		t.Fatal(err)
	} else if s, _ := withSender.Transfers(); s != given {
		t.Fatalf("the given sender is not used: %v", s)
	}
	if sandbox.Len() != len(banks) || production.Len() != 0 {
		t.Fatalf("sandbox reaches %d of %d banks, production %d", sandbox.Len(), len(banks), production.Len())
	}
	for _, b := range banks {
		if c, _ := sandbox.For(b.ID); c != psd2 {
			t.Errorf("sandbox: %s (%s) is reached by %v", b.Name, b.ID, c)
		}
	}
	if _, err := bankConnectors(config.Production, clk, nil, psd2, banks[:1]); err != nil {
		t.Fatalf("production with a directory: %v", err)
	}
}
