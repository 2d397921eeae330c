package idempotency

import (
	"testing"
	"time"
)

func TestDecide(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 6, 1, 9, 0, 0, 0, time.UTC)
	stored := Record{RequestHash: "h1", Done: true, ExpiresAt: now.Add(time.Hour), LockedUntil: now.Add(-time.Minute)}
	pending := Record{RequestHash: "h1", ExpiresAt: now.Add(time.Hour), LockedUntil: now.Add(time.Second)}
	tests := []struct {
		name     string
		existing Record
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
		{"its own claim, committed before its answer was lost", Record{RequestHash: "h1", Token: "t1", ExpiresAt: now.Add(time.Hour), LockedUntil: now.Add(time.Second)},
			Claim{RequestHash: "h1", Token: "t1", Now: now}, DecisionClaimed},
		{"its own token, finished: a replay", Record{RequestHash: "h1", Token: "t1", Done: true, ExpiresAt: now.Add(time.Hour)},
			Claim{RequestHash: "h1", Token: "t1", Now: now}, DecisionReplay},
		{"strict lets an expired key go", stored, Claim{RequestHash: "h1", Now: now.Add(2 * time.Hour), Strict: true}, DecisionClaimed},
	}
	for _, tt := range tests {
		if got := Decide(tt.existing, tt.claim); got != tt.want {
			t.Errorf("%s: Decide = %d, want %d", tt.name, got, tt.want)
		}
	}
}
