package httpapi_test

import (
	"net/http"
	"testing"
	"time"

	"github.com/bankrail/bankrail/internal/apptest"
	"github.com/bankrail/bankrail/internal/inbox"
	"github.com/bankrail/bankrail/notification"
)

// A notification signed with the previous secret only (signed just before
// a rotation, delivered after it) is genuine in the inbox while the
// rotation's overlap lasts, as for a receiver that keeps both secrets, and
// not after it; one signed with the new secret always is.
func TestSandboxInboxAcceptsThePreviousSecretDuringTheOverlap(t *testing.T) {
	t.Parallel()
	apptest.Each(t, func(t *testing.T, env *apptest.Env) {
		token := env.Token(t, apptest.Merchant)
		old := apptest.NotificationSecrets[apptest.Merchant.ClientID]
		var rot struct {
			NotificationSecret string `json:"notificationSecret"`
		}
		env.Do(t, apptest.Request{Method: "POST", Path: "/notification-secret/rotate", Token: token, Header: v1,
			Body: map[string]any{"overlapSeconds": 60}}).JSON(t, &rot)
		if rot.NotificationSecret == "" || rot.NotificationSecret == old {
			t.Fatalf("rotation answered %+v", rot)
		}
		post := func(secret string) *apptest.Response {
			body := `{"payment":"pay-rotated","status":"PENDING"}`
			timed := "20260601090000"
			return env.Do(t, apptest.Request{Method: "POST", Path: inbox.Path(apptest.Merchant.ClientID), Body: body,
				Header: map[string]string{"X-Service-Timed": timed, "User-Agent": "Service/" + notification.Version,
					"X-Service-Signed": notification.Sign(secret, []byte(body), timed, notification.Version)}})
		}
		for _, secret := range []string{old, rot.NotificationSecret} {
			if resp := post(secret); resp.Status != http.StatusNoContent {
				t.Fatalf("during the overlap, signed with the %s secret: %d %s", map[bool]string{true: "previous", false: "new"}[secret == old], resp.Status, resp.Body)
			}
		}
		advanceTenant(t, env, token, 60)
		post(old).Error(t, http.StatusBadRequest, "BAD_REQUEST")
		if resp := post(rot.NotificationSecret); resp.Status != http.StatusNoContent {
			t.Fatalf("after the overlap, signed with the new secret: %d %s", resp.Status, resp.Body)
		}
		items, _ := listInbox(t, env, env.Token(t, apptest.Merchant), "")
		if len(items) != 4 || !items[0].SignatureValid || items[1].SignatureValid || !items[2].SignatureValid || !items[3].SignatureValid {
			t.Fatalf("inbox verdicts %+v", items)
		}
	})
}

// inboxEntry is GET /sandbox/inbox's view of a received notification.
type inboxEntry struct {
	ID             string            `json:"id"`
	ClientID       string            `json:"clientId"`
	NotificationID string            `json:"notificationId"`
	Type           string            `json:"type"`
	Headers        map[string]string `json:"headers"`
	Body           string            `json:"body"`
	SignatureValid bool              `json:"signatureValid"`
	Error          string            `json:"error"`
}

func listInbox(t *testing.T, env *apptest.Env, token, query string) ([]inboxEntry, http.Header) {
	t.Helper()
	resp := env.Do(t, apptest.Request{Method: "GET", Path: "/sandbox/inbox" + query, Token: token})
	if resp.Status != http.StatusOK {
		t.Fatalf("inbox %s: %d %s", query, resp.Status, resp.Body)
	}
	var items []inboxEntry
	resp.JSON(t, &items)
	return items, resp.Header
}

func TestSandboxInboxReceivesSignedNotifications(t *testing.T) {
	t.Parallel()
	apptest.Each(t, func(t *testing.T, env *apptest.Env) {
		// The shop's notifications go to its sandbox inbox on this very instance, over HTTP.
		env.SetNotificationURL(t, apptest.Merchant, env.URL+inbox.Path(apptest.Merchant.ClientID))
		token := env.Token(t, apptest.Merchant)
		if n := sendTest(t, env, token); n.Status != "DELIVERED" || n.Attempts[0].ResponseStatus != http.StatusNoContent {
			t.Fatalf("test notification to the inbox: %+v", n)
		}
		env.Clock.Advance(time.Minute)
		id := emit(t, env, "pay-inbox", 1050)
		apptest.Eventually(t, "DELIVERED to the inbox", func() bool { return getNotification(t, env, token, id).Status == "DELIVERED" })

		items, h := listInbox(t, env, token, "")
		if len(items) != 2 || h.Get("total-items") != "2" || h.Get("page-count") != "1" || h.Get("limit") != "25" {
			t.Fatalf("inbox %+v %v", items, h)
		}
		got := items[0] // newest first
		if got.NotificationID != id || got.Type != "gateway" || !got.SignatureValid || got.ClientID != apptest.Merchant.ClientID ||
			got.Body != `{"payment":"pay-inbox","reference":"ref-pay-inbox","amount":1050,"status":"PENDING","detailedStatus":"BANK_REDIRECT"}` {
			t.Fatalf("entry %+v", got)
		}
		hdr := http.Header{}
		for k, v := range got.Headers {
			hdr.Set(k, v)
		}
		if err := notification.Verify(apptest.NotificationSecrets[apptest.Merchant.ClientID], hdr, []byte(got.Body)); err != nil {
			t.Fatalf("the kept headers and body do not verify: %v (%v)", err, got.Headers)
		}
		if items[1].Type != "test" || !items[1].SignatureValid || items[1].Body != "{}" {
			t.Fatalf("test entry %+v", items[1])
		}
		if page, h := listInbox(t, env, token, "?limit=1&page=2"); len(page) != 1 || page[0].Type != "test" || h.Get("page-count") != "2" {
			t.Fatalf("page 2 %+v %v", page, h)
		}

		// A forged notification is kept as invalid and refused.
		forged := env.Do(t, apptest.Request{Method: "POST", Path: inbox.Path(apptest.Merchant.ClientID), Body: `{"payment":"x"}`,
			Header: map[string]string{"X-Service-Timed": "20260601090000", "X-Service-Signed": "00"}})
		forged.Error(t, 400, "BAD_REQUEST")
		if items, _ := listInbox(t, env, token, ""); len(items) != 3 || items[0].SignatureValid || items[0].Error == "" {
			t.Fatalf("forged entry %+v", items[0])
		}
		env.Do(t, apptest.Request{Method: "POST", Path: inbox.Path("no-such-client"), Body: `{}`}).Error(t, 404, "RESOURCE_NOT_FOUND")

		// Tenancy: the PSP above sees the shop's inbox, another merchant sees nothing, READ_ONLY reads.
		if items, _ := listInbox(t, env, env.Token(t, apptest.PSPAdmin), ""); len(items) != 3 {
			t.Fatalf("PSP sees %d", len(items))
		}
		if items, h := listInbox(t, env, env.Token(t, apptest.OtherMerch), ""); len(items) != 0 || h.Get("total-items") != "0" {
			t.Fatalf("another merchant sees %+v", items)
		}
		if items, _ := listInbox(t, env, env.Token(t, apptest.Viewer), ""); len(items) != 3 {
			t.Fatalf("READ_ONLY sees %d", len(items))
		}
		env.Do(t, apptest.Request{Method: "GET", Path: "/sandbox/inbox"}).Error(t, 401, "UNAUTHORISED")
		env.Do(t, apptest.Request{Method: "GET", Path: "/sandbox/inbox?limit=101", Token: token}).Error(t, 400, "INVALID_QUERY_PARAM")
	}, apptest.ServedAtPublicURL)
}

func TestSandboxInboxAbsentInProduction(t *testing.T) {
	t.Parallel()
	env := apptest.New(t, apptest.Production)
	env.Do(t, apptest.Request{Method: "GET", Path: "/sandbox/inbox", Token: env.Token(t, apptest.Merchant)}).Error(t, 404, "RESOURCE_NOT_FOUND")
	env.Do(t, apptest.Request{Method: "POST", Path: inbox.Path(apptest.Merchant.ClientID), Body: `{}`}).Error(t, 404, "RESOURCE_NOT_FOUND")
}
