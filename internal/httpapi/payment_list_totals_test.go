package httpapi_test

import (
	"net/http"
	"strconv"
	"testing"

	"github.com/bankrail/bankrail/internal/apptest"
	"github.com/bankrail/bankrail/internal/payment"
)

// wantListTotals checks GET /payments' total-items as token's viewer sees
// it (narrowed to customer when set), without a filter and for every
// status and currency and both, against the payments the unfiltered list
// holds (fewer than 100).
func wantListTotals(t *testing.T, env *apptest.Env, token, customer, when string) {
	t.Helper()
	base := "/payments?"
	if customer != "" {
		base += "customerId=" + customer + "&"
	}
	items, h := listPage(t, env, token, base+"limit=100")
	if h.Get("total-items") != strconv.Itoa(len(items)) {
		t.Fatalf("%s: total-items %s, %d payments listed", when, h.Get("total-items"), len(items))
	}
	by := map[[2]string]int{}
	for _, it := range items {
		by[[2]string{it.Status, ""}]++
		by[[2]string{it.Status, it.Currency.ID}]++
		by[[2]string{"", it.Currency.ID}]++
	}
	for _, st := range append([]payment.Status{""}, payment.Statuses...) {
		for _, cur := range []string{"", "EUR", "GBP"} {
			if st == "" && cur == "" {
				continue
			}
			path := base + "limit=1"
			if st != "" {
				path += "&status=" + string(st)
			}
			if cur != "" {
				path += "&currency=" + cur
			}
			resp := env.Do(t, apptest.Request{Method: "GET", Path: path, Token: token})
			if resp.Status != http.StatusOK {
				t.Fatalf("%s: GET %s: %d %s", when, path, resp.Status, resp.Body)
			}
			if got, want := resp.Header.Get("total-items"), strconv.Itoa(by[[2]string{string(st), cur}]); got != want {
				t.Fatalf("%s: GET %s: total-items %s, want %s", when, path, got, want)
			}
		}
	}
}

// GET /payments' total-items with status and currency filters (the counts
// of version 63) follow every way a payment moves through the API:
// sandbox scenarios played at creation, an authorisation, the timed moves
// (abandonment, a delayed bank's answer) after a clock advance, a tree
// reset (its payments deleted) and the tree's restore; as the merchant,
// its PSP and the PSP narrowed to the merchant see them. Both engines.
func TestPaymentListTotalsFollowEveryMove(t *testing.T) {
	t.Parallel()
	apptest.Each(t, func(t *testing.T, env *apptest.Env) {
		check := func(when string) {
			t.Helper()
			wantListTotals(t, env, env.Token(t, apptest.Merchant), "", when)
			wantListTotals(t, env, env.Token(t, apptest.PSPAdmin), "", when)
			wantListTotals(t, env, env.Token(t, apptest.PSPAdmin), apptest.ShopID, when)
		}
		token := env.Token(t, apptest.Merchant)
		var open []string
		for _, sc := range []string{"", "", "", "COMPLETED", "REFUSED_BY_RISK", "ABANDONED_BY_USER", "CANCELLED_BY_USER",
			"ERROR_AT_BANK", "DELAYED_AT_BANK>COMPLETED", "DELAYED_AT_BANK>REFUSED_BY_BANK"} {
			var h map[string]string
			if sc != "" {
				h = map[string]string{scenarioHeader: sc}
			}
			if id := mustCreate(t, env, token, euBody(), h).ID; sc == "" {
				open = append(open, id)
			}
		}
		check("after creations with scenarios")
		mustAuthorise(t, env, token, open[0], "COMPLETED")
		mustAuthorise(t, env, token, open[1], "REFUSED_BY_BANK")
		check("after authorisations")

		advanceClock(t, env, token, int64(payment.AbandonAfter.Seconds())+1)
		admin := env.Token(t, apptest.PSPAdmin)
		apptest.Eventually(t, "the timed moves", func() bool {
			items, _ := listPage(t, env, admin, "/payments?limit=100")
			for _, it := range items {
				if it.Status == string(payment.StatusNew) || it.Status == string(payment.StatusDelayedAtBank) {
					return false
				}
			}
			return true
		})
		check("after the timed moves")

		file := snapshot(t, env, admin)
		if resp := env.Do(t, apptest.Request{Method: "POST", Path: "/sandbox/reset", Token: admin, Header: v1}); resp.Status != http.StatusOK {
			t.Fatalf("tree reset: %d %s", resp.Status, resp.Body)
		}
		check("after a tree reset")
		if resp := restore(t, env, env.Token(t, apptest.PSPAdmin), file); resp.Status != http.StatusOK {
			t.Fatalf("tree restore: %d %s", resp.Status, resp.Body)
		}
		check("after the tree's restore")
	})
}
