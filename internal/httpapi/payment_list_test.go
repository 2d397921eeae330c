package httpapi_test

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/bankrail/bankrail/internal/apptest"
	"github.com/bankrail/bankrail/internal/bank"
	"github.com/bankrail/bankrail/internal/payment"
)

// listPage reads one page of GET path and its paging headers.
func listPage(t *testing.T, env *apptest.Env, token, path string) ([]details, http.Header) {
	t.Helper()
	resp := env.Do(t, apptest.Request{Method: "GET", Path: path, Token: token})
	if resp.Status != http.StatusOK {
		t.Fatalf("GET %s: %d %s", path, resp.Status, resp.Body)
	}
	var items []details
	resp.JSON(t, &items)
	return items, resp.Header
}

// Keyset paging: following next-cursor (or the Link) from page 1 gives
// the same payments as the page numbers, in the same order, with the
// headers counting on; the last page has no cursor; a cursor keeps its
// place when newer payments arrive; a malformed cursor is refused.
func TestPaymentListCursor(t *testing.T) {
	t.Parallel()
	apptest.Each(t, func(t *testing.T, env *apptest.Env) {
		token := env.Token(t, apptest.OtherMerch)
		for range 7 {
			mustCreate(t, env, token, ukBody(), nil)
		}
		var byPage []string
		for page := 1; page <= 3; page++ {
			items, h := listPage(t, env, token, "/payments?limit=3&page="+string(rune('0'+page)))
			for _, d := range items {
				byPage = append(byPage, d.ID)
			}
			if h.Get("total-items") != "7" || h.Get("page-count") != "3" {
				t.Fatalf("page %d headers %v", page, h)
			}
			if (page < 3) != (h.Get("next-cursor") != "") {
				t.Fatalf("page %d: next-cursor %q", page, h.Get("next-cursor"))
			}
		}
		var byCursor []string
		path, pages := "/payments?limit=3&currency=GBP", 0
		for path != "" {
			items, h := listPage(t, env, token, path)
			pages++
			if h.Get("page") != string(rune('0'+pages)) || h.Get("limit") != "3" || h.Get("total-items") != "7" {
				t.Fatalf("cursor page %d headers %v", pages, h)
			}
			for _, d := range items {
				byCursor = append(byCursor, d.ID)
			}
			path = ""
			if c := h.Get("next-cursor"); c != "" {
				link := h.Get("Link")
				target, ok := strings.CutPrefix(link, "<")
				target, _, ok2 := strings.Cut(target, `>; rel="next"`)
				u, err := url.Parse(target)
				if !ok || !ok2 || err != nil || u.Path != "/payments" || u.Query().Get("cursor") != c ||
					u.Query().Get("currency") != "GBP" || u.Query().Get("limit") != "3" || u.Query().Has("page") {
					t.Fatalf("Link %q for cursor %q", link, c)
				}
				path = target
			}
		}
		if strings.Join(byCursor, ",") != strings.Join(byPage, ",") || len(byPage) != 7 || pages != 3 {
			t.Fatalf("by cursor %v\nby page   %v", byCursor, byPage)
		}

		// A payment created meanwhile shifts page numbers, not a cursor's
		// place: the page after it starts right after page 1's last item.
		first, h := listPage(t, env, token, "/payments?limit=3")
		cursor := h.Get("next-cursor")
		mustCreate(t, env, token, ukBody(), nil)
		all, _ := listPage(t, env, token, "/payments?limit=100")
		at := 0
		for i, d := range all {
			if d.ID == first[2].ID {
				at = i
			}
		}
		items, h := listPage(t, env, token, "/payments?limit=3&cursor="+cursor)
		if len(items) != 3 || items[0].ID != all[at+1].ID || items[2].ID != all[at+3].ID || h.Get("page") != "2" || h.Get("total-items") != "8" {
			t.Fatalf("after a new payment: %d items from %s, want %s, headers %v", len(items), items[0].ID, all[at+1].ID, h)
		}
		env.Do(t, apptest.Request{Method: "GET", Path: "/payments?cursor=abc", Token: token}).Error(t, http.StatusBadRequest, "INVALID_QUERY_PARAM")
		env.Do(t, apptest.Request{Method: "GET", Path: "/payments?cursor=", Token: token}).Error(t, http.StatusBadRequest, "INVALID_QUERY_PARAM")
		// Another merchant's cursor is only a place in the order: it shows
		// nothing of that merchant.
		if items, _ := listPage(t, env, env.Token(t, apptest.Merchant), "/payments?cursor="+cursor); len(items) != 0 {
			t.Fatalf("a stranger's cursor listed %d payments", len(items))
		}
	})
}

// Every item of GET /payments applies the whole refund rule, as GET
// /payments/{id} does (payment.RefundabilityAt, read with the page): fully
// refunded Connect payments, partly refunded ones, and one that is no
// Connect payment.
func TestPaymentListRefundRule(t *testing.T) {
	t.Parallel()
	apptest.Each(t, func(t *testing.T, env *apptest.Env) {
		openAccount(t, env, apptest.ShopID, "EUR", "main")
		token := env.Token(t, apptest.Merchant)
		rc := apptest.NewReceiver(t)
		full := mustCreate(t, env, token, expectedBody(rc, 1000, "L1"), map[string]string{scenarioHeader: "COMPLETED"})
		connectNotes(t, rc, full.ID, 1)
		mustRefund(t, env, token, full.ID, map[string]any{"externalReference": "all"}, nil)
		part := mustCreate(t, env, token, expectedBody(rc, 2000, "L2"), map[string]string{scenarioHeader: "COMPLETED"})
		connectNotes(t, rc, part.ID, 1)
		mustRefund(t, env, token, part.ID, map[string]any{"amount": 500, "externalReference": "some"}, nil)
		short := mustCreate(t, env, token, expectedBody(rc, 5000, "L3"), map[string]string{scenarioHeader: "COMPLETED"})
		connectNotes(t, rc, short.ID, 1)
		mustRefund(t, env, token, short.ID, map[string]any{"amount": 4000, "externalReference": "most"}, nil)
		plain := mustCreate(t, env, token, euBody(), nil)

		items, _ := listPage(t, env, token, "/payments?limit=100")
		seen := map[string]bool{}
		for _, it := range items {
			d := getDetails(t, env, token, it.ID)
			if it.RefundAvailable != d.RefundAvailable || it.RefundNotAvailableCode != d.RefundNotAvailableCode ||
				it.RefundNotAvailableReason != d.RefundNotAvailableReason {
				t.Errorf("payment %s: listed %v %q, read %v %q", it.ID, it.RefundAvailable, it.RefundNotAvailableCode,
					d.RefundAvailable, d.RefundNotAvailableCode)
			}
			seen[it.ID+" "+d.RefundNotAvailableCode] = true
		}
		for _, want := range []string{full.ID + " FULLY_REFUNDED", part.ID + " ", short.ID + " ", plain.ID + " NO_CONNECT_ACCOUNT"} {
			if !seen[want] {
				t.Errorf("no listed payment %q in %v", want, seen)
			}
		}
	})
}

// Payments made every way the API makes them (Global EU and UK, legacy,
// embedded, Connect, moved by sandbox scenarios with the bank's sender)
// read from their view columns give their details record exactly what
// the whole payment gives: GET /payments/{id} and GET /payments answer
// the same as from the stored request.
func TestPaymentViewMatchesTheRequest(t *testing.T) {
	t.Parallel()
	apptest.Each(t, func(t *testing.T, env *apptest.Env) {
		shop := env.Token(t, apptest.Merchant)
		other := env.Token(t, apptest.OtherMerch)
		rc := apptest.NewReceiver(t)
		mustCreate(t, env, other, euBody(), nil)
		mustCreate(t, env, other, ukBody(), map[string]string{scenarioHeader: "COMPLETED"})
		mustCreate(t, env, other, euBody(), map[string]string{scenarioHeader: "DELAYED_AT_BANK>REFUSED_BY_BANK"})
		mustCreateLegacy(t, env, other, legacyBody(), nil)
		if r := postDropin(t, env, other, dropinBody(), nil); r.Status != http.StatusCreated {
			t.Fatalf("dropin: %d %s", r.Status, r.Body)
		}
		openAccount(t, env, apptest.ShopID, "EUR", "main")
		paid := mustCreate(t, env, shop, expectedBody(rc, 1000, "V1"), map[string]string{scenarioHeader: "COMPLETED"})
		connectNotes(t, rc, paid.ID, 1)
		mustCreate(t, env, shop, ukBody(), nil)
		checked := 0
		for _, token := range []string{shop, other} {
			items, _ := listPage(t, env, token, "/payments?limit=100")
			for _, it := range items {
				whole, err := env.App.Store().Payments().GetByID(context.Background(), it.ID)
				if err != nil {
					t.Fatal(err)
				}
				view, err := env.App.Store().Payments().GetView(context.Background(), whole.CustomerID, it.ID)
				if err != nil {
					t.Fatal(err)
				}
				if a, b := fmt.Sprint(viewed(whole)), fmt.Sprint(viewed(view.Payment)); a != b {
					t.Errorf("payment %s:\nwhole %s\nview  %s", it.ID, a, b)
				}
				checked++
			}
		}
		if checked != 7 {
			t.Fatalf("%d payments checked", checked)
		}
	})
}

// viewed is what the details record reads of p.
func viewed(p payment.Payment) []any {
	v, _ := payment.ViewOf(p)
	var sender payment.Sender
	if p.Sender != nil {
		sender = *p.Sender
	}
	acc := payment.ReceivingAccountOf(p, bank.Default())
	var accBank bank.Bank
	if acc.Bank != nil {
		accBank = *acc.Bank
	}
	acc.Bank = nil
	return []any{p.ID, p.CustomerID, p.Status, p.History, p.Sender != nil, sender, p.CreatedAt, p.UpdatedAt, p.UniqueReference,
		p.ConnectAccountID, p.Amount(), p.Request.Currency, p.Request.InternalReference, p.Request.PaymentReference,
		p.System(), p.Scheme(), p.Type(), v, acc, accBank}
}
