package httpapi_test

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"slices"
	"testing"
	"time"

	"github.com/bankrail/bankrail/internal/apptest"
	"github.com/bankrail/bankrail/notification"
)

// chaosJSON is the answer of the chaos endpoints.
type chaosJSON struct {
	ClientID                      string     `json:"clientId"`
	DuplicatePercent              int        `json:"duplicatePercent"`
	DelayPercent                  int        `json:"delayPercent"`
	DelaySeconds                  int64      `json:"delaySeconds"`
	ReorderPercent                int        `json:"reorderPercent"`
	CompletedAfterReceivedPercent int        `json:"completedAfterReceivedPercent"`
	Seed                          int64      `json:"seed"`
	PreviousSecretValidUntil      *time.Time `json:"previousSecretValidUntil"`
}

// setChaos replaces the chaos settings of the application of token.
func setChaos(t *testing.T, env *apptest.Env, token string, settings map[string]any) chaosJSON {
	t.Helper()
	resp := env.Do(t, apptest.Request{Method: "PUT", Path: "/sandbox/notification-chaos", Token: token, Header: v1, Body: settings})
	if resp.Status != http.StatusOK {
		t.Fatalf("PUT chaos: %d %s", resp.Status, resp.Body)
	}
	var c chaosJSON
	resp.JSON(t, &c)
	return c
}

// chaosLog is the delivery log's view of a notification with its chaos.
type chaosLog struct {
	ID           string   `json:"id"`
	Status       string   `json:"status"`
	AttemptCount int      `json:"attemptCount"`
	Chaos        []string `json:"chaos"`
	Attempts     []struct {
		Chaos          string            `json:"chaos"`
		Success        bool              `json:"success"`
		RequestHeaders map[string]string `json:"requestHeaders"`
	} `json:"attempts"`
}

func chaosLogOf(t *testing.T, env *apptest.Env, token, id string) chaosLog {
	t.Helper()
	var n chaosLog
	env.Do(t, apptest.Request{Method: "GET", Path: "/notifications/" + id, Token: token}).JSON(t, &n)
	return n
}

// verifyWith checks a received notification with the public verifier v.
func verifyWith(v notification.Verifier, r apptest.Received) error {
	req := httptest.NewRequest(http.MethodPost, "/hook", bytes.NewReader(r.Body))
	req.Header = r.Header
	_, err := v.Read(req)
	return err
}

// advanceTenant moves the sandbox clock of the caller's tenant.
func advanceTenant(t *testing.T, env *apptest.Env, token string, seconds int64) {
	t.Helper()
	resp := env.Do(t, apptest.Request{Method: "POST", Path: "/sandbox/clock/advance", Token: token, Body: map[string]any{"seconds": seconds}})
	if resp.Status != http.StatusOK {
		t.Fatalf("advance: %d %s", resp.Status, resp.Body)
	}
}

// A duplicated notification arrives twice with the same id, both signed,
// and the second attempt is marked duplicate in the delivery log.
func TestChaosDuplicates(t *testing.T) {
	t.Parallel()
	apptest.Each(t, func(t *testing.T, env *apptest.Env) {
		token, rc := receiving(t, env)
		if c := setChaos(t, env, token, map[string]any{"duplicatePercent": 100}); c.DuplicatePercent != 100 || c.ClientID != "shop-client" {
			t.Fatalf("settings %+v", c)
		}
		id := emit(t, env, "pay-dup", 100)
		got := rc.WaitFor(t, 2)
		for _, r := range got {
			if n := verify(t, r); n.ID != id {
				t.Fatalf("notification id %s, want %s", n.ID, id)
			}
		}
		var log chaosLog
		apptest.Eventually(t, "two attempts in the log", func() bool {
			log = chaosLogOf(t, env, token, id)
			return len(log.Attempts) == 2 && log.Status == "DELIVERED"
		})
		if log.Status != "DELIVERED" || log.Attempts[0].Chaos != "" || log.Attempts[1].Chaos != "duplicate" || !log.Attempts[1].Success {
			t.Fatalf("log %+v", log)
		}
		rc.Quiet(t, 2)
	})
}

// A delayed notification waits on the tenant's sandbox clock, not the wall
// clock: nothing is sent until the tenant's clock passes the delay.
func TestChaosDelays(t *testing.T) {
	t.Parallel()
	apptest.Each(t, func(t *testing.T, env *apptest.Env) {
		token, rc := receiving(t, env)
		setChaos(t, env, token, map[string]any{"delayPercent": 100, "delaySeconds": 600})
		id := emit(t, env, "pay-delay", 100)
		var log chaosLog
		apptest.Eventually(t, "the notification held back", func() bool {
			log = chaosLogOf(t, env, token, id)
			return slices.Contains(log.Chaos, "delayed")
		})
		if log.Status != "PENDING" || log.AttemptCount != 0 || len(log.Attempts) != 0 {
			t.Fatalf("held notification %+v", log)
		}
		rc.Quiet(t, 0)
		advanceTenant(t, env, token, 599)
		rc.Quiet(t, 0)
		advanceTenant(t, env, token, 1)
		if n := verify(t, rc.WaitFor(t, 1)[0]); n.ID != id {
			t.Fatalf("delivered %s, want %s", n.ID, id)
		}
		apptest.Eventually(t, "delivered in the log", func() bool { return chaosLogOf(t, env, token, id).Status == "DELIVERED" })
	})
}

// A reordered notification is held until a later notification of another
// payment has been delivered: the receiver gets the later one first.
func TestChaosReorders(t *testing.T) {
	t.Parallel()
	apptest.Each(t, func(t *testing.T, env *apptest.Env) {
		token, rc := receiving(t, env)
		setChaos(t, env, token, map[string]any{"reorderPercent": 100})
		first := emit(t, env, "pay-first", 100)
		apptest.Eventually(t, "the first notification held", func() bool {
			return slices.Contains(chaosLogOf(t, env, token, first).Chaos, "reordered")
		})
		rc.Quiet(t, 0)
		second := emit(t, env, "pay-second", 200)
		got := rc.WaitFor(t, 2)
		if a, b := verify(t, got[0]), verify(t, got[1]); a.ID != second || b.ID != first || a.Gateway.Payment != "pay-second" {
			t.Fatalf("arrived %s then %s, want %s then %s", a.ID, b.ID, second, first)
		}
		if log := chaosLogOf(t, env, token, second); len(log.Chaos) != 0 {
			t.Fatalf("the overtaking notification is marked %v", log.Chaos)
		}
	})
}

// With completedAfterReceivedPercent, a Connect payment's COMPLETED arrives
// after its payment_received (the contract's rule 1), both verifying.
func TestChaosCompletedAfterReceived(t *testing.T) {
	t.Parallel()
	apptest.Each(t, func(t *testing.T, env *apptest.Env) {
		openAccount(t, env, apptest.ShopID, "EUR", "Shop EUR")
		token, rc := receiving(t, env)
		setChaos(t, env, token, map[string]any{"completedAfterReceivedPercent": 100})
		paid := mustCreate(t, env, token, expectedBody(rc, 1050, "Order 1"), map[string]string{scenarioHeader: "COMPLETED"})
		connectNotes(t, rc, paid.ID, 1)
		gatewayNotes(t, rc, paid.ID, 2)
		var order []string
		completed := ""
		for _, r := range rc.Got() {
			n := verify(t, r)
			switch {
			case n.Connect != nil && n.Connect.Payment == paid.ID:
				order = append(order, n.Type)
			case n.Gateway != nil && n.Gateway.Payment == paid.ID:
				order = append(order, n.Gateway.Status)
				if n.Gateway.Status == "COMPLETED" {
					completed = n.ID
				}
			}
		}
		if i, j := slices.Index(order, "payment_received"), slices.Index(order, "COMPLETED"); i < 0 || j < i {
			t.Fatalf("order %v: COMPLETED must come after payment_received", order)
		}
		if log := chaosLogOf(t, env, token, completed); !slices.Equal(log.Chaos, []string{"completedAfterReceived"}) {
			t.Fatalf("the COMPLETED's log %+v", log)
		}
	})
}

// A rotation answers the new secret; during the overlap every notification
// carries the previous secret's signature in X-Service-Signed and the new
// one's in X-Service-Signed-Next, so a receiver with either verifies; after
// it, only the new secret signs.
func TestNotificationSecretRotation(t *testing.T) {
	t.Parallel()
	apptest.Each(t, func(t *testing.T, env *apptest.Env) {
		token, rc := receiving(t, env)
		old := apptest.NotificationSecrets["shop-client"]
		rotate := func(token string, body any) *apptest.Response {
			return env.Do(t, apptest.Request{Method: "POST", Path: "/notification-secret/rotate", Token: token, Header: v1, Body: body})
		}
		rotate(env.Token(t, apptest.Viewer), map[string]any{"overlapSeconds": 60}).Error(t, http.StatusForbidden, "ACCESS_DENIED")
		rotate(token, map[string]any{}).Error(t, http.StatusUnprocessableEntity, "VALIDATION_FAILURE")
		rotate(token, map[string]any{"overlapSeconds": 2592001}).Error(t, http.StatusUnprocessableEntity, "VALIDATION_FAILURE")
		resp := rotate(token, map[string]any{"overlapSeconds": 3600})
		var rot struct {
			NotificationSecret       string     `json:"notificationSecret"`
			PreviousSecretValidUntil *time.Time `json:"previousSecretValidUntil"`
		}
		resp.JSON(t, &rot)
		if resp.Status != http.StatusOK || len(rot.NotificationSecret) != 48 || rot.PreviousSecretValidUntil == nil {
			t.Fatalf("rotate: %d %s", resp.Status, resp.Body)
		}
		var c chaosJSON
		env.Do(t, apptest.Request{Method: "GET", Path: "/sandbox/notification-chaos", Token: token, Header: v1}).JSON(t, &c)
		if c.PreviousSecretValidUntil == nil || !c.PreviousSecretValidUntil.Equal(*rot.PreviousSecretValidUntil) {
			t.Fatalf("chaos view during the overlap %+v", c)
		}
		emit(t, env, "pay-overlap", 100)
		during := rc.WaitFor(t, 1)[0]
		if during.Header.Get(notification.HeaderSignedNext) == "" {
			t.Fatalf("no %s during the overlap: %v", notification.HeaderSignedNext, during.Header)
		}
		for _, v := range []notification.Verifier{{Secret: old}, {Secret: rot.NotificationSecret},
			{Secret: rot.NotificationSecret, PreviousSecret: old}} {
			if err := verifyWith(v, during); err != nil {
				t.Fatalf("during the overlap a receiver with %+v refuses: %v", v, err)
			}
		}
		if err := verifyWith(notification.Verifier{Secret: "not-the-secret"}, during); err == nil {
			t.Fatal("a wrong secret verifies")
		}
		advanceTenant(t, env, token, 3600)
		token = env.Token(t, apptest.Merchant)
		emit(t, env, "pay-after", 100)
		after := rc.WaitFor(t, 2)[1]
		if after.Header.Get(notification.HeaderSignedNext) != "" {
			t.Fatalf("%s after the overlap", notification.HeaderSignedNext)
		}
		if err := verifyWith(notification.Verifier{Secret: old}, after); err == nil {
			t.Fatal("the previous secret still verifies after the overlap")
		}
		if err := verifyWith(notification.Verifier{Secret: rot.NotificationSecret, PreviousSecret: old}, after); err != nil {
			t.Fatalf("after the overlap: %v", err)
		}
		c = chaosJSON{}
		env.Do(t, apptest.Request{Method: "GET", Path: "/sandbox/notification-chaos", Token: token, Header: v1}).JSON(t, &c)
		if c.PreviousSecretValidUntil != nil {
			t.Fatalf("previousSecretValidUntil after the overlap: %v", c.PreviousSecretValidUntil)
		}
	})
}

// Bad settings are refused field by field; READ_ONLY reads but cannot
// change them; the header X-Service-Api-Version is required.
func TestChaosSettingsValidation(t *testing.T) {
	t.Parallel()
	env := apptest.New(t)
	token := env.Token(t, apptest.Merchant)
	put := func(token string, body any) *apptest.Response {
		return env.Do(t, apptest.Request{Method: "PUT", Path: "/sandbox/notification-chaos", Token: token, Header: v1, Body: body})
	}
	e := put(token, map[string]any{"duplicatePercent": 101, "delayPercent": 10, "reorderPercent": -1}).
		Error(t, http.StatusUnprocessableEntity, "VALIDATION_FAILURE")
	var got []string
	for _, f := range e.Errors {
		got = append(got, f.PropertyPath)
	}
	if !slices.Equal(got, []string{"duplicatePercent", "reorderPercent", "delaySeconds"}) {
		t.Fatalf("fields %v", got)
	}
	put(env.Token(t, apptest.Viewer), map[string]any{}).Error(t, http.StatusForbidden, "ACCESS_DENIED")
	if resp := env.Do(t, apptest.Request{Method: "GET", Path: "/sandbox/notification-chaos", Token: env.Token(t, apptest.Viewer), Header: v1}); resp.Status != http.StatusOK {
		t.Fatalf("READ_ONLY GET: %d %s", resp.Status, resp.Body)
	}
	env.Do(t, apptest.Request{Method: "GET", Path: "/sandbox/notification-chaos", Token: token}).Error(t, http.StatusBadRequest, "MISSING_HTTP_HEADER")
	c := setChaos(t, env, token, map[string]any{"delayPercent": 10, "delaySeconds": 60, "seed": 7})
	if c.DelayPercent != 10 || c.DelaySeconds != 60 || c.Seed != 7 || c.DuplicatePercent != 0 {
		t.Fatalf("settings %+v", c)
	}
	if c := setChaos(t, env, token, map[string]any{}); c.DelayPercent != 0 || c.Seed != 0 {
		t.Fatalf("a PUT replaces every setting: %+v", c)
	}
}
