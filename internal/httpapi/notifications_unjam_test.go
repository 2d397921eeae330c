package httpapi_test

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/bankrail/bankrail/internal/apptest"
	"github.com/bankrail/bankrail/internal/notify"
	"github.com/bankrail/bankrail/notification"
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

func TestResumeEndsAPauseWithoutTheReceiver(t *testing.T) {
	t.Parallel()
	apptest.Each(t, func(t *testing.T, env *apptest.Env) {
		token, rc := receiving(t, env)
		var out struct {
			ClientID string `json:"clientId"`
			Resumed  bool   `json:"resumed"`
		}
		resp := env.Do(t, apptest.Request{Method: "POST", Path: "/notifications/resume", Token: token})
		if resp.JSON(t, &out); resp.Status != http.StatusOK || out.Resumed {
			t.Fatalf("resume while not paused: %d %s", resp.Status, resp.Body)
		}
		rc.Status(http.StatusBadGateway)
		for i := range notify.PauseAfter {
			emit(t, env, fmt.Sprintf("pay-down-%d", i), 1)
		}
		rc.WaitFor(t, notify.PauseAfter)
		apptest.Eventually(t, "the pause", func() bool { return pausedApplications(t, env) == "1" })
		held := emit(t, env, "pay-held", 1)
		rc.Quiet(t, notify.PauseAfter)

		// The receiver cannot be reached at all: the test notification fails, resume still works.
		rc.Close()
		if n := sendTest(t, env, token); n.Status != "FAILED" {
			t.Fatalf("test against a closed receiver: %+v", n)
		}
		viewer := env.Token(t, apptest.Viewer)
		env.Do(t, apptest.Request{Method: "POST", Path: "/notifications/resume", Token: viewer}).Error(t, 403, "ACCESS_DENIED")
		env.Do(t, apptest.Request{Method: "POST", Path: "/notifications/resume"}).Error(t, 401, "UNAUTHORISED")
		resp = env.Do(t, apptest.Request{Method: "POST", Path: "/notifications/resume", Token: token})
		resp.JSON(t, &out)
		if resp.Status != http.StatusOK || !out.Resumed || out.ClientID != apptest.Merchant.ClientID {
			t.Fatalf("resume: %d %s", resp.Status, resp.Body)
		}
		// The pause is lifted: the held notification is attempted at once (a
		// paused application's are not). It fails, the receiver being gone, and
		// with the retries that resume made due too, those failures may pause
		// the application again at once, so the pause itself is not read here.
		apptest.Eventually(t, "the held notification attempted", func() bool {
			return getNotification(t, env, token, held).AttemptCount == 1
		})
		// Another customer's resume does not touch the shop.
		other := env.Token(t, apptest.OtherMerch)
		if resp := env.Do(t, apptest.Request{Method: "POST", Path: "/notifications/resume", Token: other}); resp.Status != http.StatusOK {
			t.Fatalf("other resume: %d %s", resp.Status, resp.Body)
		}
	})
}
