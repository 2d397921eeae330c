package httpapi_test

import (
	"net/http"
	"testing"

	"github.com/bankrail/bankrail/internal/apptest"
	"github.com/bankrail/bankrail/internal/camt/camttest"
	"github.com/bankrail/bankrail/internal/statement"
)

// A bank statement's credits to an alias IBAN are its Connect account's,
// matched as POST /payin's: the credit that names a payment expected on
// the alias makes it RECEIVED (payment_received), a stray one is the
// account's MANUAL_CREDIT, and an inactive alias's funds go back (an
// INCOMING and its BOUNCE_BACK, the balance unchanged). The summary lists
// each alias as a known account; POST /payin of the same funds (its
// externalPaymentId the entry's AcctSvcrRef) changes nothing.
func TestStatementCreditsToAnAlias(t *testing.T) {
	t.Parallel()
	apptest.Each(t, func(t *testing.T, env *apptest.Env) {
		rc := apptest.NewReceiver(t)
		openAccount(t, env, apptest.ShopID, "EUR", "first")
		second := openAccount(t, env, apptest.ShopID, "EUR", "second") // not the default Connect account in EUR
		token := env.Token(t, apptest.Merchant)
		aliases := readyAliases(t, env, token, second, 2)
		active, inactive := aliases[0], aliases[1]
		env.Do(t, apptest.Request{Method: "PATCH", Path: "/account-aliases/" + inactive.ID, Token: token, Header: v1,
			Body: map[string]any{"active": false}}).JSON(t, &aliasJSON{})
		body := expectedBody(rc, 1200, "Invoice S1")
		body["beneficiary"] = map[string]any{"name": "Test Shop GmbH", "accountIdentifiers": map[string]any{"iban": active.IBAN}}
		p := mustCreate(t, env, token, body, map[string]string{scenarioHeader: "COMPLETED>NOT_RECEIVED"})
		gatewayNotes(t, rc, p.ID, 2)

		doc := camttest.String(53, 2, "ALIAS-1",
			camttest.Stmt{IBAN: active.IBAN, Entries: []camttest.Entry{
				{AcctSvcrRef: "AL-1", Minor: 1200, Credit: true, Txs: []camttest.Tx{{Ustrd: []string{"Invoice S1"}, Name: "Anna Payer", IBAN: "DE89370400440532013000"}}},
				{AcctSvcrRef: "AL-2", Minor: 50, Credit: true, Txs: []camttest.Tx{{Ustrd: []string{"no such invoice"}}}}}},
			camttest.Stmt{IBAN: inactive.IBAN, Entries: []camttest.Entry{
				{AcctSvcrRef: "AL-3", Minor: 700, Credit: true, Txs: []camttest.Tx{{Ustrd: []string{"Invoice S3"}, Name: "Bea Payer", IBAN: "DE89370400440532013000"}}}}})
		resp := postStatement(t, env, env.Token(t, apptest.Operator), doc)
		var sum statement.Summary
		resp.JSON(t, &sum)
		if resp.Status != http.StatusCreated || sum.Matched != 1 || sum.ManualCredits != 2 || len(sum.Rejected) != 0 || len(sum.Accounts) != 2 ||
			!sum.Accounts[0].Known || !sum.Accounts[1].Known || sum.Accounts[0].IBAN != active.IBAN || sum.Accounts[0].Credited.Amount != 1250 {
			t.Fatalf("summary %d %+v", resp.Status, sum)
		}
		if n := connectNotes(t, rc, p.ID, 1)[0]; n.Status != "RECEIVED" || n.Amount != 1200 {
			t.Fatalf("payment_received %+v", n)
		}
		if b := accountBalance(t, env, token, second.ID); b.Balance.Available != 1250 {
			t.Fatalf("the alias's account %+v", b.Balance)
		}
		txs := accountTransactions(t, env, token, second.ID)
		if len(txs) != 4 || txs[0].Type != "BOUNCE_BACK" || txs[1].Type != "MANUAL_CREDIT" || txs[1].Amount != 700 ||
			txs[2].Type != "MANUAL_CREDIT" || txs[2].Amount != 50 || txs[3].Type != "GATEWAY_PAYMENT" || *txs[3].PaymentID != p.ID {
			t.Fatalf("transactions %+v", txs)
		}
		if resp := payin(t, env, token, "AL-1", "Invoice S1", 1200, "EUR", active.IBAN); resp.Status != http.StatusAccepted {
			t.Fatalf("the same funds by POST /payin: %d %s", resp.Status, resp.Body)
		}
		if b := accountBalance(t, env, token, second.ID); b.Balance.Available != 1250 {
			t.Fatalf("after the repeat by POST /payin %+v", b.Balance)
		}
	})
}
