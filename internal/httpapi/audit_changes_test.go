package httpapi_test

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/bankrail/bankrail/internal/apptest"
	"github.com/bankrail/bankrail/internal/clock"
)

// The changes made outside a domain unit of work (the sandbox clock's
// advance and reset, a notification's redelivery, a test notification,
// resuming notifications) each leave one audit row naming what changed;
// the refused ones (validation, the clock's bound, an unknown
// notification) leave none.
func TestAuditOfClockAndNotificationChanges(t *testing.T) {
	t.Parallel()
	apptest.Each(t, func(t *testing.T, env *apptest.Env) {
		// Near the clock's bound (outside any request: not audited), so that
		// an advance is refused by the store itself.
		const left = 10
		if _, err := env.App.Store().TenantClocks().AdvanceTenantClock(context.Background(), apptest.PSPID,
			clock.MaxOffset-left*time.Second, clock.MaxOffset); err != nil {
			t.Fatal(err)
		}
		ahead := env.Login(t, apptest.Merchant).AccessToken // issued on the clock ahead
		as := func(tok string) func(method, path, requestID string, body any, status int) *apptest.Response {
			return func(method, path, requestID string, body any, status int) *apptest.Response {
				t.Helper()
				resp := env.Do(t, apptest.Request{Method: method, Path: path, Token: tok, Body: body,
					Header: map[string]string{"X-Request-Id": requestID}})
				if resp.Status != status {
					t.Fatalf("%s %s: %d %s, want %d", method, path, resp.Status, resp.Body, status)
				}
				return resp
			}
		}
		var tenant sandboxClock
		as(ahead)("POST", "/sandbox/clock/advance", "advance-over", map[string]int{"seconds": left + 1}, http.StatusUnprocessableEntity)
		as(ahead)("POST", "/sandbox/clock/advance", "advance-invalid", map[string]int{"seconds": 0}, http.StatusUnprocessableEntity)
		as(ahead)("POST", "/sandbox/clock/advance", "advance-1", map[string]int{"seconds": 1}, http.StatusOK).JSON(t, &tenant)
		// A token is checked on the tenant's clock: sign in again after the advance.
		as(env.Login(t, apptest.Merchant).AccessToken)("POST", "/sandbox/clock/reset", "reset-1", nil, http.StatusOK)
		token, rc := receiving(t, env)
		do := as(token)
		var note notificationRecord
		do("POST", "/notifications/test", "test-1", nil, http.StatusOK).JSON(t, &note)
		if len(rc.Got()) != 1 {
			t.Fatalf("test notification not received: %d", len(rc.Got()))
		}
		do("POST", "/notifications/"+note.ID+"/redeliver", "redeliver-1", nil, http.StatusAccepted)
		do("POST", "/notifications/00000000-0000-4000-8000-00000000ffff/redeliver", "redeliver-unknown", nil, http.StatusNotFound)
		do("POST", "/notifications/resume", "resume-1", nil, http.StatusOK)

		rows := reportRows(t, env, token, "/reports/auditlog", period(nil))
		got := map[string][]string{}
		for _, r := range rows[1:] {
			got[r[7]] = append(got[r[7]], strings.Join([]string{r[4], r[5], r[6]}, " "))
		}
		want := map[string]string{
			"advance-1":   "POST /sandbox/clock/advance sandbox_clock " + tenant.TenantID,
			"reset-1":     "POST /sandbox/clock/reset sandbox_clock " + tenant.TenantID,
			"test-1":      "POST /notifications/test notification " + note.ID,
			"redeliver-1": "POST /notifications/{id}/redeliver notification " + note.ID,
			"resume-1":    "POST /notifications/resume application " + apptest.Merchant.ClientID,
		}
		for id, w := range want {
			if len(got[id]) != 1 || got[id][0] != w {
				t.Errorf("request %s: audit rows %q, want one %q", id, got[id], w)
			}
		}
		for _, id := range []string{"advance-over", "advance-invalid", "redeliver-unknown"} {
			if len(got[id]) != 0 {
				t.Errorf("refused request %s left audit rows %q", id, got[id])
			}
		}
	})
}
