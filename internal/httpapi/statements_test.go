package httpapi_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/bankrail/bankrail/internal/apptest"
	"github.com/bankrail/bankrail/internal/camt/camttest"
	"github.com/bankrail/bankrail/internal/statement"
)

// The statement routes are the instance operator's: no customer's
// resource, and every tenant gets 403 (TestStatementRoutesAreForOperatorsOnly).
func init() {
	for _, r := range []string{"POST /statements", "GET /statements", "GET /reconciliation-exceptions",
		"POST /reconciliation-exceptions/{id}/resolve"} {
		tenancyExempt[r] = "the instance operator's, 403 to every tenant (TestStatementRoutesAreForOperatorsOnly)"
	}
}

var xmlHeader = map[string]string{"Content-Type": "application/xml", "X-Service-Api-Version": "1"}

func postStatement(t *testing.T, env *apptest.Env, token, doc string) *apptest.Response {
	t.Helper()
	return env.Do(t, apptest.Request{Method: "POST", Path: "/statements", Token: token, Header: xmlHeader, Body: doc})
}

// An operator imports a camt.053: the credit that names an expected
// payment makes it RECEIVED, a stray credit is a MANUAL_CREDIT, a debit
// bankrail did not send is an exception the operator resolves, an entry
// of 8.855 EUR is rejected, a pending entry and an unknown account move
// nothing; the same file again changes nothing; the summaries are listed.
func TestStatementImportByOperator(t *testing.T) {
	t.Parallel()
	apptest.Each(t, func(t *testing.T, env *apptest.Env) {
		acct := openAccount(t, env, apptest.ShopID, "EUR", "Shop EUR")
		merchant := env.Token(t, apptest.Merchant)
		rc := apptest.NewReceiver(t)
		p := mustCreate(t, env, merchant, expectedBody(rc, 2050, "Order 7"), map[string]string{scenarioHeader: "COMPLETED"}) // 2050: NOT_RECEIVED at once
		closing := int64(2050 + 500 - 300)
		doc := camttest.String(53, 8, "STMT-1", camttest.Stmt{IBAN: acct.IBAN, Closing: &closing, Entries: []camttest.Entry{
			{AcctSvcrRef: "B1", Minor: 2050, Credit: true, Txs: []camttest.Tx{{StrdRef: p.ID, Name: "Anna Payer", IBAN: "DE89370400440532013000"}}},
			{AcctSvcrRef: "B2", Minor: 500, Credit: true, Txs: []camttest.Tx{{Ustrd: []string{"no such order"}}}},
			{AcctSvcrRef: "B3", Minor: 300, Txs: []camttest.Tx{{Name: "Bank fee"}}},
			{AcctSvcrRef: "B4", Amount: "8.855", Credit: true},
			{AcctSvcrRef: "B5", Minor: 100, Credit: true, Status: "PDNG"},
		}}, camttest.Stmt{IBAN: "GB82WEST12345698765432", Entries: []camttest.Entry{{Minor: 700, Credit: true}}})
		operator := env.Token(t, apptest.Operator)
		resp := postStatement(t, env, operator, doc)
		if resp.Status != http.StatusCreated {
			t.Fatalf("POST /statements: %d %s", resp.Status, resp.Body)
		}
		var sum statement.Summary
		resp.JSON(t, &sum)
		if sum.Message != "camt.053.001.08" || sum.MessageID != "STMT-1" || sum.Matched != 1 || sum.ManualCredits != 1 ||
			sum.Exceptions != 1 || sum.Duplicates != 0 || sum.NotBooked != 1 || len(sum.Rejected) != 1 ||
			!strings.Contains(sum.Rejected[0].Reason, "8.855 EUR") || sum.Rejected[0].Entry != "entry 4 (AcctSvcrRef B4)" {
			t.Fatalf("summary %+v", sum)
		}
		if len(sum.Accounts) != 2 {
			t.Fatalf("accounts %+v", sum.Accounts)
		}
		a, u := sum.Accounts[0], sum.Accounts[1]
		if !a.Known || a.Credited != (statement.Sum{Count: 2, Amount: 2550, Currency: "EUR"}) || a.Debited != (statement.Sum{Count: 1, Amount: 300, Currency: "EUR"}) ||
			a.ClosingBank == nil || a.ClosingBank.Amount != 2250 || a.ClosingLedger == nil || a.ClosingLedger.Amount != 2550 || a.Difference == nil || *a.Difference != -300 {
			t.Fatalf("account %+v (bank %+v ledger %+v)", a, a.ClosingBank, a.ClosingLedger)
		}
		if u.Known || u.IBAN != "GB82WEST12345698765432" || u.Credited.Count != 1 || u.Credited.Amount != 700 {
			t.Fatalf("unknown account %+v", u)
		}
		if got := connectNotes(t, rc, p.ID, 2)[1]; got.Status != "RECEIVED" || got.Amount != 2050 {
			t.Fatalf("payment_received %+v", got)
		}
		if b := accountBalance(t, env, merchant, acct.ID); b.Balance.Available != 2550 {
			t.Fatalf("balance %+v, want 2550 available", b.Balance)
		}

		resp = postStatement(t, env, operator, doc)
		var again statement.Summary
		resp.JSON(t, &again)
		if resp.Status != http.StatusCreated || again.Duplicates != 3 || again.Matched+again.ManualCredits+again.Exceptions != 0 {
			t.Fatalf("the same file again: %d %+v", resp.Status, again)
		}
		if b := accountBalance(t, env, merchant, acct.ID); b.Balance.Available != 2550 {
			t.Fatalf("balance after the repeat %+v", b.Balance)
		}

		var list struct{ Statements []statement.Summary }
		env.Do(t, apptest.Request{Method: "GET", Path: "/statements", Token: operator, Header: v1}).JSON(t, &list)
		if len(list.Statements) != 2 || list.Statements[0].ID != again.ID || list.Statements[1].ID != sum.ID {
			t.Fatalf("GET /statements %+v", list)
		}
		var exc struct{ Exceptions []statement.Exception }
		env.Do(t, apptest.Request{Method: "GET", Path: "/reconciliation-exceptions?status=OPEN", Token: operator, Header: v1}).JSON(t, &exc)
		if len(exc.Exceptions) != 1 || exc.Exceptions[0].Amount != 300 || exc.Exceptions[0].Credit || exc.Exceptions[0].ImportID != sum.ID {
			t.Fatalf("exceptions %+v", exc)
		}
		path := "/reconciliation-exceptions/" + exc.Exceptions[0].ID + "/resolve"
		var resolved statement.Exception
		env.Do(t, apptest.Request{Method: "POST", Path: path, Token: operator, Header: v1,
			Body: map[string]string{"note": "bank fee, booked in the fee ledger"}}).JSON(t, &resolved)
		if resolved.Status != statement.ExceptionResolved || resolved.ResolvedBy != apptest.Operator.Username || resolved.ResolvedAt == nil {
			t.Fatalf("resolved %+v", resolved)
		}
		env.Do(t, apptest.Request{Method: "POST", Path: path, Token: operator, Header: v1,
			Body: map[string]string{"note": "again"}}).Error(t, http.StatusConflict, "RESOURCE_NOT_MODIFIABLE")
		env.Do(t, apptest.Request{Method: "POST", Path: path, Token: operator, Header: v1,
			Body: map[string]string{"note": " "}}).Error(t, http.StatusUnprocessableEntity, "VALIDATION_FAILURE")
	})
}

// A file that is no supported statement is 400 and writes nothing; a body
// that is not XML is 415.
func TestStatementImportRefusesOtherFiles(t *testing.T) {
	t.Parallel()
	env := apptest.New(t)
	operator := env.Token(t, apptest.Operator)
	for _, tc := range []struct{ name, doc, want string }{
		{"pain.001", `<Document xmlns="urn:iso:std:iso:20022:tech:xsd:pain.001.001.10"><CstmrCdtTrfInitn/></Document>`, "pain.001.001.10"},
		{"camt.053.001.09", `<Document xmlns="urn:iso:std:iso:20022:tech:xsd:camt.053.001.09"><BkToCstmrStmt/></Document>`, "camt.053.001.02 to camt.053.001.08"},
		{"truncated", camttest.String(53, 2, "T", camttest.Stmt{IBAN: "GB82WEST12345698765432",
			Entries: []camttest.Entry{{Minor: 1, Credit: true}}})[:300], "not well-formed XML"},
		{"empty", "", "empty"},
	} {
		e := postStatement(t, env, operator, tc.doc).Error(t, http.StatusBadRequest, "BAD_REQUEST")
		if !strings.Contains(e.Message, tc.want) {
			t.Errorf("%s: %q does not say %q", tc.name, e.Message, tc.want)
		}
	}
	env.Do(t, apptest.Request{Method: "POST", Path: "/statements", Token: operator, Header: v1, Body: map[string]any{"a": 1}}).
		Error(t, http.StatusUnsupportedMediaType, "UNSUPPORTED_MEDIA_TYPE")
	var list struct{ Statements []statement.Summary }
	env.Do(t, apptest.Request{Method: "GET", Path: "/statements", Token: operator, Header: v1}).JSON(t, &list)
	if len(list.Statements) != 0 {
		t.Fatalf("refused files were kept: %+v", list.Statements)
	}
}

// Every tenant, even a top-level customer's ADMIN, gets 403 ACCESS_DENIED
// on the operator's routes; the operator gets 403 on a merchant's.
func TestStatementRoutesAreForOperatorsOnly(t *testing.T) {
	t.Parallel()
	env := apptest.New(t)
	doc := camttest.String(54, 8, "N", camttest.Stmt{IBAN: "GB82WEST12345698765432"})
	for _, l := range []apptest.Login{apptest.PSPAdmin, apptest.Merchant, apptest.Viewer, apptest.OtherMerch} {
		token := env.Token(t, l)
		postStatement(t, env, token, doc).Error(t, http.StatusForbidden, "ACCESS_DENIED")
		env.Do(t, apptest.Request{Method: "GET", Path: "/statements", Token: token, Header: v1}).Error(t, http.StatusForbidden, "ACCESS_DENIED")
		env.Do(t, apptest.Request{Method: "GET", Path: "/reconciliation-exceptions", Token: token, Header: v1}).Error(t, http.StatusForbidden, "ACCESS_DENIED")
		env.Do(t, apptest.Request{Method: "POST", Path: "/reconciliation-exceptions/x/resolve", Token: token, Header: v1,
			Body: map[string]string{"note": "n"}}).Error(t, http.StatusForbidden, "ACCESS_DENIED")
	}
	operator := env.Token(t, apptest.Operator)
	env.Do(t, apptest.Request{Method: "GET", Path: "/payments", Token: operator, Header: v1}).Error(t, http.StatusForbidden, "ACCESS_DENIED")
	env.Do(t, apptest.Request{Method: "POST", Path: "/reconciliation-exceptions/none/resolve", Token: operator, Header: v1,
		Body: map[string]string{"note": "n"}}).Error(t, http.StatusNotFound, "RESOURCE_NOT_FOUND")
}
