package dashboard_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/bankrail/bankrail/internal/apptest"
	"github.com/bankrail/bankrail/internal/browsertest"
)

// operatorFixture is what the operator's browser tests find: a payout
// filed in a pain.001, and on disk a statement of its account, the bank's
// pain.002 rejecting the file, and a file that is no statement.
type operatorFixture struct {
	payout, msgID              string
	statement, answer, notCamt string // paths
}

// seedOperator makes the fixture in a production env.
func seedOperator(t *testing.T, env *apptest.Env) operatorFixture {
	t.Helper()
	acct := openAccount(t, env, apptest.ShopID, "EUR", "Payouts EUR")
	f := operatorFixture{payout: filedPayout(t, env, acct, 1234)}
	var files []struct{ MsgID string }
	env.Do(t, apptest.Request{Method: "GET", Path: "/transfer-files", Token: env.Token(t, apptest.Operator)}).JSON(t, &files)
	if len(files) != 1 {
		t.Fatalf("transfer files %+v", files)
	}
	f.msgID = files[0].MsgID
	dir := t.TempDir()
	write := func(name string, b []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, b, 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	f.statement = write("statement-2026-11-26.xml", []byte(operatorStatement(acct.IBAN)))
	f.answer = write("pain002.xml", rejection(t, f.msgID))
	f.notCamt = write("not-a-statement.xml", []byte(`<Document xmlns="urn:iso:std:iso:20022:tech:xsd:pain.001.001.10"><CstmrCdtTrfInitn/></Document>`))
	return f
}

// The operator's pages in a real browser without JavaScript, on a phone
// (390 px) and on a desktop, in production, on both engines: sign in
// lands on the statements; import a statement through the file field and
// read its summary; resolve its exception with a note; download the
// pain.001 file and import the bank's pain.002 rejecting it, reading what
// it did; a file that is no statement is refused in the page. Every page
// fits the window.
func TestBrowserOperatorPages(t *testing.T) {
	t.Parallel()
	inWindows(t, []apptest.Option{apptest.Production}, func(t *testing.T, w window) {
		env, ctx, shot := w.env, w.ctx, w.shot
		f := seedOperator(t, env)
		signInTo(t, ctx, env, apptest.Operator, browsertest.Page("statements")+" #statement-file")
		if nav := text(t, ctx, "nav.sections"); nav != "Statements\nExceptions\nTransfer files" && nav != "StatementsExceptionsTransfer files" {
			t.Fatalf("the operator's navigation %q", nav)
		}
		fits(t, ctx, "statements page")

		// A statement through the file field.
		browsertest.Steps(t, ctx, "choose the statement", chromedp.SetUploadFiles("#statement-file", []string{f.statement}))
		browsertest.Follow(t, ctx, "import", browsertest.Page("statements")+" .notice", chromedp.Submit("#statement-file"))
		summary := text(t, ctx, "article.import")
		for _, want := range []string{"statement-2026-11-26.xml", "camt.053.001.08", "entry 3 (AcctSvcrRef B3)", "8.855 EUR", "-3.00 EUR"} {
			if !strings.Contains(summary, want) {
				t.Fatalf("summary %q lacks %q", summary, want)
			}
		}
		fits(t, ctx, "statements page with a summary")
		shot("dashboard-statements.png")

		// Its exception, resolved.
		follow(t, ctx, "open the exceptions", `nav.sections a[href="/dashboard/reconciliation-exceptions"]`, browsertest.Page("exceptions")+" article.exception textarea")
		fits(t, ctx, "exceptions page")
		if got := text(t, ctx, "article.exception h2"); !strings.Contains(got, "Debit of 3.00 EUR") {
			t.Fatalf("exception %q", got)
		}
		browsertest.Steps(t, ctx, "type the note", chromedp.SendKeys("article.exception textarea", "bank fee, booked in the fee ledger"))
		browsertest.Follow(t, ctx, "resolve", browsertest.Page("exceptions")+" .notice", chromedp.Submit("article.exception textarea"))
		if got := text(t, ctx, "p.empty"); !strings.Contains(got, "No open exception") {
			t.Fatalf("after resolving %q", got)
		}

		// The pain.001 file and the bank's answer.
		follow(t, ctx, "open the transfer files", `nav.sections a[href="/dashboard/transfer-files"]`, browsertest.Page("transferfiles")+" table.files")
		fits(t, ctx, "transfer files page")
		if xml := download(t, ctx, "a.download"); !strings.Contains(xml, "<MsgId>"+f.msgID+"</MsgId>") || !strings.Contains(xml, "pain.001.001.10") {
			t.Fatalf("downloaded %.300q", xml)
		}
		browsertest.Steps(t, ctx, "choose the answer", chromedp.SetUploadFiles("#status-file", []string{f.answer}))
		browsertest.Follow(t, ctx, "import the answer", browsertest.Page("transferfiles")+" section.result", chromedp.Submit("#status-file"))
		if got := text(t, ctx, "section.result dd.rejected"); !strings.HasPrefix(got, "1 ") {
			t.Fatalf("rejected %q", got)
		}
		fits(t, ctx, "transfer files page with a result")
		shot("dashboard-transfer-files.png")
		if s := payoutStatus(t, env, env.Token(t, apptest.Merchant), f.payout); s != "REJECTED" {
			t.Fatalf("payout %s", s)
		}

		// A refused file answers 400, which the watched tab would take
		// for a failure: a tab of its own, in the same session.
		refused, cancel := chromedp.NewContext(w.browser)
		t.Cleanup(cancel)
		c, stop := context.WithTimeout(refused, 20*time.Second)
		defer stop()
		if err := chromedp.Do(c, chromedp.EmulateViewport(w.width, w.height),
			chromedp.Navigate(env.URL+"/dashboard/statements"), chromedp.WaitVisible("#statement-file"),
			chromedp.SetUploadFiles("#statement-file", []string{f.notCamt}), chromedp.Submit("#statement-file"),
			chromedp.WaitVisible(browsertest.Page("statements")+" .problem")); err != nil {
			t.Fatalf("a refused file: %v", err)
		}
		if p := text(t, refused, ".problem"); !strings.Contains(p, "The file not-a-statement.xml was not imported: The file is pain.001.001.10") {
			t.Fatalf("problem %q", p)
		}
		fits(t, refused, "statements page with a refused file")
	})
}
