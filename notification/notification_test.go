package notification_test

import (
	"errors"
	"net/http"
	"testing"
	"time"

	"github.com/bankrail/bankrail/notification"
)

// The worked example of docs/notifications.md: version 2.0, a 14-digit
// X-Service-Timed, the sandbox demo application's secret.
func TestSignDocumentedExample(t *testing.T) {
	body := `{"paymentId":"6076d8ad-26bc-4cc2-837c-a4631e8cd909","status":"COMPLETED"}`
	if got := notification.Sign("demo-notification-secret", []byte(body), "20260601090507", "2.0"); got != "a268a499bfac273f15259cd92ed5ef5b429e9e3d78e650eeb535b6ef3938625e" {
		t.Fatalf("Sign = %s", got)
	}
}

func TestSignTestVector(t *testing.T) {
	got := notification.Sign("9c0c8c97-c224-45ed-a195-23b54b1c67e5", []byte("{}"), "1631525064", "1.0")
	if want := "ed22494369277d25cf8c2293d142e5fddb9cecbea1f54e28ac16db0bee3b8009"; got != want {
		t.Fatalf("Sign = %s, want %s", got, want)
	}
}

func TestVerify(t *testing.T) {
	body := []byte(`{"payment":"p1","reference":"r","amount":100,"status":"COMPLETED","detailedStatus":"COMPLETED"}`)
	at := time.Date(2026, 6, 1, 9, 0, 0, 0, time.UTC)
	timed := notification.FormatTimed(at)
	h := http.Header{}
	h.Set("User-Agent", notification.UserAgent)
	h.Set(notification.HeaderTimed, timed)
	h.Set(notification.HeaderSigned, notification.Sign("s3cret", body, timed, "2.0"))
	if timed != "20260601090000" {
		t.Fatalf("timed %s", timed)
	}
	if err := notification.Verify("s3cret", h, body); err != nil {
		t.Fatal(err)
	}
	if err := notification.Verify("other", h, body); !errors.Is(err, notification.ErrBadSignature) {
		t.Fatalf("wrong secret: %v", err)
	}
	tampered := append([]byte{}, body...)
	tampered[len(tampered)-3] = 'X'
	if err := notification.Verify("s3cret", h, tampered); !errors.Is(err, notification.ErrBadSignature) {
		t.Fatalf("tampered body: %v", err)
	}
	fresh := notification.Verifier{Secret: "s3cret", MaxAge: 5 * time.Minute, Now: func() time.Time { return at.Add(time.Minute) }}
	if err := fresh.Verify(h, body); err != nil {
		t.Fatalf("fresh: %v", err)
	}
	fresh.Now = func() time.Time { return at.Add(time.Hour) }
	if err := fresh.Verify(h, body); !errors.Is(err, notification.ErrStale) {
		t.Fatalf("stale: %v", err)
	}
	if err := notification.Verify("s3cret", http.Header{}, body); !errors.Is(err, notification.ErrMissingHeader) {
		t.Fatalf("no headers: %v", err)
	}
	n, err := notification.Parse(h, body)
	if err != nil || n.Gateway == nil || n.Gateway.Payment != "p1" || n.Gateway.Amount != 100 || !n.Timed.Equal(at) {
		t.Fatalf("parse: %+v %v", n, err)
	}
}

// During a secret rotation's overlap X-Service-Signed is signed with the
// previous secret and X-Service-Signed-Next with the new one: a receiver
// holding either (or both) verifies; a receiver holding neither does not.
func TestVerifyDuringARotation(t *testing.T) {
	body := []byte(`{"payment":"p1"}`)
	timed := "20260601090000"
	h := http.Header{}
	h.Set(notification.HeaderTimed, timed)
	h.Set(notification.HeaderSigned, notification.Sign("old", body, timed, "2.0"))
	h.Set(notification.HeaderSignedNext, notification.Sign("new", body, timed, "2.0"))
	for _, v := range []notification.Verifier{{Secret: "old"}, {Secret: "new"}, {Secret: "new", PreviousSecret: "old"}, {Secret: "other", PreviousSecret: "old"}} {
		if err := v.Verify(h, body); err != nil {
			t.Errorf("%+v: %v", v, err)
		}
	}
	if err := (notification.Verifier{Secret: "other"}).Verify(h, body); !errors.Is(err, notification.ErrBadSignature) {
		t.Fatalf("a stranger's secret: %v", err)
	}
	h.Del(notification.HeaderSignedNext)
	if err := (notification.Verifier{Secret: "new"}).Verify(h, body); !errors.Is(err, notification.ErrBadSignature) {
		t.Fatalf("the new secret against the old signature alone: %v", err)
	}
}
