package httpapi_test

import (
	"net/http"
	"testing"

	"github.com/bankrail/bankrail/internal/apptest"
	"github.com/bankrail/bankrail/internal/ledger"
)

// Funds sent to an alias: an active alias's are its account's and
// reconcile as usual (POST /payin and the mock bank's); a payment whose
// beneficiary IBAN is an alias is expected on that alias's account, even
// when it is not the customer's first Connect account in the currency; an
// inactive alias's funds bounce (INCOMING and BOUNCE_BACK, net zero) and
// nothing is lost; another customer's alias is as unknown as any IBAN.
func TestFundsToAliases(t *testing.T) {
	t.Parallel()
	apptest.Each(t, func(t *testing.T, env *apptest.Env) {
		rc := apptest.NewReceiver(t)
		first := openAccount(t, env, apptest.ShopID, "EUR", "first")
		second := openAccount(t, env, apptest.ShopID, "EUR", "second") // not the default Connect account in EUR
		token := env.Token(t, apptest.Merchant)
		aliases := readyAliases(t, env, token, second, 3)
		active, other, inactive := aliases[0], aliases[1], aliases[2]
		toAlias := func(amount int, reference, iban string) map[string]any {
			b := expectedBody(rc, amount, reference)
			b["beneficiary"] = map[string]any{"name": "Test Shop GmbH", "accountIdentifiers": map[string]any{"iban": iban}}
			return b
		}

		// A payment to an alias, completed without funds: expected on the alias's account; POST /payin to the alias reconciles it.
		p := mustCreate(t, env, token, toAlias(1200, "Invoice A1", active.IBAN), map[string]string{scenarioHeader: "COMPLETED>NOT_RECEIVED"})
		gatewayNotes(t, rc, p.ID, 2)
		if d := getDetails(t, env, token, p.ID); d.Account.ID != second.ID {
			t.Fatalf("payment to an alias expected on %s, want %s", d.Account.ID, second.ID)
		}
		if resp := payin(t, env, token, "ext-a1", "Invoice A1", 1200, "EUR", active.IBAN); resp.Status != http.StatusAccepted {
			t.Fatalf("payin to an alias: %d %s", resp.Status, resp.Body)
		}
		if n := connectNotes(t, rc, p.ID, 1)[0]; n.Status != "RECEIVED" || n.Amount != 1200 {
			t.Fatalf("payment_received %+v", n)
		}
		if st, _ := statusHistory(t, env, token, p.ID); st != "RECEIVED" {
			t.Fatalf("status %s", st)
		}
		// The mock bank's funds to a payment whose beneficiary is an alias reach the alias's account.
		q := mustCreate(t, env, token, toAlias(800, "Invoice A2", other.IBAN), map[string]string{scenarioHeader: "COMPLETED"})
		if n := connectNotes(t, rc, q.ID, 1)[0]; n.Status != "RECEIVED" {
			t.Fatalf("mock bank funds: %+v", n)
		}
		// Funds to an alias that match nothing are the account's MANUAL_CREDIT.
		if resp := payin(t, env, token, "ext-stray", "unknown", 50, "EUR", other.IBAN); resp.Status != http.StatusAccepted {
			t.Fatalf("stray: %d %s", resp.Status, resp.Body)
		}
		if b := accountBalance(t, env, token, second.ID); b.Balance.Available != 1200+800+50 {
			t.Fatalf("second account %+v", b.Balance)
		}
		if b := accountBalance(t, env, token, first.ID); b.Balance.Available != 0 {
			t.Fatalf("first account %+v", b.Balance)
		}
		txs := accountTransactions(t, env, token, second.ID)
		if len(txs) != 3 || txs[0].Type != "MANUAL_CREDIT" || txs[1].Type != "GATEWAY_PAYMENT" || *txs[1].PaymentID != q.ID ||
			txs[2].Type != "GATEWAY_PAYMENT" || *txs[2].PaymentID != p.ID {
			t.Fatalf("transactions %+v", txs)
		}

		// Switched off, the alias sends funds back: 202, an INCOMING and its BOUNCE_BACK, the balance unchanged.
		env.Do(t, apptest.Request{Method: "PATCH", Path: "/account-aliases/" + inactive.ID, Token: token, Header: v1,
			Body: map[string]any{"active": false}}).JSON(t, &aliasJSON{})
		for range 2 { // the repeat of an externalPaymentId changes nothing
			if resp := payin(t, env, token, "ext-bounce", "Invoice A3", 700, "EUR", inactive.IBAN); resp.Status != http.StatusAccepted || len(resp.Body) != 0 {
				t.Fatalf("payin to an inactive alias: %d %s", resp.Status, resp.Body)
			}
		}
		if b := accountBalance(t, env, token, second.ID); b.Balance.Available != 2050 || b.Balance.Pending != 0 {
			t.Fatalf("after the bounce %+v", b.Balance)
		}
		txs = accountTransactions(t, env, token, second.ID)
		if len(txs) != 5 || txs[0].Type != "BOUNCE_BACK" || txs[0].Operation != "OUTGOING" || txs[0].Status != "COMPLETED" ||
			txs[1].Type != "MANUAL_CREDIT" || txs[1].Operation != "INCOMING" || txs[0].Amount != 700 || txs[1].Amount != 700 ||
			txs[0].Counterparty.IBAN != "DE89370400440532013000" || txs[0].Reference != "Invoice A3" {
			t.Fatalf("bounce transactions %+v", txs)
		}
		// A payment to an inactive alias names no account of the customer (docs/decisions.md, "A payment is
		// expected only where its money goes"): an ordinary payment, expected on no Connect account.
		r := mustCreate(t, env, token, toAlias(300, "Invoice A4", inactive.IBAN), nil)
		if d := getDetails(t, env, token, r.ID); d.Account.ID == first.ID || d.Account.ID == second.ID ||
			d.Account.IBAN != inactive.IBAN || d.RefundNotAvailableCode != "NO_CONNECT_ACCOUNT" {
			t.Fatalf("payment to an inactive alias: on %+v, refund %q", d.Account, d.RefundNotAvailableCode)
		}

		// The account's currency, and another customer's alias.
		e := payin(t, env, token, "ext-gbp", "x", 100, "GBP", active.IBAN).Error(t, http.StatusUnprocessableEntity, "VALIDATION_FAILURE")
		if e.Errors[0].PropertyPath != "amount.currency" {
			t.Fatalf("currency %+v", e)
		}
		stranger := env.Token(t, apptest.OtherMerch)
		e = payin(t, env, stranger, "ext-theirs", "x", 100, "EUR", active.IBAN).Error(t, http.StatusUnprocessableEntity, "VALIDATION_FAILURE")
		if e.Errors[0].PropertyPath != "beneficiary.accountIdentifiers.iban" {
			t.Fatalf("another customer's alias %+v", e)
		}
		// The books balance.
		entries, err := env.App.Store().Ledger().Entries(t.Context(), second.ID)
		if err != nil {
			t.Fatal(err)
		}
		if sum := ledger.Replay(entries)[second.ID]; sum.Available != 2050 {
			t.Fatalf("postings sum to %+v", sum)
		}
	})
}
