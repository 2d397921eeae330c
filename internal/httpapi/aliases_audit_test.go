package httpapi_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/bankrail/bankrail/internal/apptest"
)

// The alias changes are audited by the one mechanism of every API change:
// an order names the order, a switch names the alias, a payout names the
// payout; refused ones leave no row.
func TestAuditOfAliasesAndPayouts(t *testing.T) {
	t.Parallel()
	apptest.Each(t, func(t *testing.T, env *apptest.Env) {
		acct := fundedAccount(t, env, "audited", 1000)
		token := env.Token(t, apptest.Merchant)
		req := func(requestID string) map[string]string {
			return map[string]string{"X-Service-Api-Version": "1", "X-Request-Id": requestID}
		}
		order := mustOrderAliases(t, env, token, acct.ID, 1, map[string]string{"X-Request-Id": "order-1"})
		postAliasOrder(t, env, token, map[string]any{"accountId": acct.ID, "count": 0}, map[string]string{"X-Request-Id": "order-refused"}).
			Error(t, http.StatusUnprocessableEntity, "VALIDATION_FAILURE")
		awaitAliasOrder(t, env, token, order)
		a := orderAliases(t, env, token, order)[0]
		env.Do(t, apptest.Request{Method: "PATCH", Path: "/account-aliases/" + a.ID, Token: token, Header: req("switch-1"),
			Body: map[string]any{"active": false}}).JSON(t, &aliasJSON{})
		env.Do(t, apptest.Request{Method: "PATCH", Path: "/account-aliases/00000000-0000-4000-8000-00000000dead", Token: token,
			Header: req("switch-unknown"), Body: map[string]any{"active": false}}).Error(t, http.StatusNotFound, "RESOURCE_NOT_FOUND")
		p := mustPayout(t, env, token, payoutBody(acct.ID, 100, "Jane Doe"), map[string]string{"X-Request-Id": "payout-1"})

		rows := reportRows(t, env, token, "/reports/auditlog", period(nil))
		got := map[string][]string{}
		for _, r := range rows[1:] {
			got[r[7]] = append(got[r[7]], strings.Join([]string{r[4], r[5], r[6]}, " "))
		}
		want := map[string]string{
			"order-1":  "POST /orders/account-aliases alias_order " + order,
			"switch-1": "PATCH /account-aliases/{id} account_alias " + a.ID,
			"payout-1": "POST /payouts payout " + p.ID,
		}
		for id, w := range want {
			if len(got[id]) != 1 || got[id][0] != w {
				t.Errorf("request %s: audit rows %q, want one %q", id, got[id], w)
			}
		}
		for _, id := range []string{"order-refused", "switch-unknown"} {
			if len(got[id]) != 0 {
				t.Errorf("refused request %s left audit rows %q", id, got[id])
			}
		}
	})
}
