package httpapi_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/bankrail/bankrail/internal/apptest"
	"github.com/bankrail/bankrail/internal/pain/xsdcheck"
	"github.com/bankrail/bankrail/internal/statement"
)

// creditAdvices lists the mock bank's credit advices of completed expected
// payments (CR-...) that the customer of token sees at GET
// /sandbox/bank-files?direction=IN.
func creditAdvices(t *testing.T, env *apptest.Env, token string) map[string]bankFileJSON {
	t.Helper()
	var files []bankFileJSON
	env.Do(t, apptest.Request{Method: "GET", Path: "/sandbox/bank-files?direction=IN&limit=100", Token: token, Header: v1}).JSON(t, &files)
	out := map[string]bankFileJSON{}
	for _, f := range files {
		if strings.HasPrefix(f.MsgID, "CR-") {
			out[f.MsgID] = f
		}
	}
	return out
}

// The sandbox's mock bank sends the funds of a completed expected payment
// as a camt.054.001.08 credit advice, from the payer's account with the
// payment's unique reference in RmtInf/Ustrd: an IN bank file of the
// payment's customer (listed, downloadable, valid against the XSD), booked
// by the statement importer in the unit of work of the COMPLETED move (the
// payment RECEIVED, payment_received with the sender, the GATEWAY_PAYMENT
// credit), its summary at GET /statements for operators. Another customer
// neither lists it nor downloads it (404). The amount 2050 and the
// scenario COMPLETED>NOT_RECEIVED send nothing: no advice.
func TestCompletedExpectedPaymentsFundsAreACreditAdvice(t *testing.T) {
	t.Parallel()
	apptest.Each(t, func(t *testing.T, env *apptest.Env) {
		acct := openAccount(t, env, apptest.ShopID, "EUR", "Shop EUR")
		token, other, operator := env.Token(t, apptest.Merchant), env.Token(t, apptest.OtherMerch), env.Token(t, apptest.Operator)
		rc := apptest.NewReceiver(t)

		paid := mustCreate(t, env, token, expectedBody(rc, 1050, "Order 1"), map[string]string{scenarioHeader: "COMPLETED"})
		note := connectNotes(t, rc, paid.ID, 1)[0]
		if note.Status != "RECEIVED" || note.Sender == nil || note.Sender.IBAN == "" || note.Sender.Name == "" {
			t.Fatalf("payment_received %+v", note)
		}
		if st, hist := statusHistory(t, env, token, paid.ID); hist != "NEW_PAYMENT BANK_REDIRECT AUTHORISED_BY_USER COMPLETED RECEIVED" {
			t.Fatalf("history %s %s", st, hist)
		}
		txs := accountTransactions(t, env, token, acct.ID)
		if len(txs) != 1 || txs[0].Type != "GATEWAY_PAYMENT" || txs[0].PaymentID == nil || *txs[0].PaymentID != paid.ID ||
			txs[0].Amount != 1050 || txs[0].Reference != note.Reference || txs[0].Counterparty.IBAN != note.Sender.IBAN {
			t.Fatalf("transactions %+v", txs)
		}

		msgID := statement.ArrivalMsgID(paid.ID)
		f, ok := creditAdvices(t, env, token)[msgID]
		if !ok || f.Message != "camt.054.001.08" || f.Direction != "IN" || f.Count != 1 || f.Amount != 1050 || f.Currency != "EUR" {
			t.Fatalf("the payment's credit advice %s in %+v", msgID, creditAdvices(t, env, token))
		}
		resp := env.Do(t, apptest.Request{Method: "GET", Path: f.Links.Download.Href, Token: token})
		if resp.Status != http.StatusOK || resp.Header.Get("Content-Type") != "application/xml" {
			t.Fatalf("download %s: %d %v", f.Links.Download.Href, resp.Status, resp.Header)
		}
		xsdcheck.Validate(t, "camt.054.001.08.xsd", resp.Body)
		body := string(resp.Body)
		for _, want := range []string{"<MsgId>" + msgID + "</MsgId>", "<AcctSvcrRef>" + msgID + "</AcctSvcrRef>", "<CdtDbtInd>CRDT</CdtDbtInd>",
			"<IBAN>" + acct.IBAN + "</IBAN>", "<IBAN>" + note.Sender.IBAN + "</IBAN>", "<Ustrd>" + note.Reference + "</Ustrd>", `<Amt Ccy="EUR">10.50</Amt>`} {
			if !strings.Contains(body, want) {
				t.Fatalf("the advice lacks %s:\n%s", want, body)
			}
		}

		var list struct{ Statements []statement.Summary }
		env.Do(t, apptest.Request{Method: "GET", Path: "/statements", Token: operator, Header: v1}).JSON(t, &list)
		if len(list.Statements) != 1 || list.Statements[0].MessageID != msgID || list.Statements[0].Message != "camt.054.001.08" ||
			list.Statements[0].Matched != 1 || list.Statements[0].ManualCredits != 0 {
			t.Fatalf("the operator's statements: %+v", list.Statements)
		}

		if _, ok := creditAdvices(t, env, other)[msgID]; ok {
			t.Fatal("another customer lists the advice")
		}
		if resp := env.Do(t, apptest.Request{Method: "GET", Path: f.Links.Download.Href, Token: other}); resp.Status != http.StatusNotFound {
			t.Fatalf("another customer downloads the advice: %d", resp.Status)
		}

		magic := mustCreate(t, env, token, expectedBody(rc, 2050, "Order 2"), map[string]string{scenarioHeader: "COMPLETED"})
		late := mustCreate(t, env, token, expectedBody(rc, 700, "Order 3"), map[string]string{scenarioHeader: "COMPLETED>NOT_RECEIVED"})
		if n := connectNotes(t, rc, magic.ID, 1)[0]; n.Status != "NOT_RECEIVED" {
			t.Fatalf("2050: %+v", n)
		}
		if st, _ := statusHistory(t, env, token, late.ID); st != "COMPLETED" {
			t.Fatalf("COMPLETED>NOT_RECEIVED is %s", st)
		}
		advices := creditAdvices(t, env, token)
		for _, id := range []string{magic.ID, late.ID} {
			if _, ok := advices[statement.ArrivalMsgID(id)]; ok {
				t.Fatalf("funds that never arrive have an advice: %+v", advices)
			}
		}
		if len(advices) != 1 {
			t.Fatalf("the merchant's credit advices: %+v", advices)
		}
	})
}
