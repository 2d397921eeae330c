package httpapi_test

import (
	"bytes"
	"encoding/json"
	"maps"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/bankrail/bankrail/internal/apptest"
	"github.com/bankrail/bankrail/notification"
)

// bodyKeys are the fields of each notification body, as the contract and
// decisions.md give them: required, then optional.
var bodyKeys = map[string][2][]string{
	notification.TypeGateway: {{"payment", "reference", "amount", "status", "detailedStatus"}, {"merchantInternalReference", "sender"}},
	notification.TypePaymentReceived: {{"payment", "reference", "amount", "status", "currency", "timestamp"},
		{"merchantInternalReference", "sender"}},
	notification.TypePaymentNotReceived: {{"payment", "reference", "amount", "status", "currency", "timestamp"}, {"merchantInternalReference"}},
	"refund":                            {{"refund", "payment", "externalReference", "amount", "currency", "status", "timestamp"}, nil},
	"payout":                            {{"payout", "accountId", "amount", "currency", "paymentReference", "status", "timestamp"}, nil},
	notification.TypeAccountHolderVerificationResultCompleted: {{"accountHolderVerification", "transactionId", "status", "result", "timestamp"}, nil},
	"mandate":                        {{"mandate", "status", "timestamp"}, nil},
	"amendment":                      {{"mandate", "amendment", "status", "timestamp"}, nil},
	"channel":                        {{"channelPayment", "channel", "status", "paid", "credited", "timestamp"}, nil},
	notification.TypeReportAvailable: {{"report", "type", "status", "timestamp"}, nil},
	notification.TypeTest:            {nil, nil},
}

// keysOf names the entry of bodyKeys for a notification type.
func keysOf(typ string) [2][]string {
	switch {
	case strings.HasPrefix(typ, "refund_"):
		return bodyKeys["refund"]
	case strings.HasPrefix(typ, "payout_"):
		return bodyKeys["payout"]
	case strings.HasPrefix(typ, "mandate_amend"):
		return bodyKeys["amendment"]
	case strings.HasPrefix(typ, "mandate_"):
		return bodyKeys["mandate"]
	case strings.HasPrefix(typ, "channel_payment_"):
		return bodyKeys["channel"]
	}
	return bodyKeys[typ]
}

// Every kind of notification the server sends, received over HTTP by a
// merchant's receiver: the public package verifies it and decodes it into
// the struct of its type, the body has exactly the fields the contract (or
// decisions.md) gives, nothing the struct does not know, and the struct
// encodes back to the same JSON, and it matches the schema of its webhook in
// the OpenAPI document (the one definition of the bodies, from which the
// public package is generated). On both engines.
func TestEveryNotificationBodyDecodes(t *testing.T) {
	t.Parallel()
	apptest.Each(t, everyNotificationBodyDecodes)
}

func everyNotificationBodyDecodes(t *testing.T, env *apptest.Env) {
	rc := apptest.NewReceiver(t)
	env.SetNotificationURL(t, apptest.Merchant, rc.URL)
	token := env.Token(t, apptest.Merchant)
	acct := openAccount(t, env, apptest.ShopID, "EUR", "main")

	// Payments: gateway notifications, payment_received, payment_not_received.
	paid := mustCreate(t, env, token, expectedBody(rc, 5000, "NB1"), map[string]string{scenarioHeader: "COMPLETED"})
	mustCreate(t, env, token, expectedBody(rc, 2050, "NB2"), map[string]string{scenarioHeader: "COMPLETED"})
	// Refunds: confirmed, failed (1177), rejected.
	connectNotes(t, rc, paid.ID, 1)
	mustRefund(t, env, token, paid.ID, map[string]any{"amount": 300, "externalReference": "NB-R1"}, nil)
	mustRefund(t, env, token, paid.ID, map[string]any{"amount": 1177, "externalReference": "NB-R2"}, nil)
	mustRefund(t, env, token, paid.ID, map[string]any{"amount": 400, "externalReference": "NB-R3"}, map[string]string{scenarioHeader: "REFUND_REJECTED"})
	// Payouts: the verification's result, confirmed, failed (1570), rejected (2570).
	for _, amount := range []int64{100, 1570, 2570} {
		mustPayout(t, env, token, payoutBody(acct.ID, amount, "Jane Doe"), nil)
	}
	// Mandates: authorised, amended, amendment declined, suspended,
	// cancelled, declined; an amendment abandoned and a mandate expired on
	// the clock.
	m := mustActiveMandate(t, env, token, payToBody())
	a := mustAmend(t, env, token, m.ID, map[string]any{"validity": map[string]any{"to": "2026-12-01 00:00:00"}})
	env.Do(t, apptest.Request{Method: "POST", Path: "/sandbox/amendments/" + a.ID + "/approve", Token: token})
	a = mustAmend(t, env, token, m.ID, map[string]any{"validity": map[string]any{"to": "2026-11-01 00:00:00"}})
	env.Do(t, apptest.Request{Method: "POST", Path: "/sandbox/amendments/" + a.ID + "/decline", Token: token})
	mustAmend(t, env, token, m.ID, map[string]any{"validity": map[string]any{"to": "2026-10-01 00:00:00"}}) // left to be abandoned
	v := mustActiveMandate(t, env, token, vrpBody())
	mandateCall(t, env, token, "POST", "/mandates/"+v.ID+"/suspend", nil, 200)
	mandateCall(t, env, token, "POST", "/mandates/"+v.ID+"/cancel", nil, 200)
	d := mustCreateMandate(t, env, token, vrpBody())
	mandateCall(t, env, token, "POST", "/sandbox/mandates/"+d.ID+"/authorise", map[string]string{"outcome": "DECLINED"}, 200)
	// A channel deposit: detected, then completed after its confirmations.
	c := mustCreateChannel(t, env, token, channelBody("USDC", "ETH", "EUR"))
	mustDeposit(t, env, token, c.ID, map[string]any{"amount": "12.5"})
	// A report; the test notification.
	start := apptest.Epoch.Add(-time.Hour)
	if resp := env.Do(t, apptest.Request{Method: "POST", Path: "/reports/payments", Token: token, Body: map[string]any{
		"startDate": start.Format(time.RFC3339), "endDate": start.Add(24 * time.Hour).Format(time.RFC3339), "allowEmpty": true}}); resp.Status != 201 {
		t.Fatalf("report: %d %s", resp.Status, resp.Body)
	}
	if resp := env.Do(t, apptest.Request{Method: "POST", Path: "/notifications/test", Token: token}); resp.Status != 200 {
		t.Fatalf("test notification: %d %s", resp.Status, resp.Body)
	}
	// The clock: the deposit's confirmations (60 s), the amendment's 5 days,
	// the mandate's validity (to 2026-12-01 after the approved amendment).
	advanceClock(t, env, token, 61)
	advanceClock(t, env, token, 5*24*3600)
	advanceClock(t, env, env.Token(t, apptest.Merchant), 200*24*3600) // the first token has expired on the clock

	want := slices.DeleteFunc(notification.Types(), func(typ string) bool { return typ == "" }) // gateway has no type: counted apart
	seen := map[string]int{}
	apptest.Eventually(t, "a notification of every type", func() bool {
		clear(seen)
		for _, r := range rc.Got() {
			seen[r.Header.Get(notification.HeaderType)]++
		}
		for _, typ := range want {
			if seen[typ] == 0 {
				return false
			}
		}
		return seen[""] > 0
	})

	for _, r := range rc.Got() {
		n := verify(t, r) // signature checked, body decoded by type
		typ := n.Type
		if err := apptest.NotificationMismatch(typ, r.Body); err != nil {
			t.Error(err)
		}
		keys := keysOf(typ)
		var raw map[string]any
		if err := json.Unmarshal(r.Body, &raw); err != nil {
			t.Fatal(err)
		}
		for _, k := range keys[0] {
			if _, ok := raw[k]; !ok {
				t.Errorf("%s: no %q in %s", typ, k, r.Body)
			}
		}
		for k := range raw {
			if !slices.Contains(keys[0], k) && !slices.Contains(keys[1], k) {
				t.Errorf("%s: %q is not a field of the body: %s", typ, k, r.Body)
			}
		}
		if typ == notification.TypeTest {
			if n.Body != nil || string(r.Body) != "{}" {
				t.Errorf("test: %T %s", n.Body, r.Body)
			}
			continue
		}
		// Decoded into the type's struct, strictly, and encoded back to the same JSON.
		strict := notification.NewBody(typ)
		dec := json.NewDecoder(bytes.NewReader(r.Body))
		dec.DisallowUnknownFields()
		if err := dec.Decode(strict); err != nil {
			t.Errorf("%s: %v: %s", typ, err, r.Body)
			continue
		}
		if reflect.TypeOf(n.Body) != reflect.TypeOf(strict) || !reflect.DeepEqual(n.Body, strict) {
			t.Errorf("%s: Parse gave %T %+v, want %T", typ, n.Body, n.Body, strict)
		}
		again, _ := json.Marshal(strict)
		var back map[string]any
		_ = json.Unmarshal(again, &back)
		if !reflect.DeepEqual(back, raw) {
			t.Errorf("%s: the struct encodes %s, the server sent %s", typ, again, r.Body)
		}
	}

	// A few values, through the typed fields.
	statuses := map[string][]string{}
	for _, r := range rc.Got() {
		n := verify(t, r)
		switch {
		case n.Refund != nil:
			statuses[n.Type] = append(statuses[n.Type], n.Refund.Status)
			if n.Refund.Payment != paid.ID || n.Refund.Currency != "EUR" || n.Refund.Timestamp.IsZero() {
				t.Errorf("refund body %+v", n.Refund)
			}
		case n.Payout != nil:
			statuses[n.Type] = append(statuses[n.Type], n.Payout.Status)
			if n.Payout.AccountID != acct.ID {
				t.Errorf("payout body %+v", n.Payout)
			}
		case n.ChannelPayment != nil:
			if (n.Type == notification.TypeChannelPaymentCompleted) != (n.ChannelPayment.Credited != nil) || n.ChannelPayment.Paid.Amount != "12.500000" {
				t.Errorf("%s body %+v", n.Type, n.ChannelPayment)
			}
		case n.Mandate != nil:
			if strings.HasPrefix(n.Type, "mandate_amend") == (n.Mandate.Amendment == "") {
				t.Errorf("%s body %+v", n.Type, n.Mandate)
			}
		case n.Connect != nil:
			if (n.Type == notification.TypePaymentReceived) != (n.Connect.Status == notification.StatusReceived) {
				t.Errorf("%s body %+v", n.Type, n.Connect)
			}
		}
	}
	for typ, want := range map[string][]string{
		notification.TypeRefundConfirmed: {"CONFIRMED"}, notification.TypeRefundFailed: {"FAILED"}, notification.TypeRefundRejected: {"REJECTED"},
		notification.TypePayoutConfirmed: {"COMPLETED"}, notification.TypePayoutFailed: {"FAILED", "REJECTED"},
	} {
		got := slices.Sorted(slices.Values(statuses[typ]))
		if !slices.Equal(got, want) {
			t.Errorf("%s statuses %v, want %v", typ, got, want)
		}
	}
	t.Logf("types received: %v", slices.Sorted(maps.Keys(seen)))
}
