package dashboard_test

import (
	"context"
	"fmt"
	"net/http"
	"regexp"
	"strings"
	"testing"

	"github.com/bankrail/bankrail/internal/apptest"
	"github.com/bankrail/bankrail/internal/camt/camttest"
	"github.com/bankrail/bankrail/internal/config"
	"github.com/bankrail/bankrail/internal/identity"
)

// The operator's statements and exceptions show 50 a page, newest first,
// with the other lists' pager: 51 imported files are 2 pages (the 51st,
// the oldest, alone on the second), 51 open exceptions too (the status
// kept in the links). A statement or a pain.002 over the configured limit
// is refused with 413 in the page, nothing kept. On both engines.
func TestOperatorPagesPageAndRefuseLargeFiles(t *testing.T) {
	t.Parallel()
	const limit = 16 << 10
	apptest.Each(t, func(t *testing.T, env *apptest.Env) {
		acct := openAccount(t, env, apptest.ShopID, "EUR", "Paging EUR")
		ops := identity.WithPrincipal(context.Background(), identity.Principal{Role: identity.RoleOperator, Username: "op"})
		fees := make([]camttest.Entry, 51)
		for i := range fees {
			fees[i] = camttest.Entry{AcctSvcrRef: fmt.Sprintf("FEE-%02d", i), Minor: int64(100 + i), Txs: []camttest.Tx{{Name: "Bank fee"}}}
		}
		for i := range 51 {
			stmt := camttest.Stmt{IBAN: acct.IBAN, Entries: []camttest.Entry{{AcctSvcrRef: fmt.Sprintf("C-%02d", i), Minor: 1, Credit: true}}}
			if i == 0 {
				stmt.Entries = fees
			}
			doc := camttest.String(54, 8, fmt.Sprintf("PAGE-%02d", i), stmt)
			if _, err := env.App.Statements().Import(ops, fmt.Sprintf("file-%02d.xml", i), strings.NewReader(doc)); err != nil {
				t.Fatalf("import %d: %v", i, err)
			}
			env.Clock.Advance(1e9) // one second apart: a strict order
		}
		c := signInAt(t, env, apptest.Operator, "/dashboard/statements")
		articles := regexp.MustCompile(`<article class="panel import"`)

		first := mainOf(c.open("/dashboard/statements").Body)
		if n := len(articles.FindAllString(first, -1)); n != 50 {
			t.Fatalf("the first page lists %d files", n)
		}
		contains(t, "the statements' first page", first, "Page 1 of 2 · 51 in all", `href="/dashboard/statements?page=2" rel="next"`, "file-50.xml")
		lacks(t, "the statements' first page", first, "file-00.xml", `rel="prev"`)
		second := mainOf(c.open("/dashboard/statements?page=2").Body)
		if n := len(articles.FindAllString(second, -1)); n != 1 {
			t.Fatalf("the second page lists %d files", n)
		}
		contains(t, "the statements' second page", second, "Page 2 of 2 · 51 in all", "file-00.xml", "file 51 of the list",
			`href="/dashboard/statements?page=1" rel="prev"`)
		lacks(t, "the statements' second page", second, `rel="next"`)

		rows := regexp.MustCompile(`/dashboard/reconciliation-exceptions/[0-9a-f-]{36}/resolve`)
		first = mainOf(c.open("/dashboard/reconciliation-exceptions").Body)
		if n := len(rows.FindAllString(first, -1)); n != 50 {
			t.Fatalf("the first page of exceptions has %d forms", n)
		}
		contains(t, "the exceptions' first page", first, "Page 1 of 2 · 51 in all",
			`href="/dashboard/reconciliation-exceptions?page=2&amp;status=OPEN" rel="next"`)
		second = mainOf(c.open("/dashboard/reconciliation-exceptions?page=2&status=OPEN").Body)
		if n := len(rows.FindAllString(second, -1)); n != 1 {
			t.Fatalf("the second page of exceptions has %d forms", n)
		}
		contains(t, "the exceptions' second page", second, "Page 2 of 2 · 51 in all")
		if p := c.open("/dashboard/reconciliation-exceptions?status=RESOLVED"); !strings.Contains(mainOf(p.Body), "0 in all") {
			t.Fatalf("resolved exceptions:\n%s", mainOf(p.Body))
		}

		big := make([]byte, limit+1)
		for i := range big {
			big[i] = 'x'
		}
		for _, path := range []string{"/dashboard/statements", "/dashboard/transfer-status"} {
			c.open("/dashboard/statements")
			p := c.upload(path, nil, "big.xml", big, nil)
			if p.Status != http.StatusRequestEntityTooLarge || !strings.Contains(p.Body, "The file is larger than 16 KiB, the most this page takes; nothing was done.") {
				t.Fatalf("%s with a file over the limit: %d\n%s", path, p.Status, mainOf(p.Body))
			}
		}
		if list, err := env.App.Statements().Imports(ops, 100); err != nil || len(list) != 51 {
			t.Fatalf("after the refused uploads: %d imports, %v", len(list), err)
		}
	}, func(c *config.Config) { c.MaxStatementBytes, c.MaxStatusBytes = limit, limit })
}
