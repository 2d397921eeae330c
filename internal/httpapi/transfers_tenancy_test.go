package httpapi_test

import (
	"testing"

	"github.com/bankrail/bankrail/internal/apptest"
)

// The sandbox's bank files in the tenancy matrix: the mock bank's files of
// another customer's payout are not listed and are 404; READ_ONLY reads
// them (they change nothing). The operators' transfer files are exempt:
// every tenant gets 403 (TestTransferFilesAreForOperators).
func init() {
	// The pain.001 the mock bank received for a payout of the owner.
	tenancyResources["sandbox bank file"] = func(t *testing.T, env *apptest.Env, owner apptest.Login) owned {
		t.Helper()
		tenancyResources["payout"](t, env, owner)
		var files []struct{ ID, Direction string }
		env.Do(t, apptest.Request{Method: "GET", Path: "/sandbox/bank-files?direction=OUT&limit=1", Token: env.Token(t, owner)}).JSON(t, &files)
		if len(files) != 1 || files[0].Direction != "OUT" {
			t.Fatalf("the mock bank's file of a payout of %s: %+v", owner.ClientID, files)
		}
		return owned{files[0].ID, customerOf(owner)}
	}
	tenancyCases = append(tenancyCases,
		tenancyCase{Route: "GET /sandbox/bank-files", Resource: "sandbox bank file", OK: 200, List: true,
			Path: func(owned) string { return "/sandbox/bank-files?limit=100" }},
		tenancyCase{Route: "GET /sandbox/bank-files/{id}", Resource: "sandbox bank file", OK: 200,
			Path: func(r owned) string { return "/sandbox/bank-files/" + r.ID }},
	)
	for _, route := range []string{"GET /transfer-files", "GET /transfer-files/{id}", "POST /transfer-status"} {
		tenancyExempt[route] = "operators only: every tenant gets 403 ACCESS_DENIED (TestTransferFilesAreForOperators)"
	}
}
