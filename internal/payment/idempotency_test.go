package payment

import (
	"testing"
	"time"

	"bankrail/internal/bank"
)

func TestDecide(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 6, 1, 9, 0, 0, 0, time.UTC)
	stored := KeyRecord{RequestHash: "h1", Done: true, ExpiresAt: now.Add(time.Hour), LockedUntil: now.Add(-time.Minute)}
	pending := KeyRecord{RequestHash: "h1", ExpiresAt: now.Add(time.Hour), LockedUntil: now.Add(time.Second)}
	tests := []struct {
		name     string
		existing KeyRecord
		claim    Claim
		want     Decision
	}{
		{"same request, finished", stored, Claim{RequestHash: "h1", Now: now}, DecisionReplay},
		{"different request", stored, Claim{RequestHash: "h2", Now: now}, DecisionMismatch},
		{"different request while pending", pending, Claim{RequestHash: "h2", Now: now}, DecisionMismatch},
		{"same request in flight", pending, Claim{RequestHash: "h1", Now: now}, DecisionInFlight},
		{"holder's lease ran out", pending, Claim{RequestHash: "h1", Now: now.Add(2 * time.Second)}, DecisionClaimed},
		{"expired key is reusable", stored, Claim{RequestHash: "h2", Now: now.Add(time.Hour)}, DecisionClaimed},
		{"strict refuses a replay", stored, Claim{RequestHash: "h1", Now: now, Strict: true}, DecisionUsed},
		{"strict lets an expired key go", stored, Claim{RequestHash: "h1", Now: now.Add(2 * time.Hour), Strict: true}, DecisionClaimed},
	}
	for _, tt := range tests {
		if got := Decide(tt.existing, tt.claim); got != tt.want {
			t.Errorf("%s: Decide = %d, want %d", tt.name, got, tt.want)
		}
	}
}

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
