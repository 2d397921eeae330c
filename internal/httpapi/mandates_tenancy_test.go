package httpapi_test

import (
	"testing"

	"github.com/bankrail/bankrail/internal/apptest"
)

// The mandate routes in the tenancy matrix: another customer's mandate or
// amendment is 404, READ_ONLY is refused every change.
func init() {
	tenancyResources["mandate"] = func(t *testing.T, env *apptest.Env, owner apptest.Login) owned {
		t.Helper()
		return owned{mustCreateMandate(t, env, env.Token(t, owner), payToBody()).ID, customerOf(owner)}
	}
	tenancyResources["active mandate"] = func(t *testing.T, env *apptest.Env, owner apptest.Login) owned {
		t.Helper()
		return owned{mustActiveMandate(t, env, env.Token(t, owner), payToBody()).ID, customerOf(owner)}
	}
	tenancyResources["suspended mandate"] = func(t *testing.T, env *apptest.Env, owner apptest.Login) owned {
		t.Helper()
		token := env.Token(t, owner)
		id := mustActiveMandate(t, env, token, payToBody()).ID
		mandateCall(t, env, token, "POST", "/mandates/"+id+"/suspend", nil, 200)
		return owned{id, customerOf(owner)}
	}
	tenancyResources["amendment"] = func(t *testing.T, env *apptest.Env, owner apptest.Login) owned {
		t.Helper()
		token := env.Token(t, owner)
		id := mustActiveMandate(t, env, token, payToBody()).ID
		return owned{mustAmend(t, env, token, id, map[string]any{"validity": map[string]any{"to": "2028-01-01 00:00:00"}}).ID, customerOf(owner)}
	}
	mandatePath := func(suffix string) func(r owned) string {
		return func(r owned) string { return "/mandates/" + r.ID + suffix }
	}
	amendmentPath := func(prefix, suffix string) func(r owned) string {
		return func(r owned) string { return prefix + r.ID + suffix }
	}
	tenancyCases = append(tenancyCases,
		tenancyCase{Route: "GET /mandates/{id}", Resource: "mandate", OK: 200, Header: v1, Path: mandatePath("")},
		tenancyCase{Route: "GET /mandates", Resource: "mandate", OK: 200, Header: v1, List: true,
			Path: func(r owned) string { return "/mandates?customerId=" + r.Customer }},
		tenancyCase{Route: "POST /mandates/{id}/suspend", Resource: "active mandate", OK: 200, Write: true, Header: v1, Path: mandatePath("/suspend")},
		tenancyCase{Route: "POST /mandates/{id}/resume", Resource: "suspended mandate", OK: 200, Write: true, Header: v1, Path: mandatePath("/resume")},
		tenancyCase{Route: "POST /mandates/{id}/cancel", Resource: "mandate", OK: 200, Write: true, Header: v1, Path: mandatePath("/cancel")},
		tenancyCase{Route: "POST /mandates/{id}/amendments", Resource: "active mandate", OK: 201, Write: true, Header: v1, Path: mandatePath("/amendments"),
			Body: map[string]any{"validity": map[string]any{"to": "2028-01-01 00:00:00"}}},
		tenancyCase{Route: "POST /sandbox/mandates/{id}/authorise", Resource: "mandate", OK: 200, Write: true,
			Path: func(r owned) string { return "/sandbox/mandates/" + r.ID + "/authorise" }, Body: map[string]string{"outcome": "AUTHORISED"}},
		tenancyCase{Route: "GET /amendments/{id}", Resource: "amendment", OK: 200, Header: v1, Path: amendmentPath("/amendments/", "")},
		tenancyCase{Route: "POST /amendments/{id}/recall", Resource: "amendment", OK: 204, Write: true, Header: v1, Path: amendmentPath("/amendments/", "/recall")},
		tenancyCase{Route: "POST /sandbox/amendments/{id}/approve", Resource: "amendment", OK: 200, Write: true, Path: amendmentPath("/sandbox/amendments/", "/approve")},
		tenancyCase{Route: "POST /sandbox/amendments/{id}/decline", Resource: "amendment", OK: 200, Write: true, Path: amendmentPath("/sandbox/amendments/", "/decline")},
	)
	tenancyExempt["POST /mandates"] = "creates a mandate of the caller's own customer; names nothing of another"
}
