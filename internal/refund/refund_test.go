package refund

import (
	"encoding/json"
	"testing"
	"time"
)

func TestSandboxOutcome(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		amount int64
		reject bool
		want   Status
	}{
		{100, false, Confirmed},
		{FailingAmount, false, Failed},
		{FailingAmount, true, Failed},
		{100, true, Rejected},
	} {
		if got := outcomeOf(Refund{Amount: tc.amount}, tc.reject); got != tc.want {
			t.Errorf("amount %d reject %v: %s, want %s", tc.amount, tc.reject, got, tc.want)
		}
	}
}

func TestNotificationBody(t *testing.T) {
	t.Parallel()
	at := time.Date(2026, 6, 1, 9, 0, 0, 0, time.UTC)
	for status, typ := range map[Status]string{Confirmed: "refund_confirmed", Failed: "refund_failed", Rejected: "refund_rejected"} {
		m, err := Notification(Refund{ID: "r1", PaymentID: "p1", CustomerID: "c1", ClientID: "app", Amount: 300, Currency: "EUR",
			ExternalReference: "RMA-1", Status: status, UpdatedAt: at})
		if err != nil || m.Type != typ || m.PaymentID != "p1" {
			t.Fatalf("%s: %+v %v", status, m, err)
		}
		var b map[string]any
		if err := json.Unmarshal(m.Body, &b); err != nil {
			t.Fatal(err)
		}
		want := map[string]any{"refund": "r1", "payment": "p1", "externalReference": "RMA-1", "amount": float64(300),
			"currency": "EUR", "status": string(status), "timestamp": "2026-06-01T09:00:00Z"}
		if len(b) != len(want) {
			t.Fatalf("body %v", b)
		}
		for k, v := range want {
			if b[k] != v {
				t.Fatalf("%s: %s = %v, want %v", status, k, b[k], v)
			}
		}
	}
}
