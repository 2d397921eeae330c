package notify_test

import (
	"testing"
	"time"

	"github.com/bankrail/bankrail/internal/notify"
	"github.com/bankrail/bankrail/notification"
)

func TestDecideFollowsTheRetrySchedule(t *testing.T) {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	want := []time.Duration{5 * time.Second, 30 * time.Second, 3 * time.Minute, 10 * time.Minute, 15 * time.Minute}
	for i, d := range want {
		st, next := notify.Decide(i+1, false, now)
		if st != notify.Pending || next.Sub(now) != d {
			t.Fatalf("attempt %d: %s %s, want PENDING after %s", i+1, st, next.Sub(now), d)
		}
	}
	if st, _ := notify.Decide(6, false, now); st != notify.Failed {
		t.Fatalf("sixth failure: %s, want FAILED", st)
	}
	if st, _ := notify.Decide(3, true, now); st != notify.Delivered {
		t.Fatalf("success: %s", st)
	}
	if notify.ShouldPause(5) || !notify.ShouldPause(6) {
		t.Fatal("pause after 6 consecutive failures")
	}
}

func TestBuildRequestSignsTheSentBytes(t *testing.T) {
	m, err := notify.Gateway(notify.Target{CustomerID: "c", ClientID: "x"}, notification.Gateway{
		Payment: "p1", Reference: "ref <&>", Amount: 1050, Status: "PENDING", DetailedStatus: "BANK_REDIRECT"})
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"payment":"p1","reference":"ref <&>","amount":1050,"status":"PENDING","detailedStatus":"BANK_REDIRECT"}`; string(m.Body) != want {
		t.Fatalf("body %s\nwant %s", m.Body, want)
	}
	at := time.Date(2026, 6, 1, 9, 5, 7, 0, time.UTC)
	req := notify.BuildRequest(notify.Notification{ID: "n1", Body: m.Body}, "http://x", "sec", at)
	if req.Headers["X-Service-Timed"] != "20260601090507" || req.Headers["User-Agent"] != "Service/2.0" ||
		req.Headers["Content-Type"] != "application/json" || req.Headers["X-Service-Notification-Id"] != "n1" {
		t.Fatalf("headers %v", req.Headers)
	}
	if _, ok := req.Headers["X-Service-Type"]; ok {
		t.Fatal("gateway notifications carry no X-Service-Type")
	}
	if req.Headers["X-Service-Signed"] != notification.Sign("sec", m.Body, "20260601090507", "2.0") {
		t.Fatal("signature is not over body|timed|2.0")
	}
	c, err := notify.Connect(notify.Target{CustomerID: "c", ClientID: "x"}, notification.Connect{
		Payment: "p1", Status: "NOT_RECEIVED", Currency: "GBP", Timestamp: at, Sender: &notification.ConnectSender{Name: "x"}})
	if err != nil || c.Type != "payment_not_received" || c.PaymentID != "p1" {
		t.Fatalf("connect %+v %v", c, err)
	}
	if req := notify.BuildRequest(notify.Notification{ID: "n2", Type: c.Type, Body: c.Body}, "", "s", at); req.Headers["X-Service-Type"] != "payment_not_received" {
		t.Fatalf("type header %v", req.Headers)
	}
	if _, err := notify.Gateway(notify.Target{CustomerID: "c", ClientID: "x"}, notification.Gateway{Status: "NOPE"}); err == nil {
		t.Fatal("bad status accepted")
	}
}

func TestGatewayStatus(t *testing.T) {
	for ps, want := range map[string]string{"BANK_REDIRECT": "PENDING", "DELAYED_AT_BANK": "PENDING", "COMPLETED": "COMPLETED",
		"REFUSED_BY_RISK": "FAILED", "ABANDONED_BY_USER": "FAILED", "CANCELLED_BY_USER": "FAILED"} {
		if got, ok := notify.GatewayStatus(ps); !ok || got != want {
			t.Errorf("%s -> %s %v, want %s", ps, got, ok, want)
		}
	}
	if _, ok := notify.GatewayStatus("AUTHORISED_BY_USER"); ok {
		t.Error("AUTHORISED_BY_USER sends no notification")
	}
}

func TestMissingURLDoesNotCountTowardPause(t *testing.T) {
	for _, c := range []struct {
		a    notify.Attempt
		want bool
	}{{notify.Attempt{Error: "HTTP 502"}, true}, {notify.Attempt{Success: true}, false}, {notify.Attempt{NoURL: true, Error: notify.NoURLError}, false}} {
		if got := notify.CountsTowardPause(c.a); got != c.want {
			t.Errorf("%+v counts toward pause: %v, want %v", c.a, got, c.want)
		}
	}
}
