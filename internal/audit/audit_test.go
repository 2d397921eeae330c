package audit

import (
	"context"
	"testing"
)

func TestResourceOfPath(t *testing.T) {
	t.Parallel()
	vals := map[string]string{"id": "P1", "bankAccountId": "A1", "clientId": "C1"}
	for _, tt := range []struct{ pattern, typ, id string }{
		{"POST /payments", "", ""},
		{"POST /payments/{id}/request-refund", "payment", "P1"},
		{"POST /notifications/{id}/redeliver", "notification", "P1"},
		{"POST /reports/connect/{bankAccountId}", "connect", "A1"},
		{"POST /sandbox/payments/{id}/authorise", "payment", "P1"},
	} {
		typ, id := ResourceOfPath(tt.pattern, func(n string) string { return vals[n] })
		if typ != tt.typ || id != tt.id {
			t.Errorf("%s: %q %q, want %q %q", tt.pattern, typ, id, tt.typ, tt.id)
		}
	}
}

func TestPendingIsWrittenOnce(t *testing.T) {
	t.Parallel()
	Resource(context.Background(), "payment", "x") // no pending entry: nothing happens
	ctx, p := With(context.Background(), Entry{Action: "POST /payments/{id}/request-refund", ResourceType: "payment", ResourceID: "P1"})
	if From(ctx) != p {
		t.Fatal("From")
	}
	Actor(ctx, ActorUser, "U1")
	Actor(ctx, ActorUser, "U2") // the first actor stays
	Resource(ctx, "refund", "R1")
	e, pending := p.Entry()
	if !pending || e.ActorID != "U1" || e.ResourceType != "refund" || e.ResourceID != "R1" {
		t.Fatalf("entry %+v pending %v", e, pending)
	}
	p.Written()
	if _, pending := p.Entry(); pending {
		t.Fatal("still pending after Written")
	}
}
