package httpapi_test

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/bankrail/bankrail/internal/apptest"
)

// legacyCancel calls POST /legacy/payments/{id}/cancel.
func legacyCancel(t *testing.T, env *apptest.Env, token, id string) *apptest.Response {
	t.Helper()
	return env.Do(t, apptest.Request{Method: "POST", Path: legacyPaymentsPath + "/" + id + "/cancel", Token: token})
}

// TestLegacyCancel: a payment the payer has not authorised yet (NEW_PAYMENT,
// BANK_REDIRECT) ends ABANDONED_BY_USER with its FAILED notification, once;
// any later status is 409 with the reason, in the legacy shape.
func TestLegacyCancel(t *testing.T) {
	t.Parallel()
	apptest.Each(t, func(t *testing.T, env *apptest.Env) {
		token := env.Token(t, apptest.Merchant)
		rc := apptest.NewReceiver(t)
		create := func(t *testing.T, scenario string) legacyCreated {
			t.Helper()
			b := legacyBody()
			b["notificationUrl"] = rc.URL + "/hook"
			delete(b, "bank")
			h := map[string]string{}
			if scenario != "" {
				h[scenarioHeader] = scenario
			}
			return mustCreateLegacy(t, env, token, b, h)
		}
		for _, tc := range []struct {
			name, from string
			notes      string // the gateway notifications, the cancel's last
		}{
			{"new payment", "NEW_PAYMENT", "FAILED/ABANDONED_BY_USER"},
			{"at the bank", "BANK_REDIRECT", "PENDING/BANK_REDIRECT FAILED/ABANDONED_BY_USER"},
		} {
			t.Run(tc.name, func(t *testing.T) {
				c := create(t, "")
				if tc.from == "BANK_REDIRECT" {
					u, err := url.Parse(c.CheckoutURL)
					if err != nil {
						t.Fatal(err)
					}
					if _, err := env.App.Payments().GoToBank(context.Background(), c.ID, u.Query().Get("token"), bankDE); err != nil {
						t.Fatalf("the payer picks a bank: %v", err)
					}
				}
				for range 2 { // the second cancel finds it cancelled and answers the same
					resp := legacyCancel(t, env, token, c.ID)
					apptest.CheckDeprecated(t, resp.Header)
					var got struct{ PaymentID, Status string }
					resp.JSON(t, &got)
					if resp.Status != http.StatusOK || got.PaymentID != c.ID || got.Status != "ABANDONED_BY_USER" {
						t.Fatalf("cancel: %d %s", resp.Status, resp.Body)
					}
				}
				if notes := gatewayNotes(t, rc, c.ID, len(strings.Fields(tc.notes))); notes != tc.notes {
					t.Fatalf("notifications %q, want %q", notes, tc.notes)
				}
				rc.Quiet(t, len(rc.Got())) // the second cancel sent nothing
				if status, hist := statusHistory(t, env, token, c.ID); status != "ABANDONED_BY_USER" || !strings.HasSuffix(hist, tc.from+" ABANDONED_BY_USER") {
					t.Fatalf("status %s, history %s", status, hist)
				}
			})
		}
		for _, tc := range []struct {
			name, scenario, reason string
		}{
			{"completed", "COMPLETED", "This payment has already ended (status COMPLETED): it can no longer be cancelled."},
			{"cancelled by the payer", "CANCELLED_BY_USER", "This payment has already ended (status CANCELLED_BY_USER): it can no longer be cancelled."},
			{"delayed at the bank", "DELAYED_AT_BANK>COMPLETED", "The payer has already authorised this payment (status DELAYED_AT_BANK): it can no longer be cancelled."},
		} {
			t.Run("refused: "+tc.name, func(t *testing.T) {
				c := create(t, tc.scenario)
				e := legacyCancel(t, env, token, c.ID).LegacyError(t, http.StatusConflict)
				if e.Exception.Message != tc.reason {
					t.Fatalf("reason %q, want %q", e.Exception.Message, tc.reason)
				}
			})
		}
		t.Run("not a payment", func(t *testing.T) {
			legacyCancel(t, env, token, "not-a-uuid").LegacyError(t, http.StatusBadRequest)
			legacyCancel(t, env, token, "00000000-0000-4000-8000-00000000dead").LegacyError(t, http.StatusNotFound)
		})
	})
}

// TestLegacyPaymentRead: GET /legacy/payments/{id} reads any payment of the
// caller, with merchantInternalReference only when it has one.
func TestLegacyPaymentRead(t *testing.T) {
	t.Parallel()
	apptest.Each(t, func(t *testing.T, env *apptest.Env) {
		token := env.Token(t, apptest.Merchant)
		read := func(id string) (*apptest.Response, map[string]any) {
			resp := env.Do(t, apptest.Request{Method: "GET", Path: legacyPaymentsPath + "/" + id, Token: token})
			var got map[string]any
			resp.JSON(t, &got)
			return resp, got
		}
		c := mustCreateLegacy(t, env, token, legacyBody(), nil)
		resp, got := read(c.ID)
		apptest.CheckDeprecated(t, resp.Header)
		if resp.Status != http.StatusOK || got["id"] != c.ID || got["status"] != "NEW_PAYMENT" || got["merchantInternalReference"] != "order-42" ||
			got["amount"] != float64(1050) || got["currency"] != "EUR" || got["uniqueReference"] != "Order 42" {
			t.Fatalf("legacy read: %d %v", resp.Status, got)
		}
		global := mustCreate(t, env, token, with(euBody(), "internalReference", nil), nil)
		if resp, got := read(global.ID); resp.Status != http.StatusOK || got["status"] != "NEW_PAYMENT" {
			t.Fatalf("a Global payment read through the legacy API: %d %v", resp.Status, got)
		} else if _, ok := got["merchantInternalReference"]; ok {
			t.Fatalf("merchantInternalReference of a payment without one: %v", got)
		}
		if resp, _ := read("0000"); resp.Status != http.StatusBadRequest {
			t.Fatalf("malformed id: %d", resp.Status)
		}
	})
}

// TestLegacyTokenTakesJSONAndAnswersErrorsInTheTokenShape: POST
// /legacy/oauth takes JSON too; its errors are {code, message} (code the
// HTTP status) with the legacy exception beside it.
func TestLegacyTokenTakesJSONAndAnswersErrorsInTheTokenShape(t *testing.T) {
	t.Parallel()
	env := apptest.New(t)
	login := map[string]string{"grant_type": "password", "client_id": apptest.Merchant.ClientID, "client_secret": apptest.Merchant.ClientSecret,
		"username": apptest.Merchant.Username, "password": apptest.Merchant.Password}
	resp := env.Do(t, apptest.Request{Method: "POST", Path: "/legacy/oauth", Body: login})
	var tok apptest.Tokens
	resp.JSON(t, &tok)
	if resp.Status != http.StatusOK || tok.AccessToken == "" || tok.ExpiresIn != 86400 {
		t.Fatalf("JSON token: %d %s", resp.Status, resp.Body)
	}
	for _, tc := range []struct {
		name   string
		body   any
		status int
	}{
		{"wrong password", with2(login, "password", "wrong"), http.StatusUnauthorized},
		{"no client_id", with2(login, "client_id", ""), http.StatusUnprocessableEntity},
		{"malformed JSON", `{"grant_type":`, http.StatusBadRequest},
	} {
		t.Run(tc.name, func(t *testing.T) {
			resp := env.Do(t, apptest.Request{Method: "POST", Path: "/legacy/oauth", Body: tc.body, Header: map[string]string{"Content-Type": "application/json"}})
			var e struct {
				Code      int    `json:"code"`
				Message   string `json:"message"`
				Exception struct {
					Code    int    `json:"code"`
					Message string `json:"message"`
				} `json:"exception"`
			}
			resp.JSON(t, &e)
			if resp.Status != tc.status || e.Code != tc.status || e.Message == "" || e.Exception.Code != tc.status || e.Exception.Message != e.Message {
				t.Fatalf("%d %s", resp.Status, resp.Body)
			}
		})
	}
}

// with2 is login with key set to v (removed when v is empty).
func with2(login map[string]string, key, v string) map[string]string {
	out := map[string]string{}
	for k, x := range login {
		out[k] = x
	}
	if v == "" {
		delete(out, key)
	} else {
		out[key] = v
	}
	return out
}
