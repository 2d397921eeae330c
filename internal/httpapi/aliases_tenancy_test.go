package httpapi_test

import (
	"context"
	"testing"

	"github.com/bankrail/bankrail/internal/apptest"
	"github.com/bankrail/bankrail/internal/ledger"
)

// The alias routes in the tenancy matrix: another customer's account,
// order or alias is 404; READ_ONLY can neither order nor switch an alias.
func init() {
	aliasAccount := func(t *testing.T, env *apptest.Env, owner apptest.Login) ledger.Account {
		t.Helper()
		a, _, err := env.App.Accounts().EnsureAccount(context.Background(),
			ledger.AccountSpec{CustomerID: customerOf(owner), Currency: "EUR", Nickname: "alias tenancy"})
		if err != nil {
			t.Fatalf("open the Connect account of %s: %v", owner.ClientID, err)
		}
		return a
	}
	tenancyResources["alias account"] = func(t *testing.T, env *apptest.Env, owner apptest.Login) owned {
		t.Helper()
		return owned{aliasAccount(t, env, owner).ID, customerOf(owner)}
	}
	tenancyResources["alias order"] = func(t *testing.T, env *apptest.Env, owner apptest.Login) owned {
		t.Helper()
		return owned{mustOrderAliases(t, env, env.Token(t, owner), aliasAccount(t, env, owner).ID, 1, nil), customerOf(owner)}
	}
	tenancyResources["account alias"] = func(t *testing.T, env *apptest.Env, owner apptest.Login) owned {
		t.Helper()
		return owned{readyAliases(t, env, env.Token(t, owner), aliasAccount(t, env, owner), 1)[0].ID, customerOf(owner)}
	}
	tenancyCases = append(tenancyCases,
		tenancyCase{Route: "POST /orders/account-aliases", Resource: "alias account", OK: 201, Write: true, Header: v1,
			Path:   func(owned) string { return "/orders/account-aliases" },
			BodyOf: func(r owned) any { return map[string]any{"accountId": r.ID, "count": 1} }},
		tenancyCase{Route: "GET /orders/account-aliases/{id}", Resource: "alias order", OK: 200, Header: v1,
			Path: func(r owned) string { return "/orders/account-aliases/" + r.ID }},
		tenancyCase{Route: "GET /account-aliases", Resource: "account alias", OK: 200, Header: v1, List: true,
			Path: func(owned) string { return "/account-aliases?limit=100" }},
		tenancyCase{Route: "GET /account-aliases/{id}", Resource: "account alias", OK: 200, Header: v1,
			Path: func(r owned) string { return "/account-aliases/" + r.ID }},
		tenancyCase{Route: "PATCH /account-aliases/{id}", Resource: "account alias", OK: 200, Write: true, Header: v1,
			Path: func(r owned) string { return "/account-aliases/" + r.ID },
			Body: map[string]any{"active": false}},
	)
}
