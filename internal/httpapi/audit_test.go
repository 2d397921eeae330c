package httpapi_test

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/bankrail/bankrail/internal/apptest"
)

// TestAuditLogReport signs in, fails to sign in, refreshes a token and
// creates a payment, then reads the AUDIT_LOG report: one row each, in the
// merchant's log, and no secret anywhere in the file.
func TestAuditLogReport(t *testing.T) {
	apptest.Each(t, func(t *testing.T, env *apptest.Env) {
		ctx := context.Background()
		user, err := env.App.Store().GetUserByUsername(ctx, apptest.Merchant.Username)
		if err != nil {
			t.Fatal(err)
		}
		tokens := env.Login(t, apptest.Merchant)
		bad := apptest.Merchant
		bad.Password = "wrong-password-123"
		resp := env.Do(t, apptest.Request{Method: "POST", Path: "/oauth", Body: map[string]string{"grant_type": "password",
			"client_id": bad.ClientID, "client_secret": bad.ClientSecret, "username": bad.Username, "password": bad.Password},
			Header: map[string]string{"X-Request-Id": "failed-sign-in-1"}})
		resp.Error(t, http.StatusUnauthorized, "UNAUTHORISED")
		resp = env.Do(t, apptest.Request{Method: "POST", Path: "/oauth", Body: map[string]string{"grant_type": "refresh_token",
			"client_id": apptest.Merchant.ClientID, "client_secret": apptest.Merchant.ClientSecret, "refresh_token": tokens.RefreshToken}})
		if resp.Status != http.StatusOK {
			t.Fatalf("refresh: %d %s", resp.Status, resp.Body)
		}
		var refreshed apptest.Tokens
		resp.JSON(t, &refreshed)
		payment := env.CreatePayment(t, tokens.AccessToken, "hosted", apptest.EUPayment(), map[string]string{"X-Request-Id": "create-1"}).ID
		// A refused change (validation) leaves no row.
		env.Do(t, apptest.Request{Method: "POST", Path: "/payments", Token: tokens.AccessToken, Body: map[string]any{},
			Header: map[string]string{"X-Service-Api-Version": "1", "X-Service-Initiation-Channel": "hosted"}}).
			Error(t, http.StatusUnprocessableEntity, "VALIDATION_FAILURE")

		id := requestReport(t, env, tokens.AccessToken, "/reports/auditlog", period(nil))
		if rec := awaitReport(t, env, tokens.AccessToken, id); rec.Status != "REPORT_AVAILABLE" {
			t.Fatalf("report %+v", rec)
		}
		rows, file := downloadCSV(t, env, tokens.AccessToken, id)
		if got := strings.Join(rows[0], ","); got != "occurredAt,customerId,actorType,actorId,action,resourceType,resourceId,requestId,ip" {
			t.Fatalf("header %s", got)
		}
		var actions []string
		find := func(action string) map[string]string {
			for _, r := range rows[1:] {
				if r[4] == action {
					m := map[string]string{}
					for i, name := range rows[0] {
						m[name] = r[i]
					}
					return m
				}
			}
			t.Fatalf("no %s row in %v", action, rows)
			return nil
		}
		for _, r := range rows[1:] {
			actions = append(actions, r[4])
			if r[1] != apptest.ShopID || r[8] == "" || r[0] == "" {
				t.Errorf("row %v: not in the shop's log, or without address or time", r)
			}
		}
		if want := []string{"oauth.sign_in", "oauth.sign_in_failed", "oauth.refresh", "POST /payments", "POST /reports/auditlog"}; strings.Join(actions, "|") != strings.Join(want, "|") {
			t.Fatalf("actions %v, want %v", actions, want)
		}
		for _, action := range []string{"oauth.sign_in", "oauth.sign_in_failed", "oauth.refresh"} {
			if r := find(action); r["actorType"] != "USER" || r["actorId"] != user.ID {
				t.Errorf("%s: actor %s %s, want USER %s", action, r["actorType"], r["actorId"], user.ID)
			}
		}
		if r := find("oauth.sign_in_failed"); r["requestId"] != "failed-sign-in-1" || r["resourceId"] != apptest.Merchant.ClientID {
			t.Errorf("failed sign-in %v", r)
		}
		if r := find("POST /payments"); r["resourceType"] != "payment" || r["resourceId"] != payment || r["requestId"] != "create-1" || r["actorId"] != user.ID {
			t.Errorf("payment creation %v", r)
		}
		if r := find("POST /reports/auditlog"); r["resourceType"] != "report" || r["resourceId"] != id {
			t.Errorf("report creation %v", r)
		}
		for _, secret := range []string{apptest.Merchant.Password, bad.Password, apptest.Merchant.ClientSecret, tokens.AccessToken,
			tokens.RefreshToken, refreshed.RefreshToken, refreshed.AccessToken, apptest.NotificationSecrets[apptest.Merchant.ClientID]} {
			if strings.Contains(string(file), secret) {
				t.Errorf("the audit log holds a secret %q", secret)
			}
		}
		// Another merchant's log is not in the shop's, and the shop's is not in theirs.
		other := env.Token(t, apptest.OtherMerch)
		env.Do(t, apptest.Request{Method: "POST", Path: "/reports/auditlog", Token: other,
			Body: period(map[string]any{"customerId": apptest.ShopID})}).Error(t, http.StatusUnprocessableEntity, "VALIDATION_FAILURE")
	})
}

// TestAuditLogReportNeutralisesRequestIDs (issue 28, item 5): a client
// chooses its X-Request-Id; in the AUDIT_LOG report's requestId column one
// that a spreadsheet would run as a formula starts with an apostrophe, as
// every text cell of every report does (the ids the edge refuses are
// replaced by a generated one before they get there).
func TestAuditLogReportNeutralisesRequestIDs(t *testing.T) {
	t.Parallel()
	apptest.Each(t, func(t *testing.T, env *apptest.Env) {
		token := env.Token(t, apptest.Merchant)
		cases := []struct {
			sent, want string // want "": the generated id that replaced the one sent
			payment    string
		}{
			{sent: "-A1", want: "'-A1"},
			{sent: "-1", want: "'-1"},
			{sent: "=1+1"},
			{sent: "+1"},
			{sent: "@x"},
			{sent: "\tx"},
			{sent: "plain-1", want: "plain-1"},
		}
		for i := range cases {
			cases[i].payment = env.CreatePayment(t, token, "hosted", apptest.EUPayment(), map[string]string{"X-Request-Id": cases[i].sent}).ID
		}
		rows := byColumn(t, reportRows(t, env, token, "/reports/auditlog", period(nil)), "resourceId")
		for _, tc := range cases {
			r := rows[tc.payment]
			if r == nil || r["action"] != "POST /payments" {
				t.Fatalf("X-Request-Id %q: no row of payment %s in %v", tc.sent, tc.payment, rows)
			}
			got := r["requestId"]
			if tc.want != "" && got != tc.want {
				t.Errorf("X-Request-Id %q: requestId cell %q, want %q", tc.sent, got, tc.want)
			}
			if tc.want == "" && (got == tc.sent || strings.ContainsAny(got[:1], "=+-@\t\r")) {
				t.Errorf("X-Request-Id %q: requestId cell %q, want a generated id", tc.sent, got)
			}
		}
	})
}
