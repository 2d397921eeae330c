package httpapi_test

import (
	"testing"

	"github.com/bankrail/bankrail/internal/apptest"
)

// The report routes in the tenancy matrix: another customer's report is
// 404, to read and to download.
func init() {
	tenancyResources["report"] = func(t *testing.T, env *apptest.Env, owner apptest.Login) owned {
		t.Helper()
		id := requestReport(t, env, env.Token(t, owner), "/reports/auditlog", period(map[string]any{"allowEmpty": true}))
		return owned{id, customerOf(owner)}
	}
	tenancyResources["available report"] = func(t *testing.T, env *apptest.Env, owner apptest.Login) owned {
		t.Helper()
		token := env.Token(t, owner)
		id := requestReport(t, env, token, "/reports/auditlog", period(map[string]any{"allowEmpty": true}))
		if rec := awaitReport(t, env, token, id); rec.Status != "REPORT_AVAILABLE" {
			t.Fatalf("report %s: %+v", id, rec)
		}
		return owned{id, customerOf(owner)}
	}
	tenancyCases = append(tenancyCases,
		tenancyCase{Route: "GET /reports/{id}", Resource: "report", OK: 200,
			Path: func(r owned) string { return "/reports/" + r.ID }},
		tenancyCase{Route: "GET /reports/{id}/download", Resource: "available report", OK: 200,
			Path: func(r owned) string { return "/reports/" + r.ID + "/download" }},
		tenancyCase{Route: "GET /reports", Resource: "report", OK: 200, List: true,
			Path: func(owned) string { return "/reports" }},
	)
	for _, route := range []string{"POST /reports/payments", "POST /reports/refund", "POST /reports/payouts", "POST /reports/auditlog"} {
		tenancyExempt[route] = "creates a report of the caller's own customer tree; a customerId or accountId outside it is 422 INVALID_VALUE (TestReportCreationRules)"
	}
	tenancyExempt["POST /reports/connect/{bankAccountId}"] = "creates a report of the caller's own Connect account; another customer's account is 404 like a missing one (TestReportCreationRules)"
}
