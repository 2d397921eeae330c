package httpapi_test

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/bankrail/bankrail/internal/apptest"
	"github.com/bankrail/bankrail/internal/notify"
	"github.com/bankrail/bankrail/notification"
)

// emit writes a gateway notification of the shop about payment, as a
// payment status change does inside its transaction.
func emit(t *testing.T, env *apptest.Env, payment string, amount int64) string {
	t.Helper()
	m, err := notify.Gateway(notify.Target{CustomerID: apptest.ShopID, ClientID: apptest.Merchant.ClientID}, notification.Gateway{
		Payment: payment, Reference: "ref-" + payment, Amount: amount, Status: notification.StatusPending, DetailedStatus: "BANK_REDIRECT"})
	if err != nil {
		t.Fatal(err)
	}
	ids, err := env.App.Store().EnqueueNotifications(context.Background(), env.App.Clock().Now(), m)
	if err != nil {
		t.Fatal(err)
	}
	return ids[0]
}

// verify checks a received notification with the public helper and
// decodes it.
func verify(t *testing.T, r apptest.Received) notification.Notification {
	t.Helper()
	req := httptest.NewRequest(http.MethodPost, "/hook", bytes.NewReader(r.Body))
	req.Header = r.Header
	n, err := notification.Verifier{Secret: apptest.NotificationSecrets[apptest.Merchant.ClientID]}.Read(req)
	if err != nil {
		t.Fatalf("the receiver helper rejects a real notification: %v\nheaders %v\nbody %s", err, r.Header, r.Body)
	}
	return n
}

// notificationRecord is the delivery log's view of a notification.
type notificationRecord struct {
	ID            string     `json:"id"`
	Status        string     `json:"status"`
	Type          string     `json:"type"`
	PaymentID     string     `json:"paymentId"`
	AttemptCount  int        `json:"attemptCount"`
	NextAttemptAt *time.Time `json:"nextAttemptAt"`
	LastError     string     `json:"lastError"`
	Attempts      []struct {
		Number         int               `json:"number"`
		ResponseStatus int               `json:"responseStatus"`
		RequestHeaders map[string]string `json:"requestHeaders"`
		Error          string            `json:"error"`
		Success        bool              `json:"success"`
	} `json:"attempts"`
}

func getNotification(t *testing.T, env *apptest.Env, token, id string) notificationRecord {
	t.Helper()
	resp := env.Do(t, apptest.Request{Method: "GET", Path: "/notifications/" + id, Token: token})
	if resp.Status != http.StatusOK {
		t.Fatalf("GET notification: %d %s", resp.Status, resp.Body)
	}
	var n notificationRecord
	resp.JSON(t, &n)
	return n
}

// receiving points the shop's notifications at a new receiver and returns
// a merchant token.
func receiving(t *testing.T, env *apptest.Env) (string, *apptest.Receiver) {
	t.Helper()
	rc := apptest.NewReceiver(t)
	env.SetNotificationURL(t, apptest.Merchant, rc.URL+"/hook")
	return env.Token(t, apptest.Merchant), rc
}

func sendTest(t *testing.T, env *apptest.Env, token string) notificationRecord {
	t.Helper()
	resp := env.Do(t, apptest.Request{Method: "POST", Path: "/notifications/test", Token: token})
	if resp.Status != http.StatusOK {
		t.Fatalf("test notification: %d %s", resp.Status, resp.Body)
	}
	var n notificationRecord
	resp.JSON(t, &n)
	return n
}

func TestNotificationDelivery(t *testing.T) {
	t.Parallel()
	apptest.Each(t, func(t *testing.T, env *apptest.Env) {
		token, rc := receiving(t, env)

		t.Run("exact wire format, verified by the receiver helper", func(t *testing.T) {
			id := emit(t, env, "pay-wire", 1050)
			got := rc.WaitFor(t, 1)[0]
			n := verify(t, got)
			if n.Gateway == nil || n.Gateway.Payment != "pay-wire" || n.Gateway.Amount != 1050 || n.Gateway.Status != "PENDING" || n.ID != id {
				t.Fatalf("decoded %+v %+v", n, n.Gateway)
			}
			h := got.Header
			want := map[string]string{"Content-Type": "application/json", "User-Agent": "Service/2.0",
				"X-Service-Timed": env.App.Clock().Now().UTC().Format("20060102150405"), "X-Service-Notification-Id": id}
			for k, v := range want {
				if h.Get(k) != v {
					t.Errorf("header %s = %q, want %q", k, h.Get(k), v)
				}
			}
			if _, ok := h["X-Service-Type"]; ok {
				t.Error("a gateway notification carries X-Service-Type")
			}
			if s := h.Get("X-Service-Signed"); len(s) != 64 || strings.ToLower(s) != s {
				t.Errorf("signature %q is not 64 lowercase hex digits", s)
			}
			if want := `{"payment":"pay-wire","reference":"ref-pay-wire","amount":1050,"status":"PENDING","detailedStatus":"BANK_REDIRECT"}`; string(got.Body) != want {
				t.Errorf("body %s, want %s", got.Body, want)
			}
			apptest.Eventually(t, "DELIVERED in the log", func() bool { return getNotification(t, env, token, id).Status == "DELIVERED" })
			rec := getNotification(t, env, token, id)
			if len(rec.Attempts) != 1 || !rec.Attempts[0].Success || rec.Attempts[0].ResponseStatus != 204 ||
				rec.Attempts[0].RequestHeaders["X-Service-Signed"] != h.Get("X-Service-Signed") || rec.Type != "gateway" {
				t.Fatalf("log %+v", rec)
			}
		})

		t.Run("retries follow the schedule under the clock, then FAILED", func(t *testing.T) {
			rc := apptest.NewReceiver(t)
			rc.Status(http.StatusServiceUnavailable)
			env.SetNotificationURL(t, apptest.Merchant, rc.URL)
			defer env.SetNotificationURL(t, apptest.Merchant, "")
			id := emit(t, env, "pay-retry", 1)
			rc.WaitFor(t, 1)
			for i, wait := range notify.RetrySchedule {
				apptest.Eventually(t, "the failure recorded", func() bool {
					return getNotification(t, env, token, id).AttemptCount == i+1 &&
						getNotification(t, env, token, id).NextAttemptAt != nil && len(getNotification(t, env, token, id).Attempts) == i+1
				})
				rec := getNotification(t, env, token, id)
				if due := rec.NextAttemptAt.Sub(env.App.Clock().Now()); due != wait {
					t.Fatalf("after attempt %d the retry is due in %s, want %s", i+1, due, wait)
				}
				env.Clock.Advance(wait - time.Second)
				rc.Quiet(t, i+1)
				env.Clock.Advance(time.Second)
				rc.WaitFor(t, i+2)
			}
			apptest.Eventually(t, "FAILED", func() bool { return getNotification(t, env, token, id).Status == "FAILED" })
			got := rc.Got()
			if len(got) != 6 {
				t.Fatalf("%d attempts, want 6", len(got))
			}
			for i, r := range got {
				verify(t, r)
				if r.Header.Get("X-Service-Notification-Id") != id {
					t.Fatalf("attempt %d has another notification id", i+1)
				}
				if i > 0 && r.Header.Get("X-Service-Timed") == got[i-1].Header.Get("X-Service-Timed") {
					t.Fatalf("attempt %d reuses the timestamp of the previous one", i+1)
				}
			}
			// Six consecutive failures paused the application: a test notification resumes it.
			if n := sendTest(t, env, token); n.Status != "FAILED" || n.Attempts[0].Error == "" {
				t.Fatalf("test against a failing receiver: %+v", n)
			}
		})

		t.Run("redelivery sends the same notification again", func(t *testing.T) {
			rc := apptest.NewReceiver(t)
			env.SetNotificationURL(t, apptest.Merchant, rc.URL)
			if n := sendTest(t, env, token); n.Status != "DELIVERED" || n.Type != "test" || len(n.Attempts) != 1 {
				t.Fatalf("test notification: %+v", n)
			}
			first := rc.WaitFor(t, 1)[0]
			if first.Header.Get("X-Service-Type") != "test" || string(first.Body) != "{}" {
				t.Fatalf("test notification sent %v %s", first.Header, first.Body)
			}
			verify(t, first)
			id := emit(t, env, "pay-redeliver", 7)
			rc.WaitFor(t, 2)
			apptest.Eventually(t, "DELIVERED", func() bool { return getNotification(t, env, token, id).Status == "DELIVERED" })
			resp := env.Do(t, apptest.Request{Method: "POST", Path: "/notifications/" + id + "/redeliver", Token: token})
			if resp.Status != http.StatusAccepted {
				t.Fatalf("redeliver: %d %s", resp.Status, resp.Body)
			}
			got := rc.WaitFor(t, 3)
			if got[2].Header.Get("X-Service-Notification-Id") != id || !bytes.Equal(got[2].Body, got[1].Body) {
				t.Fatalf("redelivered %v %s", got[2].Header, got[2].Body)
			}
			apptest.Eventually(t, "two attempts", func() bool {
				n := getNotification(t, env, token, id)
				return n.Status == "DELIVERED" && len(n.Attempts) == 2
			})
		})

		t.Run("POST /sandbox/clock/advance makes a retry due", func(t *testing.T) {
			rc := apptest.NewReceiver(t)
			rc.Respond(func(_ apptest.Received, n int) int {
				if n == 1 {
					return http.StatusInternalServerError
				}
				return http.StatusOK
			})
			env.SetNotificationURL(t, apptest.Merchant, rc.URL)
			id := emit(t, env, "pay-sandbox-clock", 3)
			rc.WaitFor(t, 1)
			apptest.Eventually(t, "the failure recorded", func() bool {
				return getNotification(t, env, token, id).NextAttemptAt != nil &&
					getNotification(t, env, token, id).LastError != ""
			})
			resp := env.Do(t, apptest.Request{Method: "POST", Path: "/sandbox/clock/advance", Token: token, Body: map[string]int{"seconds": 5}})
			if resp.Status != http.StatusOK {
				t.Fatalf("advance: %d %s", resp.Status, resp.Body)
			}
			rc.WaitFor(t, 2)
			apptest.Eventually(t, "DELIVERED", func() bool { return getNotification(t, env, token, id).Status == "DELIVERED" })
		})

		t.Run("redirects are failures", func(t *testing.T) {
			rc := apptest.NewReceiver(t)
			rc.Status(http.StatusFound)
			env.SetNotificationURL(t, apptest.Merchant, rc.URL)
			n := sendTest(t, env, token)
			if n.Status != "FAILED" || n.Attempts[0].ResponseStatus != 302 || !strings.Contains(n.Attempts[0].Error, "redirect") {
				t.Fatalf("%+v", n)
			}
			if len(rc.Got()) != 1 {
				t.Fatal("the redirect was followed")
			}
		})
	})
}

func TestNotificationOrderPauseAndResume(t *testing.T) {
	t.Parallel()
	apptest.Each(t, func(t *testing.T, env *apptest.Env) {
		token, rc := receiving(t, env)

		// In order per payment, even when the first one fails and waits for its retry.
		rc.Respond(func(r apptest.Received, n int) int {
			if n == 1 {
				return http.StatusInternalServerError
			}
			return http.StatusOK
		})
		for i := range 4 {
			emit(t, env, "pay-A", int64(i))
			emit(t, env, "pay-B", int64(i))
		}
		rc.WaitFor(t, 1)
		apptest.Eventually(t, "the failure recorded", func() bool {
			var failed []notificationRecord
			env.Do(t, apptest.Request{Method: "GET", Path: "/notifications?status=PENDING", Token: token}).JSON(t, &failed)
			for _, n := range failed {
				if n.LastError != "" {
					return true
				}
			}
			return false
		})
		env.Clock.Advance(5 * time.Second)
		got := rc.WaitFor(t, 9)
		seen := map[string][]int64{}
		for _, r := range got {
			g := verify(t, r).Gateway
			seen[g.Payment] = append(seen[g.Payment], g.Amount)
		}
		for _, p := range []string{"pay-A", "pay-B"} {
			amounts := seen[p]
			for i := 1; i < len(amounts); i++ {
				if amounts[i] < amounts[i-1] {
					t.Fatalf("%s delivered out of order: %v", p, amounts)
				}
			}
		}
		if fmt.Sprint(seen["pay-A"]) != "[0 0 1 2 3]" && fmt.Sprint(seen["pay-B"]) != "[0 0 1 2 3]" {
			t.Fatalf("the failed first notification was not retried before the next: %v", seen)
		}

		apptest.Eventually(t, "all eight recorded as delivered", func() bool {
			return env.Do(t, apptest.Request{Method: "GET", Path: "/notifications?status=DELIVERED", Token: token}).Header.Get("total-items") == "8"
		})

		// Six consecutive failures pause the application.
		rc.Status(http.StatusBadGateway)
		before := len(rc.Got())
		for i := range notify.PauseAfter {
			emit(t, env, fmt.Sprintf("pay-fail-%d", i), 1)
		}
		rc.WaitFor(t, before+notify.PauseAfter)
		apptest.Eventually(t, "the pause", func() bool {
			return strings.Contains(string(env.Do(t, apptest.Request{Method: "GET", Path: "/metrics"}).Body),
				"bankrail_notifications_paused_applications 1")
		})
		held := []string{emit(t, env, "pay-held", 1), emit(t, env, "pay-held", 2), emit(t, env, "pay-held", 3)}
		env.Clock.Advance(time.Hour)
		rc.Quiet(t, before+notify.PauseAfter)

		// A successful test notification resumes: everything held goes out, in order per payment.
		rc.Status(http.StatusOK)
		if n := sendTest(t, env, token); n.Status != "DELIVERED" {
			t.Fatalf("test: %+v", n)
		}
		got = rc.WaitFor(t, before+notify.PauseAfter+1+notify.PauseAfter+len(held))
		var heldAmounts []int64
		for _, r := range got[before+notify.PauseAfter+1:] {
			if g := verify(t, r).Gateway; g != nil && g.Payment == "pay-held" {
				heldAmounts = append(heldAmounts, g.Amount)
			}
		}
		if fmt.Sprint(heldAmounts) != "[1 2 3]" {
			t.Fatalf("held notifications went out as %v", heldAmounts)
		}
		for _, id := range held {
			apptest.Eventually(t, "held delivered", func() bool { return getNotification(t, env, token, id).Status == "DELIVERED" })
		}
	})
}

func TestNotificationLogAPI(t *testing.T) {
	t.Parallel()
	apptest.Each(t, func(t *testing.T, env *apptest.Env) {
		merchant, rc := receiving(t, env)
		const payLog1, payLog2 = "00000000-0000-4000-8000-00000000f001", "00000000-0000-4000-8000-00000000f002" // payment ids are uuids; the filter checks it
		first := emit(t, env, payLog1, 1)
		env.Clock.Advance(time.Minute)
		second := emit(t, env, payLog2, 2)
		rc.WaitFor(t, 2)
		apptest.Eventually(t, "both delivered", func() bool {
			return getNotification(t, env, merchant, first).Status == "DELIVERED" && getNotification(t, env, merchant, second).Status == "DELIVERED"
		})

		list := func(token, query string) ([]notificationRecord, http.Header) {
			resp := env.Do(t, apptest.Request{Method: "GET", Path: "/notifications" + query, Token: token})
			if resp.Status != http.StatusOK {
				t.Fatalf("list %s: %d %s", query, resp.Status, resp.Body)
			}
			var items []notificationRecord
			resp.JSON(t, &items)
			return items, resp.Header
		}
		items, h := list(merchant, "")
		if len(items) != 2 || items[0].ID != second || h.Get("total-items") != "2" || h.Get("page") != "1" || h.Get("limit") != "25" || h.Get("page-count") != "1" {
			t.Fatalf("list %+v %v", items, h)
		}
		if items, _ := list(merchant, "?paymentId="+payLog1); len(items) != 1 || items[0].ID != first {
			t.Fatalf("paymentId filter %+v", items)
		}
		from := apptest.Epoch.Add(30 * time.Second).Format(time.RFC3339)
		if items, _ := list(merchant, "?createdAt[gte]="+from); len(items) != 1 || items[0].ID != second {
			t.Fatalf("createdAt[gte] %+v", items)
		}
		if items, _ := list(merchant, "?createdAt[lte]="+from+"&status=DELIVERED"); len(items) != 1 || items[0].ID != first {
			t.Fatalf("createdAt[lte] %+v", items)
		}
		if items, h := list(merchant, "?limit=1&page=2"); len(items) != 1 || items[0].ID != first || h.Get("page-count") != "2" {
			t.Fatalf("page 2 %+v %v", items, h)
		}
		// The PSP above the shop sees it; another merchant does not.
		psp := env.Token(t, apptest.PSPAdmin)
		if items, _ := list(psp, ""); len(items) != 2 {
			t.Fatalf("PSP sees %d", len(items))
		}
		getNotification(t, env, psp, first)
		other := env.Token(t, apptest.OtherMerch)
		if items, _ := list(other, ""); len(items) != 0 {
			t.Fatalf("another merchant sees %d", len(items))
		}
		env.Do(t, apptest.Request{Method: "GET", Path: "/notifications/" + first, Token: other}).Error(t, 404, "RESOURCE_NOT_FOUND")
		env.Do(t, apptest.Request{Method: "POST", Path: "/notifications/" + first + "/redeliver", Token: other}).Error(t, 404, "RESOURCE_NOT_FOUND")
		env.Do(t, apptest.Request{Method: "GET", Path: "/notifications/not-a-uuid", Token: merchant}).Error(t, 400, "MALFORMED_PATH_PARAM")
		env.Do(t, apptest.Request{Method: "POST", Path: "/notifications/42/redeliver", Token: merchant}).Error(t, 400, "MALFORMED_PATH_PARAM")
		env.Do(t, apptest.Request{Method: "GET", Path: "/notifications?status=LOST", Token: merchant}).Error(t, 400, "INVALID_QUERY_PARAM")
		env.Do(t, apptest.Request{Method: "GET", Path: "/notifications?limit=101", Token: merchant}).Error(t, 400, "INVALID_QUERY_PARAM")
		env.Do(t, apptest.Request{Method: "GET", Path: "/notifications?createdAt[gte]=yesterday", Token: merchant}).Error(t, 400, "INVALID_QUERY_PARAM")
		env.Do(t, apptest.Request{Method: "GET", Path: "/notifications"}).Error(t, 401, "UNAUTHORISED")
		viewer := env.Token(t, apptest.Viewer)
		list(viewer, "")
		env.Do(t, apptest.Request{Method: "POST", Path: "/notifications/test", Token: viewer}).Error(t, 403, "ACCESS_DENIED")
		env.Do(t, apptest.Request{Method: "POST", Path: "/notifications/test", Token: other}).Error(t, 409, "CONFLICT") // no URL set
	})
}

func TestNotificationProductionGuard(t *testing.T) {
	t.Parallel()
	apptest.Each(t, func(t *testing.T, env *apptest.Env) {
		rc := apptest.NewReceiver(t)
		env.SetNotificationURL(t, apptest.Merchant, rc.URL) // 127.0.0.1: refused in production
		n := sendTest(t, env, env.Token(t, apptest.Merchant))
		if n.Status != "FAILED" || !strings.Contains(n.Attempts[0].Error, "refused in production") {
			t.Fatalf("%+v", n)
		}
		if len(rc.Got()) != 0 {
			t.Fatal("a loopback receiver was reached in production")
		}
	}, apptest.Production)
}
