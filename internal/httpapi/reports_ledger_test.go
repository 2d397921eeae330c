package httpapi_test

import (
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/bankrail/bankrail/api"
	"github.com/bankrail/bankrail/internal/apptest"
)

// sameTime fails unless the CSV cell and the API's time are the same instant.
func sameTime(t *testing.T, what, cell string, want time.Time) {
	t.Helper()
	got, err := time.Parse(time.RFC3339Nano, cell)
	if err != nil || !got.Equal(want) || got.Location() != time.UTC {
		t.Errorf("%s: CSV %q, API %s (%v)", what, cell, want.Format(time.RFC3339Nano), err)
	}
}

// reportRows creates a report, waits for it and returns its parsed file.
func reportRows(t *testing.T, env *apptest.Env, token, path string, body map[string]any) [][]string {
	t.Helper()
	id := requestReport(t, env, token, path, body)
	if rec := awaitReport(t, env, token, id); rec.Status != "REPORT_AVAILABLE" {
		t.Fatalf("report %+v", rec)
	}
	rows, _ := downloadCSV(t, env, token, id)
	return rows
}

// A Connect account receives a payment and refunds part of it: the
// REFUNDS and CONNECT reports list exactly what GET /refunds/{id} and GET
// /accounts/{id}/transactions show, with their filters; another
// customer's account is refused; the refund's creation is in the audit log.
func TestLedgerReports(t *testing.T) {
	t.Parallel()
	apptest.Each(t, func(t *testing.T, env *apptest.Env) {
		acct := openAccount(t, env, apptest.ShopID, "EUR", "main")
		foreign := openAccount(t, env, apptest.OtherShopID, "EUR", "theirs")
		token := env.Token(t, apptest.Merchant)
		rc := apptest.NewReceiver(t)
		paid := mustCreate(t, env, token, expectedBody(rc, 1050, "+R1"), map[string]string{scenarioHeader: "COMPLETED"})
		connectNotes(t, rc, paid.ID, 1)
		f := mustRefund(t, env, token, paid.ID, map[string]any{"amount": 300, "externalReference": "RMA-1"},
			map[string]string{"X-Request-Id": "refund-1"})
		refundNotes(t, rc, paid.ID, 1)
		var refund api.Refund
		env.Do(t, apptest.Request{Method: "GET", Path: "/refunds/" + f.ID, Token: token, Header: v1}).JSON(t, &refund)
		var txs []api.AccountTransaction
		env.Do(t, apptest.Request{Method: "GET", Path: "/accounts/" + acct.ID + "/transactions?limit=100", Token: token, Header: v1}).JSON(t, &txs)
		if len(txs) != 2 || refund.Status != "CONFIRMED" {
			t.Fatalf("setup: refund %+v, transactions %+v", refund, txs)
		}

		// REFUNDS, with the event fee, then narrowed to the account without it.
		rows := reportRows(t, env, token, "/reports/refund", period(map[string]any{"includeEventFees": true}))
		if got := strings.Join(rows[0], ","); got != "id,paymentId,accountId,createdAt,updatedAt,status,amount,currency,externalReference,eventFee" {
			t.Fatalf("header %s", got)
		}
		if len(rows) != 2 {
			t.Fatalf("REFUNDS rows %v", rows)
		}
		r := byColumn(t, rows, "id")[refund.ID]
		if r == nil || r["paymentId"] != refund.PaymentID || r["accountId"] != acct.ID || r["status"] != string(refund.Status) ||
			r["amount"] != strconv.FormatInt(refund.Amount, 10) || r["currency"] != refund.Currency ||
			r["externalReference"] != refund.ExternalReference || r["eventFee"] != "0" {
			t.Fatalf("REFUNDS row %v, refund %+v", r, refund)
		}
		sameTime(t, "refund createdAt", r["createdAt"], refund.CreatedAt)
		sameTime(t, "refund updatedAt", r["updatedAt"], refund.UpdatedAt)
		rows = reportRows(t, env, token, "/reports/refund", period(map[string]any{"accountId": acct.ID}))
		if len(rows) != 2 || rows[1][0] != refund.ID || rows[1][9] != "" {
			t.Fatalf("REFUNDS of the account without fees %v", rows)
		}
		rows = reportRows(t, env, env.Token(t, apptest.PSPAdmin), "/reports/refund", period(nil))
		if len(rows) != 2 || rows[1][0] != refund.ID {
			t.Fatalf("the PSP's REFUNDS cover its merchant: %v", rows)
		}

		// PAYOUTS takes the account too: no payout, the header row alone
		// (TestPayoutsReport lists payouts).
		if rows := reportRows(t, env, token, "/reports/payouts", period(map[string]any{"accountId": acct.ID})); len(rows) != 1 {
			t.Fatalf("PAYOUTS %v", rows)
		}

		// CONNECT: every transaction of the account, then each filter.
		rows = reportRows(t, env, token, "/reports/connect/"+acct.ID, period(nil))
		if got := strings.Join(rows[0], ","); got != "transactionId,type,operation,createdAt,updatedAt,status,amount,currency,paymentId,paymentReference,counterpartyName,counterpartyIban" {
			t.Fatalf("header %s", got)
		}
		if len(rows) != len(txs)+1 {
			t.Fatalf("CONNECT rows %v, transactions %+v", rows, txs)
		}
		got := byColumn(t, rows, "transactionId")
		for _, tx := range txs {
			c := got[tx.ID]
			pay := ""
			if tx.PaymentID != nil {
				pay = *tx.PaymentID
			}
			ref := tx.Reference
			if ref != "" && strings.ContainsRune("=+-@", rune(ref[0])) {
				ref = "'" + ref // the formula guard
			}
			if c == nil || c["type"] != string(tx.Type) || c["operation"] != string(tx.Operation) || c["status"] != string(tx.Status) ||
				c["amount"] != strconv.FormatInt(tx.Amount, 10) || c["currency"] != tx.Currency || c["paymentId"] != pay ||
				c["paymentReference"] != ref || c["counterpartyName"] != tx.Counterparty.Name || c["counterpartyIban"] != tx.Counterparty.IBAN {
				t.Fatalf("CONNECT row %v, transaction %+v", c, tx)
			}
			sameTime(t, "transaction createdAt", c["createdAt"], tx.CreatedAt)
			sameTime(t, "transaction updatedAt", c["updatedAt"], tx.UpdatedAt)
		}
		if got[f.ID] != nil || len(got) != 2 {
			t.Fatalf("CONNECT rows are transactions, not refunds: %v", got)
		}
		types := func(rows [][]string) string {
			var out []string
			for _, r := range rows[1:] {
				out = append(out, r[1])
			}
			return strings.Join(out, ",")
		}
		if s := types(reportRows(t, env, token, "/reports/connect/"+acct.ID, period(map[string]any{"transactionTypes": []string{"REFUND"}}))); s != "REFUND" {
			t.Fatalf("transactionTypes REFUND: %s", s)
		}
		if s := types(reportRows(t, env, token, "/reports/connect/"+acct.ID, period(map[string]any{"transactionTypes": []string{"PAYMENT"},
			"dateFilterType": "updatedAt"}))); s != "GATEWAY_PAYMENT" {
			t.Fatalf("transactionTypes PAYMENT: %s", s)
		}
		before := map[string]any{"startDate": apptest.Epoch.Add(-48 * time.Hour).Format(time.RFC3339),
			"endDate": apptest.Epoch.Add(-47 * time.Hour).Format(time.RFC3339)}
		env.Do(t, apptest.Request{Method: "POST", Path: "/reports/connect/" + acct.ID, Token: token, Body: before}).
			Error(t, http.StatusUnprocessableEntity, "REPORT_EMPTY")
		before["allowEmpty"] = true
		if rows := reportRows(t, env, token, "/reports/connect/"+acct.ID, before); len(rows) != 1 {
			t.Fatalf("an empty period is the header alone: %v", rows)
		}

		// Another customer's account: 404 on CONNECT, INVALID_VALUE on REFUNDS.
		for _, id := range []string{foreign.ID, "00000000-0000-4000-8000-00000000ffff"} {
			env.Do(t, apptest.Request{Method: "POST", Path: "/reports/connect/" + id, Token: token, Body: period(nil)}).
				Error(t, http.StatusNotFound, "RESOURCE_NOT_FOUND")
			e := env.Do(t, apptest.Request{Method: "POST", Path: "/reports/refund", Token: token, Body: period(map[string]any{"accountId": id})}).
				Error(t, http.StatusUnprocessableEntity, "VALIDATION_FAILURE")
			if len(e.Errors) != 1 || e.Errors[0].Type != "INVALID_VALUE" || e.Errors[0].PropertyPath != "accountId" {
				t.Fatalf("foreign accountId: %+v", e)
			}
		}
		// The other merchant's own account is theirs to report on.
		if rows := reportRows(t, env, env.Token(t, apptest.OtherMerch), "/reports/connect/"+foreign.ID, period(map[string]any{"allowEmpty": true})); len(rows) != 1 {
			t.Fatalf("the other merchant's empty account: %v", rows)
		}

		// The refund's creation is in the audit log, naming the refund.
		rows = reportRows(t, env, token, "/reports/auditlog", period(nil))
		var found []string
		for _, r := range rows[1:] {
			if r[4] == "POST /payments/{id}/request-refund" {
				found = append(found, strings.Join(r[5:8], " "))
			}
		}
		if want := "refund " + f.ID + " refund-1"; len(found) != 1 || found[0] != want {
			t.Fatalf("refund creations in the audit log %v, want [%s]", found, want)
		}
	})
}
