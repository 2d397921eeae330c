package httpapi_test

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/bankrail/bankrail/internal/apptest"
	"github.com/bankrail/bankrail/internal/ledger"
	"github.com/bankrail/bankrail/notification"
)

// connectNotes waits until rc got n Connect notifications of payment and
// returns them (verified with the public receiver helper).
func connectNotes(t *testing.T, rc *apptest.Receiver, payment string, n int) []*notification.Connect {
	t.Helper()
	var out []*notification.Connect
	apptest.Eventually(t, "Connect notifications of "+payment, func() bool {
		out = nil
		for _, r := range rc.Got() {
			if c := verify(t, r).Connect; c != nil && c.Payment == payment {
				out = append(out, c)
			}
		}
		return len(out) >= n
	})
	return out
}

// expectedBody is an EU payment without a beneficiary (the Connect
// account is the beneficiary), notified to rc.
func expectedBody(rc *apptest.Receiver, amount int, reference string) map[string]any {
	b := notifiedBody(rc)
	delete(b, "beneficiary")
	b["amount"], b["paymentReference"] = amount, reference
	return b
}

func payin(t *testing.T, env *apptest.Env, token, ext, ref string, amount int64, currency, iban string) *apptest.Response {
	t.Helper()
	return env.Do(t, apptest.Request{Method: "POST", Path: "/payin", Token: token, Header: v1, Body: map[string]any{
		"externalPaymentId": ext, "paymentReference": ref, "amount": map[string]any{"amount": amount, "currency": currency},
		"sender":      map[string]any{"name": "Anna Müller", "accountIdentifiers": map[string]any{"iban": "DE89370400440532013000"}},
		"beneficiary": map[string]any{"accountIdentifiers": map[string]any{"iban": iban}}}})
}

func accountBalance(t *testing.T, env *apptest.Env, token, id string) accountJSON {
	t.Helper()
	var a accountJSON
	env.Do(t, apptest.Request{Method: "GET", Path: "/accounts/" + id, Token: token, Header: v1}).JSON(t, &a)
	return a
}

func accountTransactions(t *testing.T, env *apptest.Env, token, id string) []transactionJSON {
	t.Helper()
	var txs []transactionJSON
	env.Do(t, apptest.Request{Method: "GET", Path: "/accounts/" + id + "/transactions?limit=100", Token: token, Header: v1}).JSON(t, &txs)
	return txs
}

// An expected payment: the Connect account is its beneficiary and its
// details record's account; the mock bank's funds after COMPLETED make it
// RECEIVED with payment_received and credit the account; the amount 2050
// is NOT_RECEIVED at once; COMPLETED>NOT_RECEIVED waits for the scheme's
// timeframe on the clock, and late funds through POST /payin still match.
func TestConnectReconciliation(t *testing.T) {
	t.Parallel()
	apptest.Each(t, func(t *testing.T, env *apptest.Env) {
		acct := openAccount(t, env, apptest.ShopID, "EUR", "Shop EUR")
		token := env.Token(t, apptest.Merchant)
		rc := apptest.NewReceiver(t)

		paid := mustCreate(t, env, token, expectedBody(rc, 1050, "Order 1"), map[string]string{scenarioHeader: "COMPLETED"})
		got := connectNotes(t, rc, paid.ID, 1)[0]
		if got.Status != "RECEIVED" || got.Amount != 1050 || got.Currency != "EUR" || got.Reference != "Order 1" || got.Sender == nil {
			t.Fatalf("payment_received %+v", got)
		}
		if notes := gatewayNotes(t, rc, paid.ID, 2); notes != "PENDING/BANK_REDIRECT COMPLETED/COMPLETED" {
			t.Fatalf("gateway notifications %s", notes)
		}
		d := getDetails(t, env, token, paid.ID)
		if d.Status != "RECEIVED" || d.Account.ID != acct.ID || d.Account.IBAN != acct.IBAN {
			t.Fatalf("details: status %s account %+v", d.Status, d.Account)
		}
		if st, hist := statusHistory(t, env, token, paid.ID); hist != "NEW_PAYMENT BANK_REDIRECT AUTHORISED_BY_USER COMPLETED RECEIVED" {
			t.Fatalf("history %s %s", st, hist)
		}
		if b := accountBalance(t, env, token, acct.ID); b.Balance.Available != 1050 {
			t.Fatalf("balance %+v", b.Balance)
		}
		txs := accountTransactions(t, env, token, acct.ID)
		if len(txs) != 1 || txs[0].Type != "GATEWAY_PAYMENT" || txs[0].PaymentID == nil || *txs[0].PaymentID != paid.ID || txs[0].Amount != 1050 {
			t.Fatalf("transactions %+v", txs)
		}

		magic := mustCreate(t, env, token, expectedBody(rc, 2050, "Order 2"), map[string]string{scenarioHeader: "COMPLETED"})
		if n := connectNotes(t, rc, magic.ID, 1)[0]; n.Status != "NOT_RECEIVED" || n.Sender != nil {
			t.Fatalf("2050: %+v", n)
		}
		if st, _ := statusHistory(t, env, token, magic.ID); st != "NOT_RECEIVED" {
			t.Fatalf("2050 is %s", st)
		}

		late := mustCreate(t, env, token, expectedBody(rc, 700, "Order 3"), map[string]string{scenarioHeader: "COMPLETED>NOT_RECEIVED"})
		gatewayNotes(t, rc, late.ID, 2)
		env.Clock.Advance(24*time.Hour - time.Second) // SEPA Instant: one day
		rc.Quiet(t, len(rc.Got()))
		if st, _ := statusHistory(t, env, token, late.ID); st != "COMPLETED" {
			t.Fatalf("before the timeframe: %s", st)
		}
		env.Clock.Advance(time.Second)
		if n := connectNotes(t, rc, late.ID, 1)[0]; n.Status != "NOT_RECEIVED" {
			t.Fatalf("after the timeframe: %+v", n)
		}
		token = env.Token(t, apptest.Merchant) // a day later: a fresh token
		// Late funds still match, on the reference.
		if resp := payin(t, env, token, "ext-late", "Order 3", 700, "EUR", acct.IBAN); resp.Status != http.StatusAccepted || len(resp.Body) != 0 {
			t.Fatalf("payin: %d %s", resp.Status, resp.Body)
		}
		notes := connectNotes(t, rc, late.ID, 2)
		if notes[1].Status != "RECEIVED" || notes[1].Sender == nil || notes[1].Sender.Name != "Anna Müller" || notes[1].Sender.IBAN != "DE89370400440532013000" {
			t.Fatalf("late payment_received %+v", notes[1])
		}
		if st, hist := statusHistory(t, env, token, late.ID); st != "RECEIVED" || !strings.HasSuffix(hist, "COMPLETED NOT_RECEIVED RECEIVED") {
			t.Fatalf("late funds: %s %s", st, hist)
		}
		// The same externalPaymentId again changes nothing.
		if resp := payin(t, env, token, "ext-late", "Order 3", 700, "EUR", acct.IBAN); resp.Status != http.StatusAccepted {
			t.Fatalf("repeat: %d %s", resp.Status, resp.Body)
		}
		// Funds that match nothing are kept as a MANUAL_CREDIT.
		env.Clock.Advance(time.Second)
		if resp := payin(t, env, token, "ext-stray", "no such order", 99, "EUR", acct.IBAN); resp.Status != http.StatusAccepted {
			t.Fatalf("stray: %d %s", resp.Status, resp.Body)
		}
		if b := accountBalance(t, env, token, acct.ID); b.Balance.Available != 1050+700+99 {
			t.Fatalf("balance %+v", b.Balance)
		}
		txs = accountTransactions(t, env, token, acct.ID)
		if len(txs) != 3 || txs[0].Type != "MANUAL_CREDIT" || txs[0].PaymentID != nil || txs[0].Reference != "no such order" ||
			txs[1].Type != "GATEWAY_PAYMENT" || *txs[1].PaymentID != late.ID {
			t.Fatalf("transactions %+v", txs)
		}
		rc.Quiet(t, len(rc.Got()))
		for _, tx := range txs {
			if tx.Counterparty.Name == "" {
				t.Fatalf("transaction without its sender: %+v", tx)
			}
		}
		// The books balance: the cached balance is the sum of the postings.
		entries, err := env.App.Store().Ledger().Entries(t.Context(), acct.ID)
		if err != nil {
			t.Fatal(err)
		}
		if sum := ledger.Replay(entries)[acct.ID]; sum.Available != 1849 {
			t.Fatalf("postings sum to %+v", sum)
		}
	})
}

func TestPayinRefusals(t *testing.T) {
	t.Parallel()
	apptest.Each(t, func(t *testing.T, env *apptest.Env) {
		// Without a Connect account in its currency a payment still needs its beneficiary.
		b := euBody()
		delete(b, "beneficiary")
		e := postPayment(t, env, env.Token(t, apptest.OtherMerch), b, nil).Error(t, http.StatusUnprocessableEntity, "VALIDATION_FAILURE")
		if e.Errors[0].PropertyPath != "beneficiary" {
			t.Fatalf("beneficiary: %+v", e)
		}
		acct := openAccount(t, env, apptest.ShopID, "EUR", "main")
		theirs := openAccount(t, env, apptest.OtherShopID, "EUR", "main")
		token := env.Token(t, apptest.Merchant)
		for _, tc := range []struct {
			name, ext, currency, iban, path string
			amount                          int64
		}{
			{"unknown IBAN", "e1", "EUR", "DE89370400440532013000", "beneficiary.accountIdentifiers.iban", 100},
			{"another customer's account", "e2", "EUR", theirs.IBAN, "beneficiary.accountIdentifiers.iban", 100},
			{"another currency", "e3", "GBP", acct.IBAN, "amount.currency", 100},
			{"no external id", "", "EUR", acct.IBAN, "externalPaymentId", 100},
			{"zero amount", "e4", "EUR", acct.IBAN, "amount.amount", 0},
			{"bad IBAN", "e5", "EUR", "DE00370400440532013000", "beneficiary.accountIdentifiers.iban", 100},
		} {
			e := payin(t, env, token, tc.ext, "ref", tc.amount, tc.currency, tc.iban).Error(t, http.StatusUnprocessableEntity, "VALIDATION_FAILURE")
			if len(e.Errors) == 0 || e.Errors[0].PropertyPath != tc.path {
				t.Fatalf("%s: %+v", tc.name, e)
			}
		}
		payin(t, env, env.Token(t, apptest.Viewer), "e6", "ref", 100, "EUR", acct.IBAN).Error(t, http.StatusForbidden, "ACCESS_DENIED")
		if b := accountBalance(t, env, token, acct.ID); b.Balance.Available != 0 {
			t.Fatalf("refused funds were booked: %+v", b.Balance)
		}
	})
}

func TestPayinIsSandboxOnly(t *testing.T) {
	t.Parallel()
	env := apptest.New(t, apptest.Production)
	payin(t, env, env.Token(t, apptest.Merchant), "e", "r", 1, "EUR", "DE89370400440532013000").Error(t, http.StatusNotFound, "RESOURCE_NOT_FOUND")
}

// A merchant with a Connect account may leave out the beneficiary on the
// legacy API and POST /dropin too: the contract's four-field dropin
// request works, and the payment is expected on the account.
func TestLegacyAndDropinWithoutBeneficiary(t *testing.T) {
	t.Parallel()
	apptest.Each(t, func(t *testing.T, env *apptest.Env) {
		acct := openAccount(t, env, apptest.ShopID, "EUR", "main")
		token := env.Token(t, apptest.Merchant)
		resp := postDropin(t, env, token, map[string]any{"currencyCode": "EUR", "amount": 1050, "type": "BILL",
			"shopper": map[string]any{"reference": "cust-1"}}, nil)
		var dropin struct{ ID, Token string }
		resp.JSON(t, &dropin)
		if resp.Status != http.StatusCreated || dropin.ID == "" {
			t.Fatalf("dropin: %d %s", resp.Status, resp.Body)
		}
		body := legacyBody()
		delete(body, "beneficiary")
		legacy := mustCreateLegacy(t, env, token, body, nil)
		for _, id := range []string{dropin.ID, legacy.ID} {
			if d := getDetails(t, env, token, id); d.Account.ID != acct.ID || d.Account.IBAN != acct.IBAN {
				t.Fatalf("payment %s is not expected on the account: %+v", id, d.Account)
			}
		}
	})
}

// Funds before the bank's answer (the contract's rule 1): a payment still
// DELAYED_AT_BANK moves to RECEIVED at once, payment_received goes out and
// the COMPLETED gateway notification follows it; the bank's later answer
// no longer applies.
func TestFundsBeforeTheBanksAnswer(t *testing.T) {
	t.Parallel()
	apptest.Each(t, func(t *testing.T, env *apptest.Env) {
		acct := openAccount(t, env, apptest.ShopID, "EUR", "main")
		token := env.Token(t, apptest.Merchant)
		rc := apptest.NewReceiver(t)
		p := mustCreate(t, env, token, expectedBody(rc, 1500, "Early 1"), map[string]string{scenarioHeader: "DELAYED_AT_BANK>COMPLETED"})
		gatewayNotes(t, rc, p.ID, 2)
		if resp := payin(t, env, token, "ext-early", p.ID, 1500, "EUR", acct.IBAN); resp.Status != http.StatusAccepted {
			t.Fatalf("payin: %d %s", resp.Status, resp.Body)
		}
		if n := connectNotes(t, rc, p.ID, 1)[0]; n.Status != "RECEIVED" || n.Sender == nil {
			t.Fatalf("payment_received %+v", n)
		}
		if notes := gatewayNotes(t, rc, p.ID, 3); notes != "PENDING/BANK_REDIRECT PENDING/DELAYED_AT_BANK COMPLETED/COMPLETED" {
			t.Fatalf("gateway %s", notes)
		}
		var order []string
		for _, r := range rc.Got() {
			if n := verify(t, r); n.Connect != nil && n.Connect.Payment == p.ID {
				order = append(order, "payment_received")
			} else if n.Gateway != nil && n.Gateway.Payment == p.ID {
				order = append(order, n.Gateway.Status)
			}
		}
		if strings.Join(order, " ") != "PENDING PENDING payment_received COMPLETED" {
			t.Fatalf("order %v", order)
		}
		env.Clock.Advance(time.Hour) // the delayed bank's answer was due after 2 minutes
		rc.Quiet(t, len(rc.Got()))
		if st, hist := statusHistory(t, env, token, p.ID); st != "RECEIVED" || hist != "NEW_PAYMENT BANK_REDIRECT DELAYED_AT_BANK RECEIVED" {
			t.Fatalf("history %s %s", st, hist)
		}
		if b := accountBalance(t, env, token, acct.ID); b.Balance.Available != 1500 {
			t.Fatalf("balance %+v", b.Balance)
		}
	})
}

// A payment is expected on a Connect account only where its money goes
// (docs/decisions.md): without a beneficiary (the oldest account in the
// currency), or with a beneficiary that names the account: its IBAN in any
// spelling (also a second account's), or the sort code and account number
// of a GB account. A beneficiary that names another account is an ordinary
// payment: no account in its details, no Connect move after COMPLETED (not
// even for 2050), nothing to refund, and funds with its reference are a
// MANUAL_CREDIT; on the legacy API too.
func TestExpectedOnlyWhereTheMoneyGoes(t *testing.T) {
	t.Parallel()
	apptest.Each(t, func(t *testing.T, env *apptest.Env) {
		main := openAccount(t, env, apptest.ShopID, "EUR", "main")
		second := openAccount(t, env, apptest.ShopID, "EUR", "second")
		uk := openAccount(t, env, apptest.ShopID, "GBP", "uk")
		token := env.Token(t, apptest.Merchant)
		rc := apptest.NewReceiver(t)
		completed := map[string]string{scenarioHeader: "COMPLETED"}
		to := func(b map[string]any, ids map[string]any) map[string]any {
			return with(b, "beneficiary", map[string]any{"name": "Shop", "accountIdentifiers": ids})
		}

		// Named by IBAN, spaced and in lower case: the second account.
		spaced := strings.ToLower(second.IBAN[:4] + " " + second.IBAN[4:12] + " " + second.IBAN[12:])
		p := mustCreate(t, env, token, to(expectedBody(rc, 800, "Named 1"), map[string]any{"iban": spaced}), completed)
		if n := connectNotes(t, rc, p.ID, 1)[0]; n.Status != "RECEIVED" {
			t.Fatalf("named by IBAN: %+v", n)
		}
		if d := getDetails(t, env, token, p.ID); d.Account.ID != second.ID || d.Status != "RECEIVED" {
			t.Fatalf("named by IBAN: %s on %+v", d.Status, d.Account)
		}
		if b := accountBalance(t, env, token, second.ID); b.Balance.Available != 800 {
			t.Fatalf("second account %+v", b.Balance)
		}
		// Without a beneficiary: the oldest account.
		p = mustCreate(t, env, token, expectedBody(rc, 900, "Unnamed 1"), nil)
		if d := getDetails(t, env, token, p.ID); d.Account.ID != main.ID {
			t.Fatalf("without a beneficiary: %+v", d.Account)
		}
		// A UK payment naming the GB account's sort code and account number.
		ukPay := with(ukBody(), "beneficiary", map[string]any{"name": "Shop",
			"accountIdentifiers": map[string]any{"sortCode": uk.IBAN[8:14], "accountNumber": uk.IBAN[14:22]}})
		p = mustCreate(t, env, token, ukPay, nil)
		if d := getDetails(t, env, token, p.ID); d.Account.ID != uk.ID {
			t.Fatalf("UK identifiers of the account: %+v", d.Account)
		}
		p = mustCreate(t, env, token, ukBody(), nil) // another UK account
		if d := getDetails(t, env, token, p.ID); d.Account.ID == uk.ID || d.RefundNotAvailableCode != "NO_CONNECT_ACCOUNT" {
			t.Fatalf("another UK account: expected on %+v (%s)", d.Account, d.RefundNotAvailableCode)
		}

		// Another beneficiary: an ordinary payment.
		elsewhere := to(expectedBody(rc, 1200, "Elsewhere 1"), map[string]any{"iban": "DE89370400440532013000"})
		p = mustCreate(t, env, token, elsewhere, completed)
		if notes := gatewayNotes(t, rc, p.ID, 2); notes != "PENDING/BANK_REDIRECT COMPLETED/COMPLETED" {
			t.Fatalf("gateway notifications %s", notes)
		}
		magic := mustCreate(t, env, token, to(expectedBody(rc, 2050, "Elsewhere 2"), map[string]any{"iban": "DE89370400440532013000"}), completed)
		gatewayNotes(t, rc, magic.ID, 2)
		for _, id := range []string{p.ID, magic.ID} {
			d := getDetails(t, env, token, id)
			if d.Status != "COMPLETED" || d.Account.ID == main.ID || d.Account.IBAN != "DE89370400440532013000" || d.RefundAvailable ||
				d.RefundNotAvailableCode != "NO_CONNECT_ACCOUNT" {
				t.Fatalf("another beneficiary: %s on %+v, refund %v %q", d.Status, d.Account, d.RefundAvailable, d.RefundNotAvailableCode)
			}
		}
		requestRefund(t, env, token, p.ID, map[string]any{"externalReference": "x"}, nil).Error(t, http.StatusConflict, "RESOURCE_NOT_MODIFIABLE")
		if resp := payin(t, env, token, "ext-elsewhere", "Elsewhere 1", 1200, "EUR", main.IBAN); resp.Status != http.StatusAccepted {
			t.Fatalf("payin: %d %s", resp.Status, resp.Body)
		}
		if txs := accountTransactions(t, env, token, main.ID); len(txs) != 1 || txs[0].Type != "MANUAL_CREDIT" || txs[0].PaymentID != nil {
			t.Fatalf("funds of a payment not expected: %+v", txs)
		}
		if d := getDetails(t, env, token, p.ID); d.Status != "COMPLETED" {
			t.Fatalf("funds moved a payment not expected: %s", d.Status)
		}
		for _, c := range rc.Got() {
			if n := verify(t, c); n.Connect != nil && (n.Connect.Payment == p.ID || n.Connect.Payment == magic.ID) {
				t.Fatalf("a Connect notification of a payment not expected: %+v", n.Connect)
			}
		}
		// The legacy API: its beneficiary names another account.
		legacy := mustCreateLegacy(t, env, token, legacyBody(), nil)
		if d := getDetails(t, env, token, legacy.ID); d.Account.ID == main.ID || d.RefundNotAvailableCode != "NO_CONNECT_ACCOUNT" {
			t.Fatalf("legacy payment to another account: expected on %+v", d.Account)
		}
		body := legacyBody()
		body["beneficiary"] = map[string]any{"name": "Shop", "iban": main.IBAN}
		legacy = mustCreateLegacy(t, env, token, body, nil)
		if d := getDetails(t, env, token, legacy.ID); d.Account.ID != main.ID {
			t.Fatalf("legacy payment to the account: %+v", d.Account)
		}
	})
}
