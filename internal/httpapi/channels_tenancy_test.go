package httpapi_test

import (
	"testing"

	"github.com/bankrail/bankrail/internal/apptest"
)

// The channel routes in the tenancy matrix: another customer's channel or
// channel payment is 404; READ_ONLY cannot play a deposit.
func init() {
	tenancyResources["channel"] = func(t *testing.T, env *apptest.Env, owner apptest.Login) owned {
		t.Helper()
		return owned{mustCreateChannel(t, env, env.Token(t, owner), channelBody("USDC", "ETH", "EUR")).ID, customerOf(owner)}
	}
	tenancyResources["channel payment"] = func(t *testing.T, env *apptest.Env, owner apptest.Login) owned {
		t.Helper()
		token := env.Token(t, owner)
		c := mustCreateChannel(t, env, token, channelBody("USDC", "SOL", "EUR"))
		return owned{mustDeposit(t, env, token, c.ID, map[string]any{"amount": "1.5"}).ID, customerOf(owner)}
	}
	tenancyCases = append(tenancyCases,
		tenancyCase{Route: "GET /channels/{id}", Resource: "channel", OK: 200, Header: v1,
			Path: func(r owned) string { return "/channels/" + r.ID }},
		tenancyCase{Route: "GET /channels", Resource: "channel", OK: 200, Header: v1, List: true,
			Path: func(r owned) string { return "/channels?customerId=" + r.Customer }},
		tenancyCase{Route: "GET /channels/{id}/payments", Resource: "channel", OK: 200, Header: v1,
			Path: func(r owned) string { return "/channels/" + r.ID + "/payments?page=1&limit=1" }},
		tenancyCase{Route: "GET /channel-payments/{id}", Resource: "channel payment", OK: 200, Header: v1,
			Path: func(r owned) string { return "/channel-payments/" + r.ID }},
		tenancyCase{Route: "POST /sandbox/channels/{id}/deposits", Resource: "channel", OK: 201, Write: true,
			Path: func(r owned) string { return "/sandbox/channels/" + r.ID + "/deposits" },
			Body: map[string]any{"amount": "2"}},
	)
	tenancyExempt["POST /channels"] = "opens a channel of the caller's own customer; names nothing of another"
}
