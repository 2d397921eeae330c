package httpapi_test

import (
	"context"
	"testing"

	"github.com/google/uuid"

	"github.com/bankrail/bankrail/internal/apptest"
	"github.com/bankrail/bankrail/internal/ledger"
)

// The ledger's routes in the tenancy matrix: another customer's account,
// transaction, payment refund or refund is 404; READ_ONLY cannot refund.
func init() {
	// connectAccount is the owner's EUR Connect account (opened once).
	connectAccount := func(t *testing.T, env *apptest.Env, owner apptest.Login) ledger.Account {
		t.Helper()
		a, _, err := env.App.Accounts().EnsureAccount(context.Background(),
			ledger.AccountSpec{CustomerID: customerOf(owner), Currency: "EUR", Nickname: "tenancy"})
		if err != nil {
			t.Fatalf("open the Connect account of %s: %v", owner.ClientID, err)
		}
		return a
	}
	// receivedPayment is a payment of owner whose funds reached its account.
	receivedPayment := func(t *testing.T, env *apptest.Env, owner apptest.Login) string {
		t.Helper()
		connectAccount(t, env, owner)
		body := euBody()
		delete(body, "beneficiary") // the Connect account is the beneficiary
		p := mustCreate(t, env, env.Token(t, owner), body, map[string]string{scenarioHeader: "COMPLETED"})
		if d := getDetails(t, env, env.Token(t, owner), p.ID); d.Status != "RECEIVED" {
			t.Fatalf("payment %s is %s, want RECEIVED", p.ID, d.Status)
		}
		return p.ID
	}
	tenancyResources["account"] = func(t *testing.T, env *apptest.Env, owner apptest.Login) owned {
		t.Helper()
		return owned{connectAccount(t, env, owner).ID, customerOf(owner)}
	}
	tenancyResources["account transaction"] = func(t *testing.T, env *apptest.Env, owner apptest.Login) owned {
		t.Helper()
		tx := credit(t, env, connectAccount(t, env, owner), 500, ledger.TypeManualCredit, env.Clock.Now())
		return owned{tx.ID, customerOf(owner)}
	}
	tenancyResources["received payment"] = func(t *testing.T, env *apptest.Env, owner apptest.Login) owned {
		t.Helper()
		return owned{receivedPayment(t, env, owner), customerOf(owner)}
	}
	tenancyResources["refund"] = func(t *testing.T, env *apptest.Env, owner apptest.Login) owned {
		t.Helper()
		f := mustRefund(t, env, env.Token(t, owner), receivedPayment(t, env, owner),
			map[string]any{"amount": 100, "externalReference": "T-" + uuid.NewString()[:8]}, nil)
		return owned{f.ID, customerOf(owner)}
	}
	tenancyCases = append(tenancyCases,
		tenancyCase{Route: "GET /accounts/{id}", Resource: "account", OK: 200, Header: v1,
			Path: func(r owned) string { return "/accounts/" + r.ID }},
		tenancyCase{Route: "GET /accounts/{id}/transactions", Resource: "account", OK: 200, Header: v1,
			Path: func(r owned) string { return "/accounts/" + r.ID + "/transactions" }},
		tenancyCase{Route: "GET /accounts", Resource: "account", OK: 200, Header: v1, List: true,
			Path: func(owned) string { return "/accounts" }},
		tenancyCase{Route: "GET /transactions/{id}", Resource: "account transaction", OK: 200, Header: v1,
			Path: func(r owned) string { return "/transactions/" + r.ID }},
		tenancyCase{Route: "POST /payments/{id}/request-refund", Resource: "received payment", OK: 201, Write: true, Header: v1,
			Path: func(r owned) string { return "/payments/" + r.ID + "/request-refund" },
			Body: map[string]any{"amount": 100, "externalReference": "T-1"}},
		tenancyCase{Route: "GET /payments/{id}/refunds", Resource: "received payment", OK: 200, Header: v1,
			Path: func(r owned) string { return "/payments/" + r.ID + "/refunds" }},
		tenancyCase{Route: "GET /refunds/{id}", Resource: "refund", OK: 200, Header: v1,
			Path: func(r owned) string { return "/refunds/" + r.ID }},
	)
	tenancyExempt["POST /payin"] = "sandbox funds into an IBAN; another customer's IBAN is 422 like an unknown one, so no account is revealed (TestPayinRefusals)"
}
