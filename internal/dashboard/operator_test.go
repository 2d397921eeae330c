package dashboard_test

import (
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/bankrail/bankrail/internal/apptest"
	"github.com/bankrail/bankrail/internal/camt/camttest"
	"github.com/bankrail/bankrail/internal/statement"
)

// apiWording is what a page must not say: the API's codes and wording.
var apiWording = []string{"BAD_REQUEST", "VALIDATION_FAILURE", "RESOURCE_NOT_MODIFIABLE", "POST /statements",
	"POST /transfer-status", "request body", "application/xml", "propertyPath"}

// operatorStatement is a camt.053 on the shop's account: a stray credit
// (MANUAL_CREDIT), a bank fee bankrail did not initiate (an exception), an
// amount EUR cannot hold (rejected), a pending entry (not booked), and a
// closing balance the ledger does not reach (the fee).
func operatorStatement(iban string) string {
	closing := int64(10_000 + 500 - 300)
	return camttest.String(53, 8, "STMT-OPS-1", camttest.Stmt{IBAN: iban, Closing: &closing, Entries: []camttest.Entry{
		{AcctSvcrRef: "B1", Minor: 500, Credit: true, Txs: []camttest.Tx{{Ustrd: []string{"no such order"}, Name: "Anna Payer"}}},
		{AcctSvcrRef: "B2", Minor: 300, Txs: []camttest.Tx{{Name: "Bank fee"}}},
		{AcctSvcrRef: "B3", Amount: "8.855", Credit: true},
		{AcctSvcrRef: "B4", Minor: 100, Credit: true, Status: "PDNG"},
	}})
}

// An operator, in production, on both engines: signs in to the
// statements; imports a camt.053 through the page's form (its summary:
// message, matched, manual credits, exceptions, rejected with the reason,
// the closing balance against the ledger and the difference); a file
// that is no statement and a form without a file are refused in the page
// with the importer's reason, nothing kept; resolves the fee's exception
// (an empty note refused, a second resolution refused); lists the
// pain.001 file a payout went into, downloads it, imports the bank's
// pain.002 rejecting it (the payout REJECTED), again (nothing changed),
// and a file that is no pain.002 (refused). Forms without the token or
// from another site do nothing.
func TestOperatorPages(t *testing.T) {
	t.Parallel()
	apptest.Each(t, func(t *testing.T, env *apptest.Env) {
		acct := openAccount(t, env, apptest.ShopID, "EUR", "Payouts EUR")
		payout := filedPayout(t, env, acct, 1234)
		c := signInAt(t, env, apptest.Operator, "/dashboard/statements")
		nav := c.open("/dashboard/statements").Body
		contains(t, "operator's navigation", nav, `href="/dashboard/statements"`, `href="/dashboard/reconciliation-exceptions"`,
			`href="/dashboard/transfer-files"`)
		lacks(t, "operator's navigation", nav, `href="/dashboard/payments"`, `href="/dashboard/payouts"`)
		for _, path := range []string{"/dashboard/", "/dashboard/sign-in"} {
			if p := c.get(path); p.Location != "/dashboard/statements" {
				t.Fatalf("%s sends the signed-in operator to %q", path, p.Location)
			}
		}
		if p := c.get("/dashboard/payments"); p.Status != http.StatusForbidden {
			t.Fatalf("the operator on the payments: %d", p.Status)
		}

		// A statement through the form.
		doc := []byte(operatorStatement(acct.IBAN))
		if p := c.upload("/dashboard/statements", url.Values{"csrf": {""}}, "day.xml", doc, nil); p.Status != http.StatusForbidden {
			t.Fatalf("an upload without the token: %d", p.Status)
		}
		c.open("/dashboard/statements")
		if p := c.upload("/dashboard/statements", nil, "day.xml", doc, map[string]string{"Sec-Fetch-Site": "cross-site"}); p.Status != http.StatusForbidden {
			t.Fatalf("an upload from another site: %d", p.Status)
		}
		p := c.upload("/dashboard/statements", nil, "day-2026-11-26.xml", doc, nil)
		if p.Status != http.StatusSeeOther || !strings.HasPrefix(p.Location, "/dashboard/statements?done=statement#import-") {
			t.Fatalf("import: %d to %q\n%s", p.Status, p.Location, p.Body)
		}
		page := mainOf(c.open(p.Location).Body)
		contains(t, "statements page", page, "The statement was imported", "day-2026-11-26.xml", "camt.053.001.08", "STMT-OPS-1",
			`<dd class="matched">0</dd>`, `<dd class="manual">1</dd>`, `<dd class="exceptions"><a href="/dashboard/reconciliation-exceptions">1</a></dd>`,
			`<dd class="rejected-count">1</dd>`, "entry 3 (AcctSvcrRef B3)", "8.855 EUR", acct.IBAN,
			"1 transaction · 5.00 EUR", "1 transaction · 3.00 EUR", "102.00 EUR", "105.00 EUR", `<span class="status bad">-3.00 EUR</span>`)
		if n := strings.Count(page, `class="panel import"`); n != 1 {
			t.Fatalf("%d imports listed, want 1", n)
		}

		// Refused files: the importer's reason, in the page's words; nothing kept.
		for _, tc := range []struct {
			name    string
			content []byte
			status  int
			want    string
		}{
			{"transfers.xml", []byte(`<Document xmlns="urn:iso:std:iso:20022:tech:xsd:pain.001.001.10"><CstmrCdtTrfInitn/></Document>`),
				http.StatusBadRequest, "The file transfers.xml was not imported: The file is pain.001.001.10, not a statement bankrail reads"},
			{"cut.xml", doc[:300], http.StatusBadRequest, "The file cut.xml was not imported: The file is not well-formed XML"},
			{"empty.xml", nil, http.StatusBadRequest, "The file empty.xml was not imported: The file is empty"},
			{"", nil, http.StatusUnprocessableEntity, "Choose the statement file (camt.053 or camt.054) to import."},
		} {
			p := c.upload("/dashboard/statements", nil, tc.name, tc.content, nil)
			if p.Status != tc.status {
				t.Fatalf("%q: %d, want %d\n%s", tc.name, p.Status, tc.status, p.Body)
			}
			problem := regexp.MustCompile(`(?s)<div class="problem" role="alert">(.*?)</div>`).FindStringSubmatch(p.Body)
			if problem == nil || !strings.Contains(problem[1], tc.want) {
				t.Fatalf("%q: the problem %q does not say %q", tc.name, problem, tc.want)
			}
			lacks(t, "refused upload "+tc.name, problem[1], apiWording...)
		}
		if n := strings.Count(c.open("/dashboard/statements").Body, `class="panel import"`); n != 1 {
			t.Fatalf("%d imports listed after the refused files, want 1", n)
		}

		// The fee's exception, resolved with a note.
		page = c.open("/dashboard/reconciliation-exceptions").Body
		contains(t, "exceptions page", page, "Debit of 3.00 EUR", acct.IBAN, "entry 2 (AcctSvcrRef B2)", "Bank fee")
		m := regexp.MustCompile(`action="(/dashboard/reconciliation-exceptions/([0-9a-f-]{36})/resolve)"`).FindStringSubmatch(page)
		if m == nil {
			t.Fatalf("no resolve form:\n%s", page)
		}
		refused := c.post(m[1], url.Values{"note": {"  "}})
		if refused.Status != http.StatusUnprocessableEntity {
			t.Fatalf("an empty note: %d", refused.Status)
		}
		contains(t, "refused note", mainOf(refused.Body), "Your note is required (at most 500 characters)")
		lacks(t, "refused note", mainOf(refused.Body), apiWording...)
		if got := c.act(m[1], url.Values{"note": {"bank fee, booked in the fee ledger"}}); got != "/dashboard/reconciliation-exceptions?done=resolved" {
			t.Fatalf("resolved to %q", got)
		}
		page = mainOf(c.open("/dashboard/reconciliation-exceptions?done=resolved").Body)
		contains(t, "open exceptions after resolving", page, "The exception is resolved, with your note.", "No open exception")
		page = mainOf(c.open("/dashboard/reconciliation-exceptions?status=RESOLVED").Body)
		contains(t, "resolved exceptions", page, "bank fee, booked in the fee ledger", apptest.Operator.Username, "RESOLVED")
		lacks(t, "resolved exceptions", page, `/resolve"`)
		if again := c.post(m[1], url.Values{"note": {"again"}}); again.Status != http.StatusConflict || !strings.Contains(again.Body, `role="alert"`) {
			t.Fatalf("resolve again: %d\n%s", again.Status, again.Body)
		}
		ops := env.Token(t, apptest.Operator)
		var exc struct{ Exceptions []statement.Exception }
		env.Do(t, apptest.Request{Method: "GET", Path: "/reconciliation-exceptions", Token: ops, Header: v1}).JSON(t, &exc)
		if len(exc.Exceptions) != 1 || exc.Exceptions[0].ID != m[2] || exc.Exceptions[0].Resolution != "bank fee, booked in the fee ledger" {
			t.Fatalf("the API's exceptions %+v", exc.Exceptions)
		}

		// The transfer file, its download, the bank's answer.
		page = c.open("/dashboard/transfer-files").Body
		f := fileLink.FindStringSubmatch(page)
		if f == nil {
			t.Fatalf("no pain.001 file listed:\n%s", mainOf(page))
		}
		xml := c.get(f[2])
		if xml.Status != http.StatusOK || xml.Header.Get("Content-Type") != "application/xml" ||
			xml.Header.Get("Content-Disposition") != `attachment; filename=`+f[1]+`.xml` || !strings.Contains(xml.Body, "<MsgId>"+f[1]+"</MsgId>") {
			t.Fatalf("download: %d %v\n%.300s", xml.Status, xml.Header, xml.Body)
		}
		for _, path := range []string{"/dashboard/transfer-files/nope/download", "/dashboard/transfer-files/01a21d31-1819-7946-891f-b39ba9f283b4/download"} {
			if p := c.get(path); p.Status != http.StatusNotFound {
				t.Fatalf("GET %s: %d", path, p.Status)
			}
		}
		if p := c.post("/dashboard/reconciliation-exceptions/01a21d31-1819-7946-891f-b39ba9f283b4/resolve", url.Values{"note": {"n"}}); p.Status != http.StatusNotFound {
			t.Fatalf("resolve an unknown exception: %d", p.Status)
		}
		c.open("/dashboard/transfer-files")
		if p := c.upload("/dashboard/transfer-status", nil, "pain001.xml", []byte(xml.Body), nil); p.Status != http.StatusUnprocessableEntity ||
			!strings.Contains(p.Body, "The file pain001.xml was not imported: The file is not a pain.002.001.11 payment status report") {
			t.Fatalf("a pain.001 as the answer: %d\n%s", p.Status, mainOf(p.Body))
		}
		if p := c.upload("/dashboard/transfer-status", nil, "", nil, nil); p.Status != http.StatusUnprocessableEntity ||
			!strings.Contains(p.Body, "Choose the bank&#39;s status report (pain.002) to import.") {
			t.Fatalf("no file: %d\n%s", p.Status, mainOf(p.Body))
		}
		answer := rejection(t, f[1])
		p = c.upload("/dashboard/transfer-status", nil, "answer.xml", answer, nil)
		if p.Status != http.StatusOK {
			t.Fatalf("the bank's answer: %d\n%s", p.Status, mainOf(p.Body))
		}
		contains(t, "the answer's result", mainOf(p.Body), "The bank&#39;s status report was imported.", "BANK-REJECT-1", f[1],
			`<dd class="accepted">0 `, `<dd class="rejected">1 `)
		if s := payoutStatus(t, env, env.Token(t, apptest.Merchant), payout); s != "REJECTED" {
			t.Fatalf("payout after the bank's rejection: %s", s)
		}
		p = c.upload("/dashboard/transfer-status", nil, "answer.xml", answer, nil)
		contains(t, "the answer again", mainOf(p.Body), "This status report was imported before: nothing changed.", `<dd class="rejected">0 `)
		actions := strings.Join(auditActions(t, env, apptest.OperatorID), "|")
		for _, want := range []string{"dashboard.sign_in", "POST /dashboard/statements", "POST /dashboard/reconciliation-exceptions/{id}/resolve",
			"POST /dashboard/transfer-status"} {
			if !strings.Contains(actions, want) {
				t.Fatalf("the operator's audit log lacks %q: %s", want, actions)
			}
		}
		page = mainOf(c.open("/dashboard/transfer-files?direction=IN").Body)
		contains(t, "the IN files", page, "BANK-REJECT-1", "pain.002.001.11", "answers <code>"+f[1]+"</code>")
		lacks(t, "the IN files", page, "<td>OUT</td>")
	}, apptest.Production)
}

// Every tenant (a PSP's ADMIN, a merchant's ADMIN, READ_ONLY, another
// merchant) sees none of the operator's pages in its navigation and gets
// 403 on each page, download and form, as the API answers them
// (ACCESS_DENIED: authenticated, the page exists, the role lacks
// bank:operate); nothing is imported nor resolved. On both engines.
func TestOperatorPagesRefuseTenants(t *testing.T) {
	t.Parallel()
	apptest.Each(t, func(t *testing.T, env *apptest.Env) {
		acct := openAccount(t, env, apptest.ShopID, "EUR", "Shop EUR")
		ops := signInAt(t, env, apptest.Operator, "/dashboard/statements")
		if p := ops.upload("/dashboard/statements", nil, "day.xml", []byte(operatorStatement(acct.IBAN)), nil); p.Status != http.StatusSeeOther {
			t.Fatalf("the operator's import: %d\n%s", p.Status, mainOf(p.Body))
		}
		exception := regexp.MustCompile(`/dashboard/reconciliation-exceptions/([0-9a-f-]{36})/resolve`).
			FindStringSubmatch(ops.open("/dashboard/reconciliation-exceptions").Body)
		if exception == nil {
			t.Fatal("no open exception")
		}
		other := camttest.String(54, 8, "OTHER-1", camttest.Stmt{IBAN: acct.IBAN, Entries: []camttest.Entry{{AcctSvcrRef: "T1", Minor: 700, Credit: true}}})
		for _, l := range []apptest.Login{apptest.PSPAdmin, apptest.Merchant, apptest.Viewer, apptest.OtherMerch} {
			c := signInAt(t, env, l, "/dashboard/payments")
			lacks(t, l.Username+"'s navigation", c.open("/dashboard/payments").Body, `href="/dashboard/statements"`,
				`href="/dashboard/reconciliation-exceptions"`, `href="/dashboard/transfer-files"`)
			for _, path := range []string{"/dashboard/statements", "/dashboard/reconciliation-exceptions", "/dashboard/transfer-files",
				"/dashboard/transfer-files/01a21d31-1819-7946-891f-b39ba9f283b4/download"} {
				if p := c.get(path); p.Status != http.StatusForbidden || !strings.Contains(p.Body, "may not open this page") {
					t.Fatalf("%s GET %s: %d", l.Username, path, p.Status)
				}
			}
			c.open("/dashboard/payments")
			if p := c.post("/dashboard/reconciliation-exceptions/"+exception[1]+"/resolve", url.Values{"note": {"mine"}}); p.Status != http.StatusForbidden ||
				!strings.Contains(p.Body, "may not do this; nothing was done") {
				t.Fatalf("%s resolves: %d", l.Username, p.Status)
			}
			for _, path := range []string{"/dashboard/statements", "/dashboard/transfer-status"} {
				if p := c.upload(path, nil, "file.xml", []byte(other), nil); p.Status != http.StatusForbidden ||
					!strings.Contains(p.Body, "may not do this; nothing was done") {
					t.Fatalf("%s uploads to %s: %d", l.Username, path, p.Status)
				}
			}
		}
		token := env.Token(t, apptest.Operator)
		var list struct{ Statements []statement.Summary }
		env.Do(t, apptest.Request{Method: "GET", Path: "/statements", Token: token, Header: v1}).JSON(t, &list)
		if len(list.Statements) != 1 {
			t.Fatalf("imports after the tenants' uploads: %+v", list.Statements)
		}
		var exc struct{ Exceptions []statement.Exception }
		env.Do(t, apptest.Request{Method: "GET", Path: "/reconciliation-exceptions?status=OPEN", Token: token, Header: v1}).JSON(t, &exc)
		if len(exc.Exceptions) != 1 || exc.Exceptions[0].ID != exception[1] {
			t.Fatalf("open exceptions after the tenants' attempts: %+v", exc.Exceptions)
		}
	})
}
