package httpapi_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"bankrail/internal/apptest"
	"bankrail/internal/notify"
	"bankrail/notification"
)

// emitTo writes a gateway notification of the shop about payment that goes
// to the payment's own url.
func emitTo(t *testing.T, env *apptest.Env, payment, url string) string {
	t.Helper()
	m, err := notify.Gateway(notify.Target{CustomerID: apptest.ShopID, ClientID: apptest.Merchant.ClientID, URL: url},
		notification.Gateway{Payment: payment, Reference: "ref-" + payment, Amount: 1, Status: notification.StatusPending,
			DetailedStatus: "BANK_REDIRECT"})
	if err != nil {
		t.Fatal(err)
	}
	ids, err := env.App.Store().EnqueueNotifications(context.Background(), env.App.Clock().Now(), m)
	if err != nil {
		t.Fatal(err)
	}
	return ids[0]
}

// pausedApplications reads the gauge of paused applications.
func pausedApplications(t *testing.T, env *apptest.Env) string {
	t.Helper()
	for line := range strings.SplitSeq(string(env.Do(t, apptest.Request{Method: "GET", Path: "/metrics"}).Body), "\n") {
		if v, ok := strings.CutPrefix(line, "bankrail_notifications_paused_applications "); ok {
			return v
		}
	}
	return ""
}

func TestMissingNotificationURLNeverPauses(t *testing.T) {
	t.Parallel()
	apptest.Each(t, func(t *testing.T, env *apptest.Env) {
		token := env.Token(t, apptest.Merchant) // the shop's application has no notification URL
		var ids []string
		for i := range notify.PauseAfter + 2 {
			ids = append(ids, emit(t, env, fmt.Sprintf("pay-nourl-%d", i), 1))
		}
		for _, id := range ids {
			apptest.Eventually(t, "the attempt without URL recorded", func() bool {
				n := getNotification(t, env, token, id)
				return n.AttemptCount == 1 && n.Status == "PENDING" && len(n.Attempts) == 1 && n.NextAttemptAt != nil
			})
			n := getNotification(t, env, token, id)
			if !strings.Contains(n.LastError, "no notification URL") || n.Attempts[0].Success {
				t.Fatalf("lastError %q, attempts %+v", n.LastError, n.Attempts)
			}
		}
		if got := pausedApplications(t, env); got != "0" {
			t.Fatalf("paused applications %q after notifications without URL, want 0", got)
		}
		// A payment with its own URL is delivered at once, not held.
		rc := apptest.NewReceiver(t)
		id := emitTo(t, env, "pay-own-url", rc.URL+"/own")
		got := rc.WaitFor(t, 1)
		if got[0].Header.Get("X-Service-Notification-Id") != id {
			t.Fatalf("received %v", got[0].Header)
		}
		verify(t, got[0])
		apptest.Eventually(t, "DELIVERED", func() bool { return getNotification(t, env, token, id).Status == "DELIVERED" })
	})
}
