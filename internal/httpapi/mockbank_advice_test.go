package httpapi_test

import (
	"maps"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/bankrail/bankrail/internal/apptest"
	"github.com/bankrail/bankrail/internal/pain"
	"github.com/bankrail/bankrail/internal/pain/xsdcheck"
	"github.com/bankrail/bankrail/internal/payout"
	"github.com/bankrail/bankrail/internal/statement"
)

// bankFileJSON is an entry of GET /sandbox/bank-files.
type bankFileJSON struct {
	ID, MsgID, Message, Direction, Original, Currency string
	Count, Amount                                     int64
	Links                                             struct{ Download linkJSON } `json:"_links"`
}

// The sandbox's mock bank books the transfers it carries out with a
// camt.054 debit advice applied by the statement importer, as production's
// bank statements are: a payout that completes has one debit entry; one
// that fails (1570) comes back, the return (RtrInf) first, then the debit;
// a rejected one (2570) has no advice; a refund that fails (1177) comes
// back as the payout does. Each advice validates against the
// official schema, is listed and downloadable at GET /sandbox/bank-files
// beside its pain.001 and pain.002, and is an import the operator sees at
// GET /statements; the account ends where the books say.
func TestSandboxMockBankBooksWithDebitAdvices(t *testing.T) {
	t.Parallel()
	apptest.Each(t, func(t *testing.T, env *apptest.Env) {
		rc := apptest.NewReceiver(t)
		env.SetNotificationURL(t, apptest.Merchant, rc.URL)
		acct := fundedAccount(t, env, "advices", 10_000)
		token := env.Token(t, apptest.Merchant)
		const ahv = "account_holder_verification_result_completed"
		done := mustPayout(t, env, token, payoutBody(acct.ID, 1000, "Jane Doe"), nil)
		payoutNotes(t, rc, done.ID, ahv, "payout_confirmed")
		failed := mustPayout(t, env, token, payoutBody(acct.ID, payout.FailingAmount, "Jane Doe"), nil)
		payoutNotes(t, rc, failed.ID, ahv, "payout_failed")
		rejected := mustPayout(t, env, token, payoutBody(acct.ID, payout.RejectedAmount, "Jane Doe"), nil)
		payoutNotes(t, rc, rejected.ID, ahv, "payout_failed")
		for id, want := range map[string]string{done.ID: "COMPLETED", failed.ID: "FAILED", rejected.ID: "REJECTED"} {
			if got := getPayout(t, env, token, id); got.Status != want {
				t.Fatalf("payout %s is %s, want %s", id, got.Status, want)
			}
		}
		wantBalance(t, env, acct, 9000, 0)
		paid := mustCreate(t, env, token, expectedBody(rc, 3000, "Advice R"), map[string]string{scenarioHeader: "COMPLETED"})
		connectNotes(t, rc, paid.ID, 1)
		mustRefund(t, env, token, paid.ID, map[string]any{"amount": 1177, "externalReference": "F"}, nil) // 1177 fails
		if n := refundNotes(t, rc, paid.ID, 1)[0]; n["status"] != "FAILED" {
			t.Fatalf("the failing refund: %v", n)
		}
		wantBalance(t, env, acct, 12_000, 0)

		var files []bankFileJSON
		env.Do(t, apptest.Request{Method: "GET", Path: "/sandbox/bank-files?direction=IN&limit=100", Token: token, Header: v1}).JSON(t, &files)
		advices := map[string]string{} // payout id -> the advice's XML
		refundAdvice := ""
		for _, f := range files {
			if f.Message != "camt.054.001.08" {
				continue
			}
			resp := env.Do(t, apptest.Request{Method: "GET", Path: f.Links.Download.Href, Token: token})
			if resp.Status != http.StatusOK || resp.Header.Get("Content-Type") != "application/xml" || f.Links.Download.Method != "GET" {
				t.Fatalf("download %s: %d %v", f.Links.Download.Href, resp.Status, resp.Header)
			}
			xsdcheck.Validate(t, "camt.054.001.08.xsd", resp.Body)
			if strings.Contains(string(resp.Body), `<Amt Ccy="EUR">11.77</Amt>`) {
				refundAdvice = string(resp.Body)
			}
			for _, p := range []payoutJSON{done, failed, rejected} {
				if strings.Contains(string(resp.Body), "<EndToEndId>"+pain.EndToEndID(p.ID)+"</EndToEndId>") {
					advices[p.ID] = string(resp.Body)
					if f.Currency != "EUR" || !strings.HasPrefix(f.Original, "BR") {
						t.Fatalf("the advice of %s listed as %+v", p.ID, f)
					}
				}
			}
		}
		if len(advices) != 2 || advices[rejected.ID] != "" {
			t.Fatalf("advices of the completed and the failed payout only, got those of %v", slices.Collect(maps.Keys(advices)))
		}
		if a := advices[done.ID]; strings.Count(a, "<Ntry>") != 1 || !strings.Contains(a, "<CdtDbtInd>DBIT</CdtDbtInd>") ||
			strings.Contains(a, "RtrInf") || !strings.Contains(a, `<Amt Ccy="EUR">10.00</Amt>`) || !strings.Contains(a, acct.IBAN) {
			t.Fatalf("the completed payout's advice:\n%s", a)
		}
		a := advices[failed.ID]
		ret, debit := strings.Index(a, "<RtrInf>"), strings.Index(a, "<CdtDbtInd>DBIT</CdtDbtInd>")
		if strings.Count(a, "<Ntry>") != 2 || ret < 0 || debit < ret || !strings.Contains(a, "<CdtDbtInd>CRDT</CdtDbtInd>") ||
			!strings.Contains(a, "<Cd>MS03</Cd>") {
			t.Fatalf("the failed payout's advice (its return, then its debit):\n%s", a)
		}
		if strings.Count(refundAdvice, "<Ntry>") != 2 || !strings.Contains(refundAdvice, "<RtrInf>") {
			t.Fatalf("the failed refund's advice (its return, then its debit):\n%s", refundAdvice)
		}

		// The operator sees each advice as an import of the statement importer.
		var imports struct{ Statements []statement.Summary }
		env.Do(t, apptest.Request{Method: "GET", Path: "/statements?limit=500", Token: env.Token(t, apptest.Operator), Header: v1}).JSON(t, &imports)
		byMsg := map[string]statement.Summary{}
		for _, s := range imports.Statements {
			byMsg[s.MessageID] = s
		}
		if s := byMsg[statement.ArrivalMsgID(paid.ID)]; s.Matched != 1 || s.OutgoingConfirmed != 0 {
			t.Fatalf("the import of the expected payment's credit advice: %+v", s)
		}
		for _, f := range files {
			if f.Message != "camt.054.001.08" || f.MsgID == statement.ArrivalMsgID(paid.ID) { // the debit advices
				continue
			}
			s, ok := byMsg[f.MsgID]
			if !ok || s.Message != "camt.054.001.08" || s.OutgoingConfirmed != 1 || s.Exceptions != 0 || len(s.Rejected) != 0 ||
				len(s.Accounts) != 1 || !s.Accounts[0].Known || s.Accounts[0].IBAN != acct.IBAN {
				t.Fatalf("the import of advice %s: %+v (found %v)", f.MsgID, s, ok)
			}
			if s.Returned != 0 && (s.Returned != 1 || s.Accounts[0].Credited != s.Accounts[0].Debited) {
				t.Fatalf("the import of the return %s: %+v", f.MsgID, s)
			}
		}
	})
}
