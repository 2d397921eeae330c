package httpapi_test

import (
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/bankrail/bankrail/internal/apptest"
)

type refundJSON struct {
	ID, PaymentID, AccountID, Currency, ExternalReference, Status string
	Amount                                                        int64
}

func requestRefund(t *testing.T, env *apptest.Env, token, paymentID string, body map[string]any, headers map[string]string) *apptest.Response {
	t.Helper()
	h := map[string]string{"X-Service-Api-Version": "1"}
	for k, v := range headers {
		h[k] = v
	}
	return env.Do(t, apptest.Request{Method: "POST", Path: "/payments/" + paymentID + "/request-refund", Token: token, Header: h, Body: body})
}

func mustRefund(t *testing.T, env *apptest.Env, token, paymentID string, body map[string]any, headers map[string]string) refundJSON {
	t.Helper()
	resp := requestRefund(t, env, token, paymentID, body, headers)
	var f refundJSON
	resp.JSON(t, &f)
	if resp.Status != http.StatusCreated || f.Status != "PENDING" || resp.Header.Get("Location") != "/refunds/"+f.ID {
		t.Fatalf("refund: %d %s %v", resp.Status, resp.Body, resp.Header)
	}
	return f
}

// refundNotes waits for n refund notifications of payment and returns their bodies.
func refundNotes(t *testing.T, rc *apptest.Receiver, payment string, n int) []map[string]any {
	t.Helper()
	var out []map[string]any
	apptest.Eventually(t, "refund notifications of "+payment, func() bool {
		out = nil
		for _, r := range rc.Got() {
			note := verify(t, r)
			if len(note.Type) < 7 || note.Type[:7] != "refund_" {
				continue
			}
			var b map[string]any
			if err := json.Unmarshal(r.Body, &b); err != nil {
				t.Fatal(err)
			}
			if b["payment"] == payment {
				b["type"] = note.Type
				out = append(out, b)
			}
		}
		return len(out) >= n
	})
	return out
}

// A payment from creation through RECEIVED to a partial and a full
// refund, every notification received and verified; the sandbox's failing
// amount and rejection give the money back; the rule's refusals.
func TestRefunds(t *testing.T) {
	t.Parallel()
	apptest.Each(t, func(t *testing.T, env *apptest.Env) {
		acct := openAccount(t, env, apptest.ShopID, "EUR", "main")
		token := env.Token(t, apptest.Merchant)
		rc := apptest.NewReceiver(t)
		paid := mustCreate(t, env, token, expectedBody(rc, 1050, "R1"), map[string]string{scenarioHeader: "COMPLETED"})
		connectNotes(t, rc, paid.ID, 1)
		if d := getDetails(t, env, token, paid.ID); !d.RefundAvailable || d.RefundNotAvailableCode != "" {
			t.Fatalf("refundable: %+v", d)
		}

		key := map[string]string{"Idempotency-Key": "refund-1"}
		part := mustRefund(t, env, token, paid.ID, map[string]any{"amount": 300, "externalReference": "RMA-1"}, key)
		if part.Amount != 300 || part.AccountID != acct.ID || part.Currency != "EUR" || part.PaymentID != paid.ID {
			t.Fatalf("partial refund %+v", part)
		}
		again := requestRefund(t, env, token, paid.ID, map[string]any{"amount": 300, "externalReference": "RMA-1"}, key)
		if again.Header.Get("Idempotent-Replayed") != "true" || again.Status != http.StatusCreated {
			t.Fatalf("replay: %d %v", again.Status, again.Header)
		}
		requestRefund(t, env, token, paid.ID, map[string]any{"amount": 301, "externalReference": "RMA-1"}, key).
			Error(t, http.StatusConflict, "IDEMPOTENCY_CONFLICT")
		if n := refundNotes(t, rc, paid.ID, 1)[0]; n["type"] != "refund_confirmed" || n["refund"] != part.ID || n["status"] != "CONFIRMED" ||
			n["externalReference"] != "RMA-1" || n["amount"] != float64(300) || n["currency"] != "EUR" || n["timestamp"] == nil {
			t.Fatalf("refund_confirmed %v", n)
		}
		var got refundJSON
		env.Do(t, apptest.Request{Method: "GET", Path: "/refunds/" + part.ID, Token: token, Header: v1}).JSON(t, &got)
		if got.Status != "CONFIRMED" {
			t.Fatalf("refund %+v", got)
		}
		e := requestRefund(t, env, token, paid.ID, map[string]any{"amount": 751, "externalReference": "RMA-2"}, nil).
			Error(t, http.StatusUnprocessableEntity, "VALIDATION_FAILURE")
		if e.Errors[0].Type != "TOO_HIGH" || e.Errors[0].PropertyPath != "amount" {
			t.Fatalf("above what is left: %+v", e)
		}
		full := mustRefund(t, env, token, paid.ID, map[string]any{"externalReference": "RMA-3"}, nil)
		if full.Amount != 750 {
			t.Fatalf("full refund %+v", full)
		}
		refundNotes(t, rc, paid.ID, 2)
		if d := getDetails(t, env, token, paid.ID); d.RefundAvailable || d.RefundNotAvailableCode != "FULLY_REFUNDED" {
			t.Fatalf("after the full refund: %v %q", d.RefundAvailable, d.RefundNotAvailableCode)
		}
		requestRefund(t, env, token, paid.ID, map[string]any{"amount": 1, "externalReference": "RMA-4"}, nil).
			Error(t, http.StatusConflict, "RESOURCE_NOT_MODIFIABLE")
		var list []refundJSON
		env.Do(t, apptest.Request{Method: "GET", Path: "/payments/" + paid.ID + "/refunds", Token: token, Header: v1}).JSON(t, &list)
		if len(list) != 2 || list[0].ID != part.ID || list[1].ID != full.ID {
			t.Fatalf("refunds of the payment %+v", list)
		}
		if b := accountBalance(t, env, token, acct.ID); b.Balance.Available != 0 {
			t.Fatalf("balance after refunds %+v", b.Balance)
		}

		// 1177 fails and REFUND_REJECTED rejects: the money comes back.
		big := mustCreate(t, env, token, expectedBody(rc, 3000, "R2"), map[string]string{scenarioHeader: "COMPLETED"})
		connectNotes(t, rc, big.ID, 1)
		mustRefund(t, env, token, big.ID, map[string]any{"amount": 1177, "externalReference": "F"}, nil)
		mustRefund(t, env, token, big.ID, map[string]any{"amount": 500, "externalReference": "J"}, map[string]string{scenarioHeader: "REFUND_REJECTED"})
		notes := refundNotes(t, rc, big.ID, 2)
		// The two refunds are settled by jobs that may run at once: their
		// notifications come in either order.
		slices.SortFunc(notes, func(a, b map[string]any) int { return strings.Compare(a["type"].(string), b["type"].(string)) })
		if notes[0]["type"] != "refund_failed" || notes[0]["status"] != "FAILED" || notes[1]["type"] != "refund_rejected" || notes[1]["status"] != "REJECTED" {
			t.Fatalf("failed and rejected: %v", notes)
		}
		if b := accountBalance(t, env, token, acct.ID); b.Balance.Available != 3000 {
			t.Fatalf("money not back: %+v", b.Balance)
		}
		if d := getDetails(t, env, token, big.ID); !d.RefundAvailable {
			t.Fatalf("a failed refund leaves the payment refundable: %+v", d)
		}
		requestRefund(t, env, token, big.ID, map[string]any{"amount": 1, "externalReference": "x"}, map[string]string{scenarioHeader: "PAID"}).
			Error(t, http.StatusBadRequest, "INVALID_HTTP_HEADER")

		// Refusals: not a Connect payment, missing fields, other customers, read-only users.
		plain := mustCreate(t, env, env.Token(t, apptest.OtherMerch), euBody(), map[string]string{scenarioHeader: "COMPLETED"})
		requestRefund(t, env, env.Token(t, apptest.OtherMerch), plain.ID, map[string]any{"externalReference": "x"}, nil).
			Error(t, http.StatusConflict, "RESOURCE_NOT_MODIFIABLE")
		e = requestRefund(t, env, token, big.ID, map[string]any{"amount": 0}, nil).Error(t, http.StatusUnprocessableEntity, "VALIDATION_FAILURE")
		if len(e.Errors) != 2 {
			t.Fatalf("every failing field: %+v", e)
		}
		other := env.Token(t, apptest.OtherMerch)
		requestRefund(t, env, other, big.ID, map[string]any{"externalReference": "x"}, nil).Error(t, http.StatusNotFound, "RESOURCE_NOT_FOUND")
		for _, path := range []string{"/refunds/" + part.ID, "/payments/" + paid.ID + "/refunds"} {
			env.Do(t, apptest.Request{Method: "GET", Path: path, Token: other, Header: v1}).Error(t, http.StatusNotFound, "RESOURCE_NOT_FOUND")
		}
		requestRefund(t, env, env.Token(t, apptest.Viewer), big.ID, map[string]any{"externalReference": "x"}, nil).
			Error(t, http.StatusForbidden, "ACCESS_DENIED")
		env.Do(t, apptest.Request{Method: "GET", Path: "/refunds/" + part.ID, Token: env.Token(t, apptest.PSPAdmin), Header: v1}).JSON(t, &got)
		if got.ID != part.ID {
			t.Fatalf("the PSP reads its merchant's refund: %+v", got)
		}
		env.Do(t, apptest.Request{Method: "GET", Path: "/refunds/nope", Token: token, Header: v1}).Error(t, http.StatusBadRequest, "MALFORMED_PATH_PARAM")
	})
}

// 50 concurrent refunds of 30 against a payment of 1,000 on an account
// holding only it: exactly 33 are taken and 10 is left, on both engines.
func TestConcurrentRefunds(t *testing.T) {
	t.Parallel()
	apptest.Each(t, func(t *testing.T, env *apptest.Env) {
		acct := openAccount(t, env, apptest.ShopID, "EUR", "main")
		token := env.Token(t, apptest.Merchant)
		rc := apptest.NewReceiver(t)
		paid := mustCreate(t, env, token, expectedBody(rc, 1000, "C1"), map[string]string{scenarioHeader: "COMPLETED"})
		var wg sync.WaitGroup
		var mu sync.Mutex
		codes := map[int]int{}
		for range 50 {
			wg.Go(func() {
				resp := requestRefund(t, env, token, paid.ID, map[string]any{"amount": 30, "externalReference": "C"}, nil)
				mu.Lock()
				codes[resp.Status]++
				mu.Unlock()
			})
		}
		wg.Wait()
		if codes[http.StatusCreated] != 33 || codes[http.StatusUnprocessableEntity] != 17 {
			t.Fatalf("answers %v, want 33 created and 17 refused", codes)
		}
		if b := accountBalance(t, env, token, acct.ID); b.Balance.Available != 10 {
			t.Fatalf("balance %+v", b.Balance)
		}
		var list []refundJSON
		env.Do(t, apptest.Request{Method: "GET", Path: "/payments/" + paid.ID + "/refunds", Token: token, Header: v1}).JSON(t, &list)
		if len(list) != 33 {
			t.Fatalf("%d refunds stored", len(list))
		}
	})
}
