package httpapi_test

import (
	"net/http"
	"slices"
	"testing"
	"time"

	"github.com/bankrail/bankrail/internal/apptest"
)

func TestReportCreationRules(t *testing.T) {
	apptest.Each(t, func(t *testing.T, env *apptest.Env) {
		merchant := env.Token(t, apptest.Merchant)
		env.CreatePayment(t, merchant, "hosted", apptest.EUPayment(), nil)
		start := apptest.Epoch.Add(-time.Hour)
		at := func(d time.Duration) string { return start.Add(d).Format(time.RFC3339) }
		day := 24 * time.Hour
		type fail struct{ typ, path string }
		for _, tt := range []struct {
			name   string
			path   string
			body   any
			status int
			code   string
			fails  []fail
		}{
			{"payments", "/reports/payments", period(nil), 201, "", nil},
			{"exactly 92 days", "/reports/payments", map[string]any{"startDate": at(0), "endDate": at(92 * day)}, 201, "", nil},
			{"92 days and a second", "/reports/payments", map[string]any{"startDate": at(0), "endDate": at(92*day + time.Second)},
				422, "VALIDATION_FAILURE", []fail{{"OUT_OF_RANGE", "endDate"}}},
			{"end before start", "/reports/payments", map[string]any{"startDate": at(day), "endDate": at(0)},
				422, "VALIDATION_FAILURE", []fail{{"INVALID_DATE", "endDate"}}},
			{"every field at once", "/reports/payments", map[string]any{"endDate": "yesterday", "customerId": "nope"},
				422, "VALIDATION_FAILURE", []fail{{"VALUE_REQUIRED", "startDate"}, {"INVALID_FORMAT", "endDate"}, {"INVALID_FORMAT", "customerId"}}},
			{"foreign customer", "/reports/payments", period(map[string]any{"customerId": apptest.OtherShopID}),
				422, "VALIDATION_FAILURE", []fail{{"INVALID_VALUE", "customerId"}}},
			{"unknown customer", "/reports/payments", period(map[string]any{"customerId": "00000000-0000-4000-8000-00000000dead"}),
				422, "VALIDATION_FAILURE", []fail{{"INVALID_VALUE", "customerId"}}},
			{"own customer", "/reports/payments", period(map[string]any{"customerId": apptest.ShopID}), 201, "", nil},
			{"empty period", "/reports/payments", map[string]any{"startDate": at(-10 * day), "endDate": at(-9 * day)},
				422, "REPORT_EMPTY", nil},
			{"empty allowed", "/reports/payments", map[string]any{"startDate": at(-10 * day), "endDate": at(-9 * day), "allowEmpty": true},
				201, "", nil},
			{"refunds without entries", "/reports/refund", period(map[string]any{"includeEventFees": true}), 201, "", nil},
			{"refunds unknown account", "/reports/refund", period(map[string]any{"accountId": "00000000-0000-4000-8000-00000000acc1"}),
				422, "VALIDATION_FAILURE", []fail{{"INVALID_VALUE", "accountId"}}},
			{"payouts bad account and period", "/reports/payouts", map[string]any{"startDate": at(0), "endDate": at(100 * day), "accountId": "x"},
				422, "VALIDATION_FAILURE", []fail{{"OUT_OF_RANGE", "endDate"}, {"INVALID_FORMAT", "accountId"}}},
			{"payouts", "/reports/payouts", period(nil), 201, "", nil},
			{"audit log", "/reports/auditlog", period(nil), 201, "", nil},
			{"audit log empty", "/reports/auditlog", map[string]any{"startDate": at(-10 * day), "endDate": at(-9 * day)},
				422, "REPORT_EMPTY", nil},
			{"connect unknown account", "/reports/connect/00000000-0000-4000-8000-00000000acc1", period(nil), 404, "RESOURCE_NOT_FOUND", nil},
			{"connect account not a uuid", "/reports/connect/acc", period(nil), 404, "RESOURCE_NOT_FOUND", nil},
		} {
			t.Run(tt.name, func(t *testing.T) {
				resp := env.Do(t, apptest.Request{Method: "POST", Path: tt.path, Token: merchant, Body: tt.body})
				if tt.status == 201 {
					if resp.Status != 201 {
						t.Fatalf("got %d %s", resp.Status, resp.Body)
					}
					return
				}
				e := resp.Error(t, tt.status, tt.code)
				var got []fail
				for _, f := range e.Errors {
					got = append(got, fail{f.Type, f.PropertyPath})
				}
				if !slices.Equal(got, tt.fails) {
					t.Fatalf("errors %v, want %v", got, tt.fails)
				}
			})
		}
		// The zero time is a date like any other (issue 28, item 2): year 1
		// to year 9999 is over 92 days, and an end in year 1 is before the
		// start, on every report endpoint.
		acct := openAccount(t, env, apptest.ShopID, "EUR", "zero-time")
		for _, path := range []string{"/reports/payments", "/reports/refund", "/reports/payouts", "/reports/auditlog", "/reports/connect/" + acct.ID} {
			for _, tt := range []struct {
				name       string
				start, end string
				want       fail
			}{
				{"year 1 to year 9999", "0001-01-01T00:00:00Z", "9999-12-31T23:59:59Z", fail{"OUT_OF_RANGE", "endDate"}},
				{"an end in year 1", at(0), "0001-01-01T00:00:00Z", fail{"INVALID_DATE", "endDate"}},
			} {
				t.Run(path+" "+tt.name, func(t *testing.T) {
					body := map[string]any{"startDate": tt.start, "endDate": tt.end}
					e := env.Do(t, apptest.Request{Method: "POST", Path: path, Token: merchant, Body: body}).Error(t, 422, "VALIDATION_FAILURE")
					if len(e.Errors) != 1 || (fail{e.Errors[0].Type, e.Errors[0].PropertyPath}) != tt.want {
						t.Fatalf("errors %+v, want %v", e.Errors, tt.want)
					}
				})
			}
		}
		t.Run("read only user cannot create", func(t *testing.T) {
			viewer := env.Token(t, apptest.Viewer)
			env.Do(t, apptest.Request{Method: "POST", Path: "/reports/payments", Token: viewer, Body: period(nil)}).
				Error(t, http.StatusForbidden, "ACCESS_DENIED")
			if resp := env.Do(t, apptest.Request{Method: "GET", Path: "/reports", Token: viewer}); resp.Status != 200 {
				t.Fatalf("a READ_ONLY user lists reports: %d %s", resp.Status, resp.Body)
			}
		})
	})
}
