package httpapi_test

import (
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"testing"

	"github.com/bankrail/bankrail/internal/apptest"
	"github.com/bankrail/bankrail/internal/camt/camttest"
)

// statementListPage is one page of GET /statements or GET
// /reconciliation-exceptions: the ids of its items and its paging headers.
type statementListPage struct {
	ids                                 []string
	page, limit, pageCount, total, next string
}

// getStatementListPage reads path (with its query) as token and returns the page of
// key ("statements" or "exceptions").
func getStatementListPage(t *testing.T, env *apptest.Env, token, path, key string) statementListPage {
	t.Helper()
	resp := env.Do(t, apptest.Request{Method: "GET", Path: path, Token: token, Header: v1})
	if resp.Status != http.StatusOK {
		t.Fatalf("GET %s: %d %s", path, resp.Status, resp.Body)
	}
	var body map[string][]struct{ ID string }
	resp.JSON(t, &body)
	items, ok := body[key]
	if !ok {
		t.Fatalf("GET %s has no %q: %s", path, key, resp.Body)
	}
	p := statementListPage{page: resp.Header.Get("page"), limit: resp.Header.Get("limit"), pageCount: resp.Header.Get("page-count"),
		total: resp.Header.Get("total-items"), next: resp.Header.Get("next-cursor")}
	for _, it := range items {
		p.ids = append(p.ids, it.ID)
	}
	if p.next != "" && resp.Header.Get("Link") == "" {
		t.Fatalf("GET %s: next-cursor without Link", path)
	}
	return p
}

// GET /statements and GET /reconciliation-exceptions page as every list:
// limit, the paging headers with the exact total, and next-cursor to the
// page after, whose items follow the first page's in the list's order
// (newest first) with none twice, and no cursor after the last page. A
// cursor that is none is 400 INVALID_QUERY_PARAM in the error shape, as is
// a limit out of range; a tenant is still 403 with a cursor.
func TestStatementListsPageWithCursors(t *testing.T) {
	t.Parallel()
	apptest.Each(t, func(t *testing.T, env *apptest.Env) {
		acct := openAccount(t, env, apptest.ShopID, "EUR", "Shop EUR")
		operator, merchant := env.Token(t, apptest.Operator), env.Token(t, apptest.Merchant)
		for i := range 3 { // each file: one import and one exception (a debit bankrail did not send)
			doc := camttest.String(54, 8, fmt.Sprintf("PAGE-%d", i), camttest.Stmt{IBAN: acct.IBAN, Entries: []camttest.Entry{
				{AcctSvcrRef: fmt.Sprintf("FEE-%d", i), Minor: int64(100 + i), Txs: []camttest.Tx{{Name: "Bank fee"}}}}})
			if resp := postStatement(t, env, operator, doc); resp.Status != http.StatusCreated {
				t.Fatalf("import %d: %d %s", i, resp.Status, resp.Body)
			}
		}
		for _, l := range []struct{ path, key string }{{"/statements", "statements"}, {"/reconciliation-exceptions?status=OPEN", "exceptions"}} {
			all := getStatementListPage(t, env, operator, l.path, l.key)
			if len(all.ids) != 3 || all.total != "3" || all.page != "1" || all.limit != "50" || all.pageCount != "1" || all.next != "" {
				t.Fatalf("%s whole: %+v", l.path, all)
			}
			sep := "?"
			if l.key == "exceptions" {
				sep = "&"
			}
			first := getStatementListPage(t, env, operator, l.path+sep+"limit=2", l.key)
			if len(first.ids) != 2 || first.page != "1" || first.limit != "2" || first.pageCount != "2" || first.total != "3" || first.next == "" {
				t.Fatalf("%s first page: %+v", l.path, first)
			}
			second := getStatementListPage(t, env, operator, l.path+sep+"limit=2&cursor="+url.QueryEscape(first.next), l.key)
			if len(second.ids) != 1 || second.page != "2" || second.total != "3" || second.next != "" {
				t.Fatalf("%s second page: %+v", l.path, second)
			}
			if got := append(slices.Clone(first.ids), second.ids...); !slices.Equal(got, all.ids) {
				t.Fatalf("%s pages %v, the whole list %v", l.path, got, all.ids)
			}

			for _, q := range []string{"cursor=nope", "cursor=" + first.next[:39] + "*", "limit=0", "limit=501", "page=0"} {
				env.Do(t, apptest.Request{Method: "GET", Path: l.path + sep + q, Token: operator, Header: v1}).
					Error(t, http.StatusBadRequest, "INVALID_QUERY_PARAM")
			}
			env.Do(t, apptest.Request{Method: "GET", Path: l.path + sep + "limit=2&cursor=" + url.QueryEscape(first.next), Token: merchant, Header: v1}).
				Error(t, http.StatusForbidden, "ACCESS_DENIED")
		}
	})
}
