package httpapi_test

import (
	"context"
	"testing"

	"github.com/bankrail/bankrail/internal/apptest"
	"github.com/bankrail/bankrail/internal/ledger"
)

// The payout routes in the tenancy matrix: another customer's account,
// payout or verification is 404; READ_ONLY can neither pay out nor decide.
func init() {
	// fundedAccount is the owner's EUR Connect account with money on it.
	fundedAccount := func(t *testing.T, env *apptest.Env, owner apptest.Login) ledger.Account {
		t.Helper()
		a, _, err := env.App.Accounts().EnsureAccount(context.Background(),
			ledger.AccountSpec{CustomerID: customerOf(owner), Currency: "EUR", Nickname: "tenancy"})
		if err != nil {
			t.Fatalf("open the Connect account of %s: %v", owner.ClientID, err)
		}
		credit(t, env, a, 10_000, ledger.TypeManualCredit, env.Clock.Now())
		return a
	}
	tenancyResources["funded account"] = func(t *testing.T, env *apptest.Env, owner apptest.Login) owned {
		t.Helper()
		return owned{fundedAccount(t, env, owner).ID, customerOf(owner)}
	}
	tenancyResources["payout"] = func(t *testing.T, env *apptest.Env, owner apptest.Login) owned {
		t.Helper()
		p := mustPayout(t, env, env.Token(t, owner), payoutBody(fundedAccount(t, env, owner).ID, 100, "Jane Doe"), nil)
		return owned{p.ID, customerOf(owner)}
	}
	// A payout held by its verification (CLOSE_MATCH): the id is the verification's.
	tenancyResources["held payout verification"] = func(t *testing.T, env *apptest.Env, owner apptest.Login) owned {
		t.Helper()
		p := mustPayout(t, env, env.Token(t, owner), payoutBody(fundedAccount(t, env, owner).ID, 100, "Jane Doe"),
			map[string]string{scenarioHeader: "ACCOUNT_HOLDER_VERIFICATION_CLOSE_MATCH"})
		return owned{p.AccountHolderVerificationID, customerOf(owner)}
	}
	tenancyCases = append(tenancyCases,
		tenancyCase{Route: "POST /payouts", Resource: "funded account", OK: 201, Write: true, Header: v1,
			Path:   func(owned) string { return "/payouts" },
			BodyOf: func(r owned) any { return payoutBody(r.ID, 100, "Jane Doe") }},
		tenancyCase{Route: "GET /payouts/{id}", Resource: "payout", OK: 200, Header: v1,
			Path: func(r owned) string { return "/payouts/" + r.ID }},
		tenancyCase{Route: "GET /payouts", Resource: "payout", OK: 200, Header: v1, List: true,
			Path: func(owned) string { return "/payouts?limit=100" }},
		tenancyCase{Route: "GET /account-holder-verifications/{id}", Resource: "held payout verification", OK: 200, Header: v1,
			Path: func(r owned) string { return "/account-holder-verifications/" + r.ID }},
		tenancyCase{Route: "GET /account-holder-verifications", Resource: "payout", OK: 200, Header: v1, List: true,
			Path: func(r owned) string { return "/account-holder-verifications?transactionId=" + r.ID }},
		tenancyCase{Route: "POST /account-holder-verifications/{id}/approve", Resource: "held payout verification", OK: 200, Write: true,
			Header: v1, Path: func(r owned) string { return "/account-holder-verifications/" + r.ID + "/approve" }},
		tenancyCase{Route: "POST /account-holder-verifications/{id}/reject", Resource: "held payout verification", OK: 200, Write: true,
			Header: v1, Path: func(r owned) string { return "/account-holder-verifications/" + r.ID + "/reject" }},
	)
}
