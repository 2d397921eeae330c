package httpapi_test

import (
	"net/http"
	"strconv"
	"testing"
	"time"

	"github.com/bankrail/bankrail/internal/apptest"
	"github.com/bankrail/bankrail/internal/iso"
	"github.com/bankrail/bankrail/internal/ledger"
)

// aliasOrderJSON is an alias order as the tests read it.
type aliasOrderJSON struct {
	ID, AccountID, Status, CreatedAt string
	CompletedAt                      *string
	Requested, Completed             int
	Links                            struct{ Self, Aliases linkJSON } `json:"_links"`
}

// aliasJSON is an account alias as the tests read it.
type aliasJSON struct {
	ID, AccountID, OrderID, IBAN, CreatedAt string
	Active                                  bool
}

func postAliasOrder(t testing.TB, env *apptest.Env, token string, body any, headers map[string]string) *apptest.Response {
	t.Helper()
	h := map[string]string{"X-Service-Api-Version": "1"}
	for k, v := range headers {
		h[k] = v
	}
	return env.Do(t, apptest.Request{Method: "POST", Path: "/orders/account-aliases", Token: token, Header: h, Body: body})
}

// mustOrderAliases orders count aliases of accountID and returns the order's id.
func mustOrderAliases(t testing.TB, env *apptest.Env, token, accountID string, count int, headers map[string]string) string {
	t.Helper()
	resp := postAliasOrder(t, env, token, map[string]any{"accountId": accountID, "count": count}, headers)
	var created struct{ ID string }
	resp.JSON(t, &created)
	if resp.Status != http.StatusCreated || created.ID == "" || resp.Header.Get("Location") != "/orders/account-aliases/"+created.ID {
		t.Fatalf("alias order: %d %s %v", resp.Status, resp.Body, resp.Header)
	}
	return created.ID
}

func getAliasOrder(t testing.TB, env *apptest.Env, token, id string) aliasOrderJSON {
	t.Helper()
	var o aliasOrderJSON
	resp := env.Do(t, apptest.Request{Method: "GET", Path: "/orders/account-aliases/" + id, Token: token, Header: v1})
	if resp.Status != http.StatusOK {
		t.Fatalf("GET order %s: %d %s", id, resp.Status, resp.Body)
	}
	resp.JSON(t, &o)
	return o
}

// aliasOrderWait bounds how long a test waits for an order: an order of
// 1000 takes a tenth of a second in a normal build, but SQLite (C
// translated to Go) under the race detector on a loaded machine is tens of
// times slower.
const aliasOrderWait = 2 * time.Minute

// awaitAliasOrder polls the order until it is no longer PROCESSING; it
// fails when completed ever goes down. It returns the order and every
// completed count it saw.
func awaitAliasOrder(t testing.TB, env *apptest.Env, token, id string) (aliasOrderJSON, []int) {
	t.Helper()
	var o aliasOrderJSON
	var seen []int
	for deadline := time.Now().Add(aliasOrderWait); ; time.Sleep(100 * time.Millisecond) { // every read is checked against the document: leave the worker the CPU
		o = getAliasOrder(t, env, token, id)
		if n := len(seen); n > 0 && o.Completed < seen[n-1] {
			t.Fatalf("completed went down: %v then %d", seen, o.Completed)
		}
		if n := len(seen); n == 0 || seen[n-1] != o.Completed {
			seen = append(seen, o.Completed)
		}
		if o.Status != "PROCESSING" {
			return o, seen
		}
		if time.Now().After(deadline) {
			t.Fatalf("alias order %s still PROCESSING after %s (completed seen %v)", id, aliasOrderWait, seen)
		}
	}
}

// orderAliases reads every alias of an order through the paged list.
func orderAliases(t testing.TB, env *apptest.Env, token, orderID string) []aliasJSON {
	t.Helper()
	var all []aliasJSON
	for page := 1; ; page++ {
		var items []aliasJSON
		resp := env.Do(t, apptest.Request{Method: "GET", Path: "/account-aliases?limit=100&page=" + strconv.Itoa(page) + "&orderId=" + orderID,
			Token: token, Header: v1})
		resp.JSON(t, &items)
		if resp.Status != http.StatusOK {
			t.Fatalf("list aliases: %d %s", resp.Status, resp.Body)
		}
		all = append(all, items...)
		if len(items) < 100 {
			total, _ := strconv.Atoi(resp.Header.Get("total-items"))
			if total != len(all) {
				t.Fatalf("listed %d aliases, total-items %d", len(all), total)
			}
			return all
		}
	}
}

// readyAliases orders count aliases of acct, waits for them and returns them.
func readyAliases(t testing.TB, env *apptest.Env, token string, acct ledger.Account, count int) []aliasJSON {
	t.Helper()
	id := mustOrderAliases(t, env, token, acct.ID, count, nil)
	if o, _ := awaitAliasOrder(t, env, token, id); o.Status != "COMPLETED" || o.Completed != count {
		t.Fatalf("order %+v", o)
	}
	return orderAliases(t, env, token, id)
}

// A 1000-alias order completes within seconds with 1000 distinct IBANs
// of the account's country, length and bank, each with valid check
// digits; the order counts up, then is COMPLETED with completedAt; the
// list filters and pages; the order is idempotent under its key.
func TestAliasOrderOfAThousand(t *testing.T) {
	t.Parallel()
	apptest.Each(t, func(t *testing.T, env *apptest.Env) {
		acct := openAccount(t, env, apptest.ShopID, "EUR", "aliases")
		token := env.Token(t, apptest.Merchant)
		key := map[string]string{"Idempotency-Key": "aliases-1000"}
		id := mustOrderAliases(t, env, token, acct.ID, 1000, key)
		again := postAliasOrder(t, env, token, map[string]any{"accountId": acct.ID, "count": 1000}, key)
		if again.Status != http.StatusCreated || again.Header.Get("Idempotent-Replayed") != "true" ||
			again.Header.Get("Location") != "/orders/account-aliases/"+id {
			t.Fatalf("replay: %d %s %v", again.Status, again.Body, again.Header)
		}
		postAliasOrder(t, env, token, map[string]any{"accountId": acct.ID, "count": 999}, key).Error(t, http.StatusConflict, "IDEMPOTENCY_CONFLICT")

		start := time.Now()
		o, seen := awaitAliasOrder(t, env, token, id)
		t.Logf("1000 aliases issued within %s (completed seen %v)", time.Since(start), seen)
		if o.Status != "COMPLETED" || o.Requested != 1000 || o.Completed != 1000 || o.CompletedAt == nil || o.AccountID != acct.ID ||
			o.Links.Self.Href != "/orders/account-aliases/"+id || o.Links.Self.Method != "GET" ||
			o.Links.Aliases.Href != "/account-aliases?orderId="+id || o.Links.Aliases.Method != "GET" {
			t.Fatalf("order %+v", o)
		}
		for _, n := range seen {
			if n%100 != 0 {
				t.Fatalf("completed %d is not a whole number of batches (seen %v)", n, seen)
			}
		}
		all := orderAliases(t, env, token, id)
		if len(all) != 1000 {
			t.Fatalf("%d aliases", len(all))
		}
		ibans := map[string]bool{acct.IBAN: true}
		for _, a := range all {
			if iso.CheckIBAN(a.IBAN) != iso.IBANOK || a.IBAN[:2] != acct.IBAN[:2] || len(a.IBAN) != len(acct.IBAN) ||
				a.IBAN[4:12] != acct.IBAN[4:12] {
				t.Fatalf("alias IBAN %s of account %s", a.IBAN, acct.IBAN)
			}
			if ibans[a.IBAN] {
				t.Fatalf("IBAN %s twice (or the account's own)", a.IBAN)
			}
			ibans[a.IBAN] = true
			if !a.Active || a.AccountID != acct.ID || a.OrderID != id {
				t.Fatalf("alias %+v", a)
			}
		}
		// The GET of one, and the account filter.
		var one aliasJSON
		env.Do(t, apptest.Request{Method: "GET", Path: "/account-aliases/" + all[0].ID, Token: token, Header: v1}).JSON(t, &one)
		if one != all[0] {
			t.Fatalf("read back %+v, listed %+v", one, all[0])
		}
		resp := env.Do(t, apptest.Request{Method: "GET", Path: "/account-aliases?limit=1&accountId=" + acct.ID, Token: token, Header: v1})
		if resp.Header.Get("total-items") != "1000" || resp.Header.Get("page-count") != "1000" {
			t.Fatalf("by account: %v", resp.Header)
		}
		other := openAccount(t, env, apptest.ShopID, "GBP", "uk aliases")
		uk := readyAliases(t, env, token, other, 3)
		for _, a := range uk {
			if iso.CheckIBAN(a.IBAN) != iso.IBANOK || a.IBAN[:2] != "GB" || a.IBAN[4:14] != other.IBAN[4:14] {
				t.Fatalf("UK alias %s of %s", a.IBAN, other.IBAN)
			}
		}
		resp = env.Do(t, apptest.Request{Method: "GET", Path: "/account-aliases?accountId=" + acct.ID + "&orderId=" + uk[0].OrderID, Token: token, Header: v1})
		if resp.Header.Get("total-items") != "0" || string(resp.Body) != "[]\n" {
			t.Fatalf("filters together: %v %s", resp.Header, resp.Body)
		}
	})
}

// The order's refusals (every field at once), the FAILED scenario, and
// switching an alias off and on.
func TestAliasOrderRulesAndSwitch(t *testing.T) {
	t.Parallel()
	apptest.Each(t, func(t *testing.T, env *apptest.Env) {
		acct := openAccount(t, env, apptest.ShopID, "EUR", "aliases")
		token := env.Token(t, apptest.Merchant)
		e := postAliasOrder(t, env, token, map[string]any{"accountId": "nope", "count": 0}, nil).Error(t, http.StatusUnprocessableEntity, "VALIDATION_FAILURE")
		if len(e.Errors) != 2 {
			t.Fatalf("errors %+v", e)
		}
		e = postAliasOrder(t, env, token, map[string]any{"count": 1001}, nil).Error(t, http.StatusUnprocessableEntity, "VALIDATION_FAILURE")
		got := map[string]string{}
		for _, x := range e.Errors {
			got[x.PropertyPath] = x.Type
		}
		if got["accountId"] != "VALUE_REQUIRED" || got["count"] != "TOO_HIGH" || len(got) != 2 {
			t.Fatalf("errors %v", got)
		}
		theirs := openAccount(t, env, apptest.OtherShopID, "EUR", "theirs")
		postAliasOrder(t, env, token, map[string]any{"accountId": theirs.ID, "count": 1}, nil).Error(t, http.StatusNotFound, "RESOURCE_NOT_FOUND")
		postAliasOrder(t, env, env.Token(t, apptest.Viewer), map[string]any{"accountId": acct.ID, "count": 1}, nil).
			Error(t, http.StatusForbidden, "ACCESS_DENIED")
		postAliasOrder(t, env, token, map[string]any{"accountId": acct.ID, "count": 1}, map[string]string{scenarioHeader: "NOPE"}).
			Error(t, http.StatusBadRequest, "INVALID_HTTP_HEADER")
		env.Do(t, apptest.Request{Method: "POST", Path: "/orders/account-aliases", Token: token, Body: map[string]any{"accountId": acct.ID, "count": 1}}).
			Error(t, http.StatusBadRequest, "MISSING_HTTP_HEADER")
		env.Do(t, apptest.Request{Method: "GET", Path: "/orders/account-aliases/nope", Token: token, Header: v1}).Error(t, http.StatusBadRequest, "MALFORMED_PATH_PARAM")
		env.Do(t, apptest.Request{Method: "GET", Path: "/account-aliases?orderId=nope", Token: token, Header: v1}).Error(t, http.StatusBadRequest, "INVALID_QUERY_PARAM")

		// The sandbox's failed order issues nothing.
		failed := mustOrderAliases(t, env, token, acct.ID, 5, map[string]string{scenarioHeader: "ORDER_NAMED_ACCOUNTS_FAILED"})
		if o, _ := awaitAliasOrder(t, env, token, failed); o.Status != "FAILED" || o.Completed != 0 || o.CompletedAt != nil {
			t.Fatalf("failed order %+v", o)
		}
		if len(orderAliases(t, env, token, failed)) != 0 {
			t.Fatal("a failed order issued aliases")
		}

		a := readyAliases(t, env, token, acct, 2)[0]
		patch := func(body any) *apptest.Response {
			return env.Do(t, apptest.Request{Method: "PATCH", Path: "/account-aliases/" + a.ID, Token: token, Header: v1, Body: body})
		}
		var got1 aliasJSON
		patch(map[string]any{"active": false}).JSON(t, &got1)
		if got1.Active || got1.IBAN != a.IBAN || got1.ID != a.ID {
			t.Fatalf("switched off %+v", got1)
		}
		patch(map[string]any{}).Error(t, http.StatusUnprocessableEntity, "VALIDATION_FAILURE")
		if e := patch(map[string]any{"active": nil}).Error(t, http.StatusUnprocessableEntity, "VALIDATION_FAILURE"); e.Errors[0].Type != "INVALID_TYPE" {
			t.Fatalf("null %+v", e)
		}
		patch(map[string]any{"active": true}).JSON(t, &got1)
		if !got1.Active {
			t.Fatalf("switched on %+v", got1)
		}
		env.Do(t, apptest.Request{Method: "PATCH", Path: "/account-aliases/" + a.ID, Token: env.Token(t, apptest.Viewer), Header: v1,
			Body: map[string]any{"active": false}}).Error(t, http.StatusForbidden, "ACCESS_DENIED")
	})
}
