package httpapi_test

import (
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/bankrail/bankrail/api"
	"github.com/bankrail/bankrail/internal/apptest"
	"github.com/bankrail/bankrail/internal/ledger"
	"github.com/bankrail/bankrail/internal/payout"
)

// settledPayout waits until GET /payouts/{id} shows status and returns it.
func settledPayout(t *testing.T, env *apptest.Env, token, id, status string) api.Payout {
	t.Helper()
	var p api.Payout
	apptest.Eventually(t, "payout "+id+" "+status, func() bool {
		env.Do(t, apptest.Request{Method: "GET", Path: "/payouts/" + id, Token: token, Header: v1}).JSON(t, &p)
		return string(p.Status) == status
	})
	return p
}

// wantPayoutRow fails unless the PAYOUTS row is the payout as GET
// /payouts/{id} shows it, field by field.
func wantPayoutRow(t *testing.T, row map[string]string, p api.Payout) {
	t.Helper()
	if row == nil {
		t.Fatalf("payout %s is not in the report", p.ID)
	}
	iban := ""
	if p.Beneficiary.AccountIdentifiers.IBAN != nil {
		iban = *p.Beneficiary.AccountIdentifiers.IBAN
	}
	want := map[string]string{"id": p.ID, "accountId": p.AccountID, "status": string(p.Status),
		"amount": strconv.FormatInt(p.Amount, 10), "currency": p.Currency, "paymentReference": guarded(p.PaymentReference),
		"beneficiaryName": guarded(p.Beneficiary.Name), "beneficiaryIban": iban}
	for col, v := range want {
		if row[col] != v {
			t.Errorf("payout %s: %s is %q in the CSV, %q in the API", p.ID, col, row[col], v)
		}
	}
	sameTime(t, "payout createdAt", row["createdAt"], p.CreatedAt)
	sameTime(t, "payout updatedAt", row["updatedAt"], p.UpdatedAt)
}

// guarded is a free-text cell as the CSV writes it: a leading ' before a
// character a spreadsheet would read as a formula.
func guarded(s string) string {
	if s != "" && strings.ContainsRune("=+-@\t\r", rune(s[0])) {
		return "'" + s
	}
	return s
}

// ids lists the first column of a report's data rows.
func ids(rows [][]string) []string {
	var out []string
	for _, r := range rows[1:] {
		out = append(out, r[0])
	}
	return out
}

// The PAYOUTS report lists the payouts of the period, oldest first, each
// row equal field by field to GET /payouts/{id} (every status, a UK account
// without an IBAN, formula-looking text); accountId narrows it to one
// account; a PSP's report covers its merchant, a merchant's only itself,
// and another merchant's report is 404.
func TestPayoutsReport(t *testing.T) {
	t.Parallel()
	apptest.Each(t, func(t *testing.T, env *apptest.Env) {
		acct := openAccount(t, env, apptest.ShopID, "EUR", "payouts")
		second := openAccount(t, env, apptest.ShopID, "EUR", "second")
		theirs := openAccount(t, env, apptest.OtherShopID, "EUR", "theirs")
		for _, a := range []ledger.Account{acct, second, theirs} {
			credit(t, env, a, 100_000, ledger.TypeManualCredit, env.Clock.Now())
		}
		token, other := env.Token(t, apptest.Merchant), env.Token(t, apptest.OtherMerch)
		type made struct {
			id, status string
			token      string
		}
		var all []made
		pay := func(tok string, body map[string]any, headers map[string]string, status string) {
			env.Clock.Advance(time.Second) // distinct createdAt: the report's order is known
			all = append(all, made{mustPayout(t, env, tok, body, headers).ID, status, tok})
		}
		pay(token, payoutBody(acct.ID, 1000, "Jane Doe"), nil, "COMPLETED")
		pay(token, payoutBody(acct.ID, payout.FailingAmount, "Jane Doe"), nil, "FAILED")
		pay(token, payoutBody(acct.ID, 500, "Jane Doe"), map[string]string{scenarioHeader: "PAYOUT_REJECTED"}, "REJECTED")
		pay(token, payoutBody(acct.ID, 2000, "Jane Doe"), map[string]string{scenarioHeader: "ACCOUNT_HOLDER_VERIFICATION_CLOSE_MATCH"}, "CREATED")
		formula := payoutBody(acct.ID, 1200, "=HYPERLINK(\"x\"), Jane")
		formula["paymentReference"] = "+44 \"quoted\", comma"
		pay(token, formula, nil, "COMPLETED")
		uk := payoutBody(acct.ID, 1300, "Jane Doe")
		uk["beneficiary"] = map[string]any{"name": "Jane Doe", "accountIdentifiers": map[string]any{"sortCode": "40-47-84", "accountNumber": "70872490"}}
		pay(token, uk, nil, "COMPLETED")
		pay(token, payoutBody(second.ID, 1400, "John Roe"), nil, "COMPLETED")
		pay(other, payoutBody(theirs.ID, 1500, "Theirs Ltd"), nil, "COMPLETED")
		got := map[string]api.Payout{}
		for _, m := range all {
			got[m.id] = settledPayout(t, env, m.token, m.id, m.status)
		}
		shop, others := all[:7], all[7:]
		idsOf := func(ms []made) string {
			var out []string
			for _, m := range ms {
				out = append(out, m.id)
			}
			return strings.Join(out, ",")
		}

		// The merchant's report: its payouts alone, oldest first, as the API shows them.
		id := requestReport(t, env, token, "/reports/payouts", period(nil))
		if rec := awaitReport(t, env, token, id); rec.Status != "REPORT_AVAILABLE" || rec.Type != "PAYOUTS" {
			t.Fatalf("report %+v", rec)
		}
		rows, _ := downloadCSV(t, env, token, id)
		if h := strings.Join(rows[0], ","); h != "id,accountId,createdAt,updatedAt,status,amount,currency,paymentReference,beneficiaryName,beneficiaryIban" {
			t.Fatalf("header %s", h)
		}
		if s := strings.Join(ids(rows), ","); s != idsOf(shop) {
			t.Fatalf("the merchant's PAYOUTS %s, want %s", s, idsOf(shop))
		}
		byID := byColumn(t, rows, "id")
		for _, m := range shop {
			wantPayoutRow(t, byID[m.id], got[m.id])
		}
		if r := byID[all[5].id]; r["beneficiaryIban"] != "" {
			t.Fatalf("a UK payout has no IBAN: %v", r)
		}

		// accountId: that account alone.
		rows = reportRows(t, env, token, "/reports/payouts", period(map[string]any{"accountId": second.ID}))
		if s := strings.Join(ids(rows), ","); s != all[6].id {
			t.Fatalf("PAYOUTS of the second account %s", s)
		}
		wantPayoutRow(t, byColumn(t, rows, "id")[all[6].id], got[all[6].id])

		// The PSP's report covers its merchant (not the other shop, which is not below it).
		psp := env.Token(t, apptest.PSPAdmin)
		rows = reportRows(t, env, psp, "/reports/payouts", period(nil))
		if s := strings.Join(ids(rows), ","); s != idsOf(shop) {
			t.Fatalf("the PSP's PAYOUTS %s, want its merchant's %s", s, idsOf(shop))
		}
		rows = reportRows(t, env, psp, "/reports/payouts", period(map[string]any{"customerId": apptest.ShopID, "accountId": acct.ID}))
		if s := strings.Join(ids(rows), ","); s != idsOf(shop[:6]) {
			t.Fatalf("the PSP's PAYOUTS of the merchant's account %s", s)
		}
		e := env.Do(t, apptest.Request{Method: "POST", Path: "/reports/payouts", Token: psp,
			Body: period(map[string]any{"customerId": apptest.OtherShopID})}).Error(t, http.StatusUnprocessableEntity, "VALIDATION_FAILURE")
		if len(e.Errors) != 1 || e.Errors[0].Type != "INVALID_VALUE" || e.Errors[0].PropertyPath != "customerId" {
			t.Fatalf("a customer outside the PSP: %+v", e)
		}

		// The other merchant sees its own payout only, and not the shop's report.
		rows = reportRows(t, env, other, "/reports/payouts", period(nil))
		if s := strings.Join(ids(rows), ","); s != idsOf(others) {
			t.Fatalf("the other merchant's PAYOUTS %s, want %s", s, idsOf(others))
		}
		wantPayoutRow(t, byColumn(t, rows, "id")[others[0].id], got[others[0].id])
		env.Do(t, apptest.Request{Method: "GET", Path: "/reports/" + id, Token: other}).Error(t, http.StatusNotFound, "RESOURCE_NOT_FOUND")
		env.Do(t, apptest.Request{Method: "GET", Path: "/reports/" + id + "/download", Token: other}).Error(t, http.StatusNotFound, "RESOURCE_NOT_FOUND")

		// A period without payouts is the header row alone (PAYOUTS has no allowEmpty).
		before := map[string]any{"startDate": apptest.Epoch.Add(-48 * time.Hour).Format(time.RFC3339),
			"endDate": apptest.Epoch.Add(-47 * time.Hour).Format(time.RFC3339)}
		if rows := reportRows(t, env, token, "/reports/payouts", before); len(rows) != 1 {
			t.Fatalf("an empty period: %v", rows)
		}
	})
}
