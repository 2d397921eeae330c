package httpapi_test

import (
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/bankrail/bankrail/internal/apptest"
	"github.com/bankrail/bankrail/internal/ledger"
)

// listCase is one list endpoint with the number of the merchant's items
// it holds after seedLists (counted: it answers total-items).
type listCase struct {
	name    string
	path    string // with the filters, without page, limit or cursor
	n       int
	counted bool
}

// seedLists gives the merchant five items of every list (several created
// at one instant of the fake clock, so that the id breaks ties) and
// returns the lists.
func seedLists(t *testing.T, env *apptest.Env, token string) []listCase {
	t.Helper()
	const n = 5
	acct := openAccount(t, env, apptest.ShopID, "EUR", "cursor")
	for range n {
		credit(t, env, acct, 1000, ledger.TypeManualCredit, env.Clock.Now())
		mustPayout(t, env, token, payoutBody(acct.ID, 100, "Jane Doe"), nil)
		mustCreateMandate(t, env, token, payToBody())
		requestReport(t, env, token, "/reports/auditlog", period(nil))
	}
	for i := range n - 1 { // and acct
		openAccount(t, env, apptest.ShopID, "EUR", fmt.Sprintf("cursor-%d", i))
	}
	var channel string
	for range n {
		c := mustCreateChannel(t, env, token, channelBody("USDC", "ETH", "EUR"))
		channel = c.ID
	}
	for range n {
		mustDeposit(t, env, token, channel, map[string]any{"amount": "1.5"})
	}
	awaitAliasOrder(t, env, token, mustOrderAliases(t, env, token, acct.ID, n, nil))
	receiving(t, env)
	for range n {
		sendTest(t, env, token)
	}
	return []listCase{
		{"payouts", "/payouts", n, true},
		{"payouts of an account", "/payouts?accountId=" + acct.ID, n, true},
		{"mandates", "/mandates?type=PAYTO", n, true},
		{"reports", "/reports?customerId=" + apptest.ShopID, n, true},
		{"accounts", "/accounts?currency=EUR", n, true},
		{"transactions", "/accounts/" + acct.ID + "/transactions?type=MANUAL_CREDIT", n, true},
		{"channels", "/channels?customerId=" + apptest.ShopID, n, true},
		{"channel payments", "/channels/" + channel + "/payments", n, false},
		{"account aliases", "/account-aliases?accountId=" + acct.ID, n, true},
		{"notifications", "/notifications?status=DELIVERED", n, true},
	}
}

// listIDs reads one page of a list: its items' ids and its headers; the
// status when it is not 200.
func listIDs(t *testing.T, env *apptest.Env, token, path string) ([]string, http.Header, int) {
	t.Helper()
	resp := env.Do(t, apptest.Request{Method: "GET", Path: path, Token: token, Header: v1})
	if resp.Status != http.StatusOK {
		return nil, resp.Header, resp.Status
	}
	var items []struct{ ID string }
	resp.JSON(t, &items)
	ids := make([]string, 0, len(items))
	for _, it := range items {
		ids = append(ids, it.ID)
	}
	return ids, resp.Header, resp.Status
}

// Every list pages by keyset as GET /payments does: following next-cursor
// (through the Link) from page 1 gives the items of the page numbers, in
// their order, with the paging headers counting on; the last page has no
// cursor; a malformed cursor is 400 INVALID_QUERY_PARAM; another
// customer's cursor shows nothing of the merchant's.
func TestEveryListCursor(t *testing.T) {
	t.Parallel()
	apptest.Each(t, func(t *testing.T, env *apptest.Env) {
		token, stranger := env.Token(t, apptest.Merchant), env.Token(t, apptest.OtherMerch)
		for _, c := range seedLists(t, env, token) {
			t.Run(c.name, func(t *testing.T) {
				sep := "?"
				if strings.Contains(c.path, "?") {
					sep = "&"
				}
				base := c.path + sep + "limit=2"
				var byPage []string
				for page := 1; page <= (c.n+1)/2+1; page++ {
					ids, h, status := listIDs(t, env, token, fmt.Sprintf("%s&page=%d", base, page))
					if status != http.StatusOK {
						t.Fatalf("page %d: %d", page, status)
					}
					if c.counted && h.Get("total-items") != fmt.Sprint(c.n) {
						t.Fatalf("page %d: total-items %q, want %d", page, h.Get("total-items"), c.n)
					}
					if last := page*2 >= c.n; last != (h.Get("next-cursor") == "") {
						t.Fatalf("page %d of %d items: next-cursor %q", page, c.n, h.Get("next-cursor"))
					}
					byPage = append(byPage, ids...)
				}
				var byCursor []string
				var first string
				for path, pages := base, 1; path != ""; pages++ {
					ids, h, status := listIDs(t, env, token, path)
					if status != http.StatusOK || (c.counted && h.Get("page") != fmt.Sprint(pages)) {
						t.Fatalf("cursor page %d: %d, headers %v", pages, status, h)
					}
					byCursor = append(byCursor, ids...)
					path = nextLink(t, h, c.path)
					if first == "" {
						first = h.Get("next-cursor")
					}
				}
				if len(byPage) != c.n || !slices.Equal(byCursor, byPage) {
					t.Fatalf("by cursor %v\nby page   %v", byCursor, byPage)
				}
				env.Do(t, apptest.Request{Method: "GET", Path: base + "&cursor=abc", Token: token, Header: v1}).
					Error(t, http.StatusBadRequest, "INVALID_QUERY_PARAM")
				env.Do(t, apptest.Request{Method: "GET", Path: base + "&cursor=", Token: token, Header: v1}).
					Error(t, http.StatusBadRequest, "INVALID_QUERY_PARAM")
				// The merchant's cursor in another customer's hands: a list
				// scoped to the merchant's account or channel is 404, any
				// other shows nothing of the merchant's.
				ids, _, status := listIDs(t, env, stranger, base+"&cursor="+first)
				for _, id := range ids {
					if slices.Contains(byPage, id) {
						t.Fatalf("a stranger's cursor listed %s (%d)", id, status)
					}
				}
				if status != http.StatusOK && status != http.StatusNotFound {
					t.Fatalf("a stranger's cursor: %d", status)
				}
			})
		}
	})
}

// nextLink checks the Link of a page against its next-cursor and returns
// its target ("" on the last page).
func nextLink(t *testing.T, h http.Header, path string) string {
	t.Helper()
	c := h.Get("next-cursor")
	if c == "" {
		if h.Get("Link") != "" {
			t.Fatalf("a Link without next-cursor: %q", h.Get("Link"))
		}
		return ""
	}
	link := h.Get("Link")
	target, ok := strings.CutPrefix(link, "<")
	target, _, ok2 := strings.Cut(target, `>; rel="next"`)
	u, err := url.Parse(target)
	want, _, _ := strings.Cut(path, "?")
	if !ok || !ok2 || err != nil || u.Path != want || u.Query().Get("cursor") != c || u.Query().Get("limit") != "2" || u.Query().Has("page") {
		t.Fatalf("Link %q for cursor %q", link, c)
	}
	return target
}
