package httpapi_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/url"
	"strings"
	"testing"

	"github.com/bankrail/bankrail/internal/apptest"
)

// answer sends req and returns the body, failing unless the status is want.
func answer(t *testing.T, env *apptest.Env, req apptest.Request, want int) []byte {
	t.Helper()
	resp := env.Do(t, req)
	if resp.Status != want {
		t.Fatalf("%s %s: %d, want %d: %s", req.Method, req.Path, resp.Status, want, resp.Body)
	}
	return resp.Body
}

// idOf is the "id" of a JSON record.
func idOf(t *testing.T, body []byte) string {
	t.Helper()
	var rec struct{ ID string }
	if err := json.Unmarshal(body, &rec); err != nil || rec.ID == "" {
		t.Fatalf("no id in %s (%v)", body, err)
	}
	return rec.ID
}

// Every record the API answers, made through the real HTTP stack as a
// merchant would make it, has exactly the keys of its shape (recordShapes),
// recursively: a field the contract does not give, or a missing one, fails.
// Each record is read from every endpoint that answers it (creation, read,
// list), with its nullable objects filled where a flow fills them (a
// decided verification, an answered amendment, a confirmed deposit, a
// payment whose sender is known).
func TestEveryRecordHasTheContractsShape(t *testing.T) {
	t.Parallel()
	apptest.Each(t, func(t *testing.T, env *apptest.Env) {
		rc := apptest.NewReceiver(t)
		env.SetNotificationURL(t, apptest.Merchant, rc.URL)
		acct := fundedAccount(t, env, "shapes", 50_000)
		token := env.Token(t, apptest.Merchant)
		get := func(path string) []byte {
			return answer(t, env, apptest.Request{Method: "GET", Path: path, Token: token, Header: v1}, 200)
		}
		post := func(path string, body any, header map[string]string, want int) []byte {
			return answer(t, env, apptest.Request{Method: "POST", Path: path, Token: token, Header: header, Body: body}, want)
		}

		t.Run("token response", func(t *testing.T) {
			tok := post("/oauth", passwordBody(apptest.Merchant), nil, 200)
			var pair struct {
				RefreshToken string `json:"refresh_token"`
			}
			if err := json.Unmarshal(tok, &pair); err != nil || pair.RefreshToken == "" {
				t.Fatalf("token response %s (%v)", tok, err)
			}
			refreshed := post("/oauth", map[string]any{"grant_type": "refresh_token", "refresh_token": pair.RefreshToken,
				"client_id": apptest.Merchant.ClientID, "client_secret": apptest.Merchant.ClientSecret}, nil, 200)
			form := url.Values{"grant_type": {"password"}, "client_id": {apptest.Merchant.ClientID}, "client_secret": {apptest.Merchant.ClientSecret},
				"username": {apptest.Merchant.Username}, "password": {apptest.Merchant.Password}}
			legacy := post("/legacy/oauth", form.Encode(), map[string]string{"Content-Type": "application/x-www-form-urlencoded"}, 200)
			checkShape(t, "token response", tok, refreshed, legacy)
		})

		// Payments: an ordinary EU one, a UK one, one expected on the
		// Connect account (RECEIVED, its sender known), one against a mandate.
		eu := post(paymentsPath, euBody(), paymentHeaders(nil), 201)
		uk := post(paymentsPath, ukBody(), paymentHeaders(nil), 201)
		received := post(paymentsPath, expectedBody(rc, 5000, "Shape 1"), paymentHeaders(map[string]string{scenarioHeader: "COMPLETED"}), 201)
		receivedID := idOf(t, received)
		connectNotes(t, rc, receivedID, 1)
		vrp := mustActiveMandate(t, env, token, vrpBody())
		openAccount(t, env, apptest.ShopID, "GBP", "shapes GBP")
		againstMandate := post(paymentsPath, mandatePayment(vrp.ID, 700), paymentHeaders(map[string]string{channelHeader: "api"}), 201)
		t.Run("notification bodies", func(t *testing.T) {
			gateway, received := [][]byte{}, [][]byte{}
			for _, r := range rc.Got() {
				switch r.Header.Get("X-Service-Type") {
				case "":
					gateway = append(gateway, r.Body)
				case "payment_received":
					received = append(received, r.Body)
				}
			}
			checkShape(t, "gateway notification", gateway...)
			checkShape(t, "payment_received notification", received...)
			if !strings.Contains(string(bytes.Join(gateway, nil)), `"sender":{`) || !strings.Contains(string(bytes.Join(received, nil)), `"sender":{`) {
				t.Fatalf("no notification with a sender: gateway %s, received %s", bytes.Join(gateway, nil), bytes.Join(received, nil))
			}
		})
		t.Run("payment", func(t *testing.T) {
			checkShape(t, "payment (POST /payments)", eu, uk, received, againstMandate)
		})
		t.Run("payment details", func(t *testing.T) {
			checkShape(t, "payment details (GET /payments/{id}, GET /payments)",
				get("/payments/"+idOf(t, eu)), get("/payments/"+idOf(t, uk)), get("/payments/"+receivedID),
				get("/payments/"+idOf(t, againstMandate)), get("/payments"))
		})
		t.Run("name match score", func(t *testing.T) {
			checkShape(t, "name match score", get("/payments/"+receivedID+"/name-match-score"))
			checkShape(t, "name match score (legacy)", get("/legacy/payments/"+receivedID+"/name-match-score"))
		})
		t.Run("embedded checkout and legacy", func(t *testing.T) {
			checkShape(t, "embedded checkout session (POST /dropin)", post("/dropin", dropinBody(), nil, 201))
			checkShape(t, "legacy payment (POST /legacy/payments)", post(legacyPaymentsPath, legacyBody(), map[string]string{"X-Service-Api-Version": "1"}, 201))
		})
		t.Run("errors", func(t *testing.T) {
			invalid := with(euBody(), "amount", "ten")
			checkShape(t, "error", post(paymentsPath, invalid, paymentHeaders(nil), 422),
				post(paymentsPath, euBody(), paymentHeaders(map[string]string{channelHeader: ""}), 400),
				answer(t, env, apptest.Request{Method: "GET", Path: "/payments/00000000-0000-4000-8000-000000000001", Token: token}, 404))
			checkShape(t, "legacy error", post(legacyPaymentsPath, with(legacyBody(), "amount", -1), map[string]string{"X-Service-Api-Version": "1"}, 422),
				answer(t, env, apptest.Request{Method: "GET", Path: "/legacy/payments/00000000-0000-4000-8000-000000000001/name-match-score", Token: token}, 404))
		})

		// A refund of the received payment.
		refund := post("/payments/"+receivedID+"/request-refund", map[string]any{"amount": 300, "externalReference": "RMA-S"}, v1, 201)
		t.Run("refund", func(t *testing.T) {
			checkShape(t, "refund", refund, get("/refunds/"+idOf(t, refund)), get("/payments/"+receivedID+"/refunds"))
		})

		// Payouts: a PAYOUT whose verification was held and approved, a
		// SETTLEMENT that settles the received payment, one to a UK account.
		held := post("/payouts", payoutBody(acct.ID, 100, "Jane Doe"), map[string]string{"X-Service-Api-Version": "1",
			scenarioHeader: "ACCOUNT_HOLDER_VERIFICATION_CLOSE_MATCH"}, 201)
		var heldPayout struct{ AccountHolderVerificationID string }
		_ = json.Unmarshal(held, &heldPayout)
		approved := post("/account-holder-verifications/"+heldPayout.AccountHolderVerificationID+"/approve", nil, v1, 200)
		settlement := post("/payouts", settlementBody(acct.ID, 5000), v1, 201)
		var settled []byte
		apptest.Eventually(t, "the settlement settled the payment", func() bool {
			settled = get("/payouts/" + idOf(t, settlement))
			return strings.Contains(string(settled), receivedID)
		})
		ukPayee := payoutBody(acct.ID, 150, "John Smith")
		ukPayee["beneficiary"] = map[string]any{"name": "John Smith", "accountIdentifiers": map[string]any{"sortCode": "40-47-84", "accountNumber": "70872490"}}
		ukPayout := post("/payouts", ukPayee, v1, 201)
		t.Run("payout", func(t *testing.T) {
			checkShape(t, "payout", held, settlement, settled, ukPayout, get("/payouts/"+idOf(t, held)), get("/payouts"))
		})
		t.Run("account holder verification", func(t *testing.T) {
			var plain struct{ AccountHolderVerificationID string }
			_ = json.Unmarshal(ukPayout, &plain)
			checkShape(t, "account holder verification", approved,
				get("/account-holder-verifications/"+heldPayout.AccountHolderVerificationID),
				get("/account-holder-verifications/"+plain.AccountHolderVerificationID),
				get("/account-holder-verifications?transactionId="+idOf(t, held)))
		})
		t.Run("account", func(t *testing.T) {
			checkShape(t, "account", get("/accounts"), get("/accounts/"+acct.ID))
		})
		t.Run("account transaction", func(t *testing.T) {
			checkShape(t, "account transaction", get("/accounts/"+acct.ID+"/transactions"), get("/transactions/"+idOf(t, held)))
			// A payout is its transaction: the fields they share agree
			// (type and status are each one's own, docs/decisions.md).
			for _, p := range [][]byte{get("/payouts/" + idOf(t, held)), ukPayout} {
				var payout, tx map[string]any
				_ = json.Unmarshal(p, &payout)
				_ = json.Unmarshal(get("/transactions/"+idOf(t, p)), &tx)
				for _, k := range []string{"id", "accountId", "operation", "amount", "currency", "reference", "counterparty", "createdAt"} {
					if fmt.Sprint(payout[k]) != fmt.Sprint(tx[k]) {
						t.Errorf("%s: payout %v, transaction %v", k, payout[k], tx[k])
					}
				}
			}
		})

		// Mandates and amendments: one waiting, one answered.
		payTo := mustActiveMandate(t, env, token, payToBody())
		requested := post("/mandates", vrpBody(), v1, 201)
		waiting := post("/mandates/"+payTo.ID+"/amendments", map[string]any{"payTo": map[string]any{"limits": map[string]any{"payment": map[string]any{"amount": 9000}}}}, v1, 201)
		answered := post("/sandbox/amendments/"+idOf(t, waiting)+"/approve", nil, nil, 200)
		validity := post("/mandates/"+vrp.ID+"/amendments", map[string]any{"validity": map[string]any{"to": "2030-01-01 00:00:00"}}, v1, 201)
		t.Run("mandate", func(t *testing.T) {
			checkShape(t, "mandate", requested, get("/mandates/"+payTo.ID), get("/mandates/"+vrp.ID), get("/mandates"))
		})
		t.Run("amendment", func(t *testing.T) {
			checkShape(t, "amendment", waiting, answered, validity, get("/amendments/"+idOf(t, validity)))
		})

		// Channels and their payments: one detected, one confirmed.
		channel := post("/channels", channelBody("USDC", "ETH", "EUR"), v1, 201)
		channelID := idOf(t, channel)
		detected := post("/sandbox/channels/"+channelID+"/deposits", map[string]any{"amount": "12.5"}, nil, 201)
		advanceTenant(t, env, token, 61)
		apptest.Eventually(t, "the deposit confirmed", func() bool {
			var p struct{ Status string }
			_ = json.Unmarshal(get("/channel-payments/"+idOf(t, detected)), &p)
			return p.Status == "COMPLETED"
		})
		pending := post("/sandbox/channels/"+channelID+"/deposits", map[string]any{"amount": "1"}, nil, 201)
		t.Run("channel", func(t *testing.T) {
			checkShape(t, "channel", channel, get("/channels/"+channelID), get("/channels"))
		})
		t.Run("channel payment", func(t *testing.T) {
			checkShape(t, "channel payment", pending, get("/channel-payments/"+idOf(t, detected)), get("/channels/"+channelID+"/payments"))
		})

		// Alias orders and aliases.
		order := post("/orders/account-aliases", map[string]any{"accountId": acct.ID, "count": 2}, v1, 201)
		awaitAliasOrder(t, env, token, idOf(t, order))
		aliases := get("/account-aliases?orderId=" + idOf(t, order))
		var list []struct{ ID string }
		_ = json.Unmarshal(aliases, &list)
		t.Run("alias order", func(t *testing.T) {
			checkShape(t, "alias order created", order)
			checkShape(t, "alias order", get("/orders/account-aliases/"+idOf(t, order)))
		})
		t.Run("account alias", func(t *testing.T) {
			patched := answer(t, env, apptest.Request{Method: "PATCH", Path: "/account-aliases/" + list[0].ID, Token: token, Header: v1,
				Body: map[string]any{"active": false}}, 200)
			checkShape(t, "account alias", aliases, get("/account-aliases/"+list[0].ID), patched)
		})

		// Reports.
		created := post("/reports/payments", period(nil), nil, 201)
		awaitReport(t, env, token, idOf(t, created))
		t.Run("report", func(t *testing.T) {
			checkShape(t, "report created", created, post("/reports/refund", period(nil), nil, 201))
			checkShape(t, "report", get("/reports/"+idOf(t, created)), get("/reports"))
		})

		// The notifications the records above sent, by X-Service-Type prefix.
		kinds := map[string]string{"refund_": "refund notification", "payout_": "payout notification",
			"account_holder_verification_": "account holder verification notification", "mandate_": "mandate notification",
			"channel_payment_": "channel payment notification", "report_": "report notification"}
		bodies := map[string][][]byte{}
		apptest.Eventually(t, "a notification of every kind", func() bool {
			clear(bodies)
			for _, r := range rc.Got() {
				for prefix, name := range kinds {
					if strings.HasPrefix(r.Header.Get("X-Service-Type"), prefix) {
						bodies[name] = append(bodies[name], r.Body)
					}
				}
			}
			return len(bodies) == len(kinds) && strings.Contains(string(bytes.Join(bodies["channel payment notification"], nil)), `"credited":{`)
		})
		t.Run("notification bodies of the other records", func(t *testing.T) {
			for _, name := range kinds {
				checkShape(t, name, bodies[name]...)
			}
		})
	})
}
