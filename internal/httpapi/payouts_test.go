package httpapi_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/bankrail/bankrail/internal/apptest"
	"github.com/bankrail/bankrail/internal/identity"
	"github.com/bankrail/bankrail/internal/ledger"
	"github.com/bankrail/bankrail/internal/payout"
)

// payoutJSON is a payout as the tests read it.
type payoutJSON struct {
	ID, AccountID, Type, Status, Currency, PaymentReference, AccountHolderVerificationID string
	Amount                                                                               int64
	Beneficiary                                                                          struct {
		Name               string
		AccountIdentifiers struct{ IBAN, SortCode, AccountNumber string }
	}
	SettledPayments *[]settledJSON // SETTLEMENT payouts only
}

// settledJSON is an entry of a SETTLEMENT payout's settledPayments.
type settledJSON struct {
	PaymentID string
	Amount    int64
}

// verificationJSON is an account holder verification as the tests read it.
type verificationJSON struct {
	ID, TransactionID, Status, Result, ExecutedAt string
	AccountHolderName                             struct {
		Requested string
		Returned  *string
	}
	Decision *struct {
		Performer                struct{ ID, Name, Type string }
		Type, Subject, CreatedAt string
	}
	Links struct{ Self, Transaction linkJSON } `json:"_links"`
}

// linkJSON is one entry of a record's _links, as the contract shows it.
type linkJSON struct{ Href, Method string }

const payeeIBAN = "DE89370400440532013000"

func payoutBody(accountID string, amount int64, name string) map[string]any {
	return map[string]any{"accountId": accountID, "amount": amount, "currency": "EUR", "paymentReference": "Invoice 42",
		"beneficiary": map[string]any{"name": name, "accountIdentifiers": map[string]any{"iban": payeeIBAN}}}
}

func postPayout(t *testing.T, env *apptest.Env, token string, body map[string]any, headers map[string]string) *apptest.Response {
	t.Helper()
	h := map[string]string{"X-Service-Api-Version": "1"}
	for k, v := range headers {
		h[k] = v
	}
	return env.Do(t, apptest.Request{Method: "POST", Path: "/payouts", Token: token, Header: h, Body: body})
}

func mustPayout(t *testing.T, env *apptest.Env, token string, body map[string]any, headers map[string]string) payoutJSON {
	t.Helper()
	resp := postPayout(t, env, token, body, headers)
	var p payoutJSON
	resp.JSON(t, &p)
	if resp.Status != http.StatusCreated || p.Status != "CREATED" || resp.Header.Get("Location") != "/payouts/"+p.ID {
		t.Fatalf("payout: %d %s %v", resp.Status, resp.Body, resp.Header)
	}
	return p
}

func getPayout(t *testing.T, env *apptest.Env, token, id string) payoutJSON {
	t.Helper()
	var p payoutJSON
	env.Do(t, apptest.Request{Method: "GET", Path: "/payouts/" + id, Token: token, Header: v1}).JSON(t, &p)
	return p
}

func getVerification(t *testing.T, env *apptest.Env, token, id string) verificationJSON {
	t.Helper()
	var v verificationJSON
	env.Do(t, apptest.Request{Method: "GET", Path: "/account-holder-verifications/" + id, Token: token, Header: v1}).JSON(t, &v)
	return v
}

// payoutNotes waits until the notifications of payout id include all of
// types (in that order) and returns their bodies by type.
func payoutNotes(t *testing.T, rc *apptest.Receiver, id string, types ...string) map[string]map[string]any {
	t.Helper()
	var got map[string]map[string]any
	var order []string
	apptest.Eventually(t, "notifications "+strings.Join(types, ", ")+" of payout "+id, func() bool {
		got, order = map[string]map[string]any{}, nil
		for _, r := range rc.Got() {
			note := verify(t, r)
			var b map[string]any
			if err := json.Unmarshal(r.Body, &b); err != nil {
				t.Fatal(err)
			}
			if b["payout"] == id || b["transactionId"] == id {
				got[note.Type] = b
				order = append(order, note.Type)
			}
		}
		return len(order) >= len(types)
	})
	if strings.Join(order, ",") != strings.Join(types, ",") {
		t.Fatalf("payout %s notifications %v, want %v", id, order, types)
	}
	return got
}

// heldBalance is the account's balance as the ledger keeps it (the wire
// shows available and pending only).
func heldBalance(t *testing.T, env *apptest.Env, acct ledger.Account) ledger.Balance {
	t.Helper()
	a, err := env.App.Accounts().Account(identity.WithPrincipal(t.Context(), identity.Principal{Role: identity.RoleAdmin}), acct.CustomerID, acct.ID)
	if err != nil {
		t.Fatal(err)
	}
	return a.Balance
}

func wantBalance(t *testing.T, env *apptest.Env, acct ledger.Account, available, held int64) {
	t.Helper()
	if b := heldBalance(t, env, acct); b.Available != available || b.Held != held {
		t.Fatalf("balance %+v, want available %d held %d", b, available, held)
	}
}

// Each payout path through HTTP with its notifications and the balance
// after each move: MATCH completes, 1570 fails, 2570 and PAYOUT_REJECTED
// are rejected, CLOSE_MATCH is held then approved, NO_MATCH held then
// rejected, ERROR held until it expires after 7 days on the clock.
func TestPayoutPaths(t *testing.T) {
	t.Parallel()
	apptest.Each(t, func(t *testing.T, env *apptest.Env) {
		rc := apptest.NewReceiver(t)
		env.SetNotificationURL(t, apptest.Merchant, rc.URL)
		acct := fundedAccount(t, env, "payouts", 100_000)
		token := env.Token(t, apptest.Merchant)
		const ahv = "account_holder_verification_result_completed"

		// MATCH: on at once to COMPLETED; the money left.
		p := mustPayout(t, env, token, payoutBody(acct.ID, 1000, "Jane Doe"), map[string]string{"Idempotency-Key": "po-1"})
		if p.Amount != 1000 || p.AccountID != acct.ID || p.Type != "PAYOUT" || p.Beneficiary.AccountIdentifiers.IBAN != payeeIBAN {
			t.Fatalf("payout %+v", p)
		}
		n := payoutNotes(t, rc, p.ID, ahv, "payout_confirmed")
		if c := n["payout_confirmed"]; c["status"] != "COMPLETED" || c["amount"] != float64(1000) || c["accountId"] != acct.ID ||
			c["currency"] != "EUR" || c["paymentReference"] != "Invoice 42" || c["timestamp"] == nil {
			t.Fatalf("payout_confirmed %v", c)
		}
		if n[ahv]["result"] != "MATCH" {
			t.Fatalf("%s %v", ahv, n[ahv])
		}
		if got := getPayout(t, env, token, p.ID); got.Status != "COMPLETED" {
			t.Fatalf("read back %+v", got)
		}
		wantBalance(t, env, acct, 99_000, 0)
		v := getVerification(t, env, token, p.AccountHolderVerificationID)
		if v.Status != "COMPLETED" || v.Result != "MATCH" || v.TransactionID != p.ID || v.AccountHolderName.Requested != "Jane Doe" ||
			v.AccountHolderName.Returned == nil || *v.AccountHolderName.Returned != "Jane Doe" || v.Decision != nil ||
			v.Links.Self != (linkJSON{"/account-holder-verifications/" + v.ID, "GET"}) ||
			v.Links.Transaction != (linkJSON{"/payouts/" + p.ID, "GET"}) {
			t.Fatalf("verification %+v", v)
		}
		var found []verificationJSON
		env.Do(t, apptest.Request{Method: "GET", Path: "/account-holder-verifications?transactionId=" + p.ID, Token: token, Header: v1}).JSON(t, &found)
		if len(found) != 1 || found[0].ID != v.ID {
			t.Fatalf("verifications of the payout %+v", found)
		}
		env.Do(t, apptest.Request{Method: "GET", Path: "/account-holder-verifications", Token: token, Header: v1}).
			Error(t, http.StatusBadRequest, "MISSING_QUERY_PARAM")
		var tx transactionJSON
		env.Do(t, apptest.Request{Method: "GET", Path: "/transactions/" + p.ID, Token: token, Header: v1}).JSON(t, &tx)
		if tx.Type != "PAYOUT" || tx.Status != "COMPLETED" {
			t.Fatalf("the payout's transaction %+v", tx)
		}
		// A replay is the stored answer; another body under the key is refused.
		again := postPayout(t, env, token, payoutBody(acct.ID, 1000, "Jane Doe"), map[string]string{"Idempotency-Key": "po-1"})
		if again.Status != http.StatusCreated || again.Header.Get("Idempotent-Replayed") != "true" {
			t.Fatalf("replay %d %v", again.Status, again.Header)
		}
		postPayout(t, env, token, payoutBody(acct.ID, 1001, "Jane Doe"), map[string]string{"Idempotency-Key": "po-1"}).
			Error(t, http.StatusConflict, "IDEMPOTENCY_CONFLICT")
		wantBalance(t, env, acct, 99_000, 0)

		// The sandbox's failures: the money comes back.
		failed := mustPayout(t, env, token, payoutBody(acct.ID, payout.FailingAmount, "Jane Doe"), nil)
		if f := payoutNotes(t, rc, failed.ID, ahv, "payout_failed")["payout_failed"]; f["status"] != "FAILED" {
			t.Fatalf("payout_failed %v", f)
		}
		wantBalance(t, env, acct, 99_000, 0)
		rejected := mustPayout(t, env, token, payoutBody(acct.ID, payout.RejectedAmount, "Jane Doe"), nil)
		if f := payoutNotes(t, rc, rejected.ID, ahv, "payout_failed")["payout_failed"]; f["status"] != "REJECTED" {
			t.Fatalf("2570 %v", f)
		}
		byScenario := mustPayout(t, env, token, payoutBody(acct.ID, 500, "Jane Doe"), map[string]string{scenarioHeader: "PAYOUT_REJECTED"})
		payoutNotes(t, rc, byScenario.ID, ahv, "payout_failed")
		if got := getPayout(t, env, token, byScenario.ID); got.Status != "REJECTED" {
			t.Fatalf("PAYOUT_REJECTED %+v", got)
		}
		wantBalance(t, env, acct, 99_000, 0)

		// CLOSE_MATCH: held, then approved by the user of the token.
		held := mustPayout(t, env, token, payoutBody(acct.ID, 2000, "Jane Doe"),
			map[string]string{scenarioHeader: "ACCOUNT_HOLDER_VERIFICATION_CLOSE_MATCH"})
		if r := payoutNotes(t, rc, held.ID, ahv)[ahv]; r["result"] != "CLOSE_MATCH" {
			t.Fatalf("%s %v", ahv, r)
		}
		wantBalance(t, env, acct, 97_000, 2000)
		if got := getPayout(t, env, token, held.ID); got.Status != "CREATED" {
			t.Fatalf("held payout %+v", got)
		}
		path := "/account-holder-verifications/" + held.AccountHolderVerificationID
		var d verificationJSON
		env.Do(t, apptest.Request{Method: "POST", Path: path + "/approve", Token: token, Header: v1}).JSON(t, &d)
		if d.Decision == nil || d.Decision.Type != "APPROVED" || d.Decision.Subject != "ACCOUNT_HOLDER_VERIFICATION" ||
			d.Decision.Performer.Type != "USER" || d.Decision.Performer.Name != apptest.Merchant.Username || d.Result != "CLOSE_MATCH" ||
			*d.AccountHolderName.Returned != "J. Doe" {
			t.Fatalf("approved %+v", d)
		}
		payoutNotes(t, rc, held.ID, ahv, "payout_confirmed")
		wantBalance(t, env, acct, 97_000, 0)
		env.Do(t, apptest.Request{Method: "POST", Path: path + "/reject", Token: token, Header: v1}).Error(t, http.StatusConflict, "RESOURCE_NOT_MODIFIABLE")
		env.Do(t, apptest.Request{Method: "POST", Path: "/account-holder-verifications/" + p.AccountHolderVerificationID + "/approve",
			Token: token, Header: v1}).Error(t, http.StatusConflict, "RESOURCE_NOT_MODIFIABLE")

		// NO_MATCH: held, then rejected by the API client (client credentials are not used here: a user decides).
		nomatch := mustPayout(t, env, token, payoutBody(acct.ID, 3000, "Jane Doe"),
			map[string]string{scenarioHeader: "ACCOUNT_HOLDER_VERIFICATION_NO_MATCH"})
		payoutNotes(t, rc, nomatch.ID, ahv)
		wantBalance(t, env, acct, 94_000, 3000)
		v = getVerification(t, env, token, nomatch.AccountHolderVerificationID)
		if v.Result != "NO_MATCH" || v.AccountHolderName.Returned == nil || *v.AccountHolderName.Returned == "Jane Doe" {
			t.Fatalf("no match %+v", v)
		}
		env.Do(t, apptest.Request{Method: "POST", Path: "/account-holder-verifications/" + v.ID + "/reject", Token: token, Header: v1}).JSON(t, &d)
		if d.Decision == nil || d.Decision.Type != "REJECTED" {
			t.Fatalf("rejected %+v", d)
		}
		if f := payoutNotes(t, rc, nomatch.ID, ahv, "payout_failed")["payout_failed"]; f["status"] != "REJECTED" {
			t.Fatalf("rejected payout %v", f)
		}
		wantBalance(t, env, acct, 97_000, 0)

		// ERROR: no name; held until it expires after 7 days on the clock.
		errored := mustPayout(t, env, token, payoutBody(acct.ID, 4000, "Jane Doe"),
			map[string]string{scenarioHeader: "ACCOUNT_HOLDER_VERIFICATION_ERROR"})
		payoutNotes(t, rc, errored.ID, ahv)
		if v := getVerification(t, env, token, errored.AccountHolderVerificationID); v.Result != "ERROR" || v.AccountHolderName.Returned != nil {
			t.Fatalf("error %+v", v)
		}
		env.Clock.Advance(payout.ExpiresAfter - 1)
		token = env.Token(t, apptest.Merchant) // the first one expired meanwhile
		if got := getPayout(t, env, token, errored.ID); got.Status != "CREATED" {
			t.Fatalf("before its expiry %+v", got)
		}
		env.Clock.Advance(1)
		if f := payoutNotes(t, rc, errored.ID, ahv, "payout_failed")["payout_failed"]; f["status"] != "REJECTED" {
			t.Fatalf("expired %v", f)
		}
		wantBalance(t, env, acct, 97_000, 0)
		env.Do(t, apptest.Request{Method: "POST", Path: "/account-holder-verifications/" + errored.AccountHolderVerificationID + "/approve",
			Token: token, Header: v1}).Error(t, http.StatusConflict, "RESOURCE_NOT_MODIFIABLE")

		// The list, filtered and paged.
		var list []payoutJSON
		resp := env.Do(t, apptest.Request{Method: "GET", Path: "/payouts?status=REJECTED&limit=2&accountId=" + acct.ID, Token: token, Header: v1})
		resp.JSON(t, &list)
		if resp.Header.Get("total-items") != "4" || len(list) != 2 || list[0].ID != errored.ID || list[1].ID != nomatch.ID {
			t.Fatalf("rejected payouts %v %+v", resp.Header, list)
		}
		env.Do(t, apptest.Request{Method: "GET", Path: "/payouts?status=NOPE", Token: token, Header: v1}).Error(t, http.StatusBadRequest, "INVALID_QUERY_PARAM")
	})
}

// Every field is checked at once; an amount above the available balance
// is TOO_HIGH; another customer's account is 404; a UK account.
func TestPayoutValidation(t *testing.T) {
	t.Parallel()
	apptest.Each(t, func(t *testing.T, env *apptest.Env) {
		acct := fundedAccount(t, env, "payouts", 5000)
		token := env.Token(t, apptest.Merchant)
		e := postPayout(t, env, token, map[string]any{"accountId": "nope", "amount": 0, "currency": "XXX", "paymentReference": "",
			"beneficiary": map[string]any{"name": "", "accountIdentifiers": map[string]any{"iban": "DE89370400440532013001"}}}, nil).
			Error(t, http.StatusUnprocessableEntity, "VALIDATION_FAILURE")
		got := map[string]string{}
		for _, x := range e.Errors {
			got[x.PropertyPath] = x.Type
		}
		want := map[string]string{"accountId": "INVALID_FORMAT", "amount": "TOO_LOW", "currency": "INVALID_VALUE",
			"paymentReference": "VALUE_REQUIRED", "beneficiary.name": "VALUE_REQUIRED",
			"beneficiary.accountIdentifiers.iban": "CHECKSUM_FAILED"}
		for k, v := range want {
			if got[k] != v {
				t.Errorf("%s: %q, want %q (all: %v)", k, got[k], v, got)
			}
		}
		uk := payoutBody(acct.ID, 100, "Jane Doe")
		uk["beneficiary"] = map[string]any{"name": "Jane Doe", "accountIdentifiers": map[string]any{"sortCode": "40-47", "accountNumber": "123"}}
		e = postPayout(t, env, token, uk, nil).Error(t, http.StatusUnprocessableEntity, "VALIDATION_FAILURE")
		if len(e.Errors) != 2 {
			t.Fatalf("UK account %+v", e)
		}
		uk["beneficiary"] = map[string]any{"name": "Jane Doe", "accountIdentifiers": map[string]any{"sortCode": "40-47-84", "accountNumber": "70872490"}}
		if p := mustPayout(t, env, token, uk, nil); p.Beneficiary.AccountIdentifiers.SortCode != "404784" {
			t.Fatalf("UK payout %+v", p)
		}
		e = postPayout(t, env, token, payoutBody(acct.ID, 4901, "Jane Doe"), nil).Error(t, http.StatusUnprocessableEntity, "VALIDATION_FAILURE")
		if e.Errors[0].Type != "TOO_HIGH" || e.Errors[0].PropertyPath != "amount" {
			t.Fatalf("above the balance %+v", e)
		}
		other := openAccount(t, env, apptest.OtherShopID, "EUR", "other")
		postPayout(t, env, token, payoutBody(other.ID, 100, "Jane Doe"), nil).Error(t, http.StatusNotFound, "RESOURCE_NOT_FOUND")
		postPayout(t, env, env.Token(t, apptest.Viewer), payoutBody(acct.ID, 100, "Jane Doe"), nil).Error(t, http.StatusForbidden, "ACCESS_DENIED")
		wantBalance(t, env, acct, 4900, 0)
	})
}

// A held payout expires on its own tenant's clock: advancing another
// tenant's clock by 7 days leaves it held; its own advance rejects it.
func TestPayoutExpiryOnTheTenantClock(t *testing.T) {
	t.Parallel()
	apptest.Each(t, func(t *testing.T, env *apptest.Env) {
		rc := apptest.NewReceiver(t)
		env.SetNotificationURL(t, apptest.Merchant, rc.URL)
		acct := fundedAccount(t, env, "payouts", 5000)
		token, stranger := env.Token(t, apptest.Merchant), env.Token(t, apptest.OtherMerch)
		held := mustPayout(t, env, token, payoutBody(acct.ID, 700, "Jane Doe"),
			map[string]string{scenarioHeader: "ACCOUNT_HOLDER_VERIFICATION_NO_MATCH"})
		payoutNotes(t, rc, held.ID, "account_holder_verification_result_completed")
		wantBalance(t, env, acct, 4300, 700)

		week := int64(payout.ExpiresAfter.Seconds())
		advanceClock(t, env, stranger, week) // another tenant's week
		rc.Quiet(t, 1)                       // the verification's notification alone
		if got := getPayout(t, env, token, held.ID); got.Status != "CREATED" {
			t.Fatalf("expired on another tenant's clock: %+v", got)
		}
		advanceClock(t, env, token, week-1)
		token = env.Token(t, apptest.Merchant) // the first one expired on the way
		rc.Quiet(t, 1)                         // the verification's notification alone
		if got := getPayout(t, env, token, held.ID); got.Status != "CREATED" {
			t.Fatalf("expired a second early: %+v", got)
		}
		advanceClock(t, env, token, 1)
		token = env.Token(t, apptest.Merchant)
		if f := payoutNotes(t, rc, held.ID, "account_holder_verification_result_completed", "payout_failed")["payout_failed"]; f["status"] != "REJECTED" {
			t.Fatalf("expired payout %v", f)
		}
		wantBalance(t, env, acct, 5000, 0)
		if v := getVerification(t, env, token, held.AccountHolderVerificationID); v.Decision != nil {
			t.Fatalf("an expiry is no decision: %+v", v)
		}
	})
}
