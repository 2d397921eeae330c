package payment

import (
	"testing"

	"github.com/bankrail/bankrail/internal/bank"
)

func TestStatusFlow(t *testing.T) {
	t.Parallel()
	want := map[Status]FlowStatus{
		StatusNew: FlowProcessing, StatusBankRedirect: FlowProcessing, StatusDelayedAtBank: FlowProcessing,
		StatusCompleted: FlowFinished, StatusSettled: FlowFinished, StatusCancelledByUser: FlowAborted,
		StatusAbandonedByUser: FlowAborted, StatusRefusedByRisk: FlowException, StatusErrorAtBank: FlowException,
	}
	for s, f := range want {
		if s.Flow() != f {
			t.Errorf("%s.Flow() = %s, want %s", s, s.Flow(), f)
		}
	}
	if Status("PAID").Valid() || !StatusNew.Valid() {
		t.Fatal("Valid")
	}
}

func TestTransferType(t *testing.T) {
	t.Parallel()
	instant, _ := bank.Default().Get(testBankDE) // takes SEPA Instant
	plain, _ := bank.Default().Get("ba4c0276-0000-4000-8000-000000000003")
	for _, tt := range []struct {
		sys  bank.PaymentSystem
		b    *bank.Bank
		want string
	}{
		{bank.OpenBankingUK, nil, "Faster Payments"},
		{bank.OpenBankingEU, nil, "SEPA Credit Transfer"},
		{bank.OpenBankingEU, &instant, "SEPA Instant Credit Transfer"},
		{bank.OpenBankingEU, &plain, "SEPA Credit Transfer"},
	} {
		if got := TransferType(tt.sys, tt.b); got != tt.want {
			t.Errorf("TransferType(%s, %v) = %q, want %q", tt.sys, tt.b != nil, got, tt.want)
		}
	}
}
