package main

import (
	"encoding/json"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/bankrail/bankrail/api"
	"github.com/bankrail/bankrail/client"
	"github.com/bankrail/bankrail/internal/apptest"
	"github.com/bankrail/bankrail/internal/ledger"
	"github.com/bankrail/bankrail/notification"
)

// devEnv is an instance whose merchant (apptest.Merchant) has a EUR Connect
// account and a notification receiver, with a stored profile.
type devEnv struct {
	*apptest.Env
	rc     *apptest.Receiver
	config string
	sdk    *client.Client
}

func newDevEnv(t *testing.T, env *apptest.Env) devEnv {
	t.Helper()
	if _, _, err := env.App.Accounts().EnsureAccount(t.Context(), ledger.AccountSpec{CustomerID: apptest.ShopID, Currency: "EUR", Nickname: "Shop EUR"}); err != nil {
		t.Fatal(err)
	}
	rc := apptest.NewReceiver(t)
	env.SetNotificationURL(t, apptest.Merchant, rc.URL)
	config := filepath.Join(t.TempDir(), "profiles.json")
	if code, out, errOut := runCmd(t, loginArgs(env, apptest.Merchant, config, "--notification-secret", apptest.NotificationSecrets["shop-client"])...); code != 0 {
		t.Fatalf("login: %s%s", out, errOut)
	}
	p, err := (&connection{config: config}).resolve()
	if err != nil {
		t.Fatal(err)
	}
	sdk, err := profileClient(p)
	if err != nil {
		t.Fatal(err)
	}
	return devEnv{Env: env, rc: rc, config: config, sdk: sdk}
}

// triggerJSON runs `bankrail trigger --json` and returns its steps.
func (d devEnv) triggerJSON(t *testing.T, args ...string) []map[string]json.RawMessage {
	t.Helper()
	code, out, errOut := runCmd(t, append([]string{"trigger", "--config", d.config, "--json"}, args...)...)
	if code != 0 {
		t.Fatalf("trigger %v: exit %d\n%s%s", args, code, out, errOut)
	}
	var steps []map[string]json.RawMessage
	for line := range strings.SplitSeq(strings.TrimSpace(out), "\n") {
		var s map[string]json.RawMessage
		if err := json.Unmarshal([]byte(line), &s); err != nil {
			t.Fatalf("not a JSON line: %q", line)
		}
		steps = append(steps, s)
	}
	return steps
}

// stepNames is the "step" of each step.
func stepNames(steps []map[string]json.RawMessage) string {
	var names []string
	for _, s := range steps {
		var n string
		_ = json.Unmarshal(s["step"], &n)
		names = append(names, n)
	}
	return strings.Join(names, " ")
}

// stepField decodes one field of the last step named step.
func stepField[T any](t *testing.T, steps []map[string]json.RawMessage, step, name string) T {
	t.Helper()
	var v T
	for i := len(steps) - 1; i >= 0; i-- {
		var n string
		_ = json.Unmarshal(steps[i]["step"], &n)
		if n == step {
			if err := json.Unmarshal(steps[i][name], &v); err != nil {
				t.Fatalf("step %s field %s: %v", step, name, err)
			}
			return v
		}
	}
	t.Fatalf("no step %s in %s", step, stepNames(steps))
	return v
}

// verifiedFor is what the merchant's receiver got about payment, verified
// with the public package: "type/status" of each notification.
func (d devEnv) verifiedFor(t *testing.T, payment string, n int) []string {
	t.Helper()
	var got []string
	apptest.Eventually(t, "notifications of "+payment, func() bool {
		got = nil
		for _, r := range d.rc.Got() {
			if err := notification.Verify(apptest.NotificationSecrets["shop-client"], r.Header, r.Body); err != nil {
				t.Fatalf("a notification does not verify: %v", err)
			}
			parsed, err := notification.Parse(r.Header, r.Body)
			if err != nil {
				t.Fatal(err)
			}
			switch {
			case parsed.Gateway != nil && parsed.Gateway.Payment == payment:
				got = append(got, "gateway/"+parsed.Gateway.Status)
			case parsed.Connect != nil && parsed.Connect.Payment == payment:
				got = append(got, parsed.Type+"/"+parsed.Connect.Status)
			}
		}
		return len(got) >= n
	})
	return got
}

// TestTriggerDrivesEveryOutcome runs `bankrail trigger` against a running
// instance for each kind of outcome and checks its steps, where the payment
// (refund, payout) ended, and that the merchant's receiver got the verified
// notifications of that outcome.
func TestTriggerDrivesEveryOutcome(t *testing.T) {
	t.Parallel()
	apptest.Each(t, func(t *testing.T, env *apptest.Env) {
		d := newDevEnv(t, env)
		ctx := t.Context()
		payment := func(steps []map[string]json.RawMessage) api.PaymentDetails {
			return stepField[api.PaymentDetails](t, steps, "payment", "payment")
		}

		steps := d.triggerJSON(t, "COMPLETED")
		if names := stepNames(steps); names != "payment_created authorised payment" {
			t.Fatalf("COMPLETED steps: %s", names)
		}
		p := payment(steps)
		if p.Status != "RECEIVED" { // expected on the Connect account: the funds arrive
			t.Errorf("COMPLETED ended %s", p.Status)
		}
		if got := d.verifiedFor(t, p.ID, 3); strings.Join(got, " ") != "gateway/PENDING gateway/COMPLETED payment_received/RECEIVED" {
			t.Errorf("notifications of COMPLETED: %v", got)
		}

		p = payment(d.triggerJSON(t, "refused_by_bank"))
		if p.Status != "REFUSED_BY_BANK" {
			t.Errorf("REFUSED_BY_BANK ended %s", p.Status)
		}
		if got := d.verifiedFor(t, p.ID, 2); strings.Join(got, " ") != "gateway/PENDING gateway/FAILED" {
			t.Errorf("notifications of REFUSED_BY_BANK: %v", got)
		}

		steps = d.triggerJSON(t, "DELAYED_AT_BANK>COMPLETED")
		if names := stepNames(steps); names != "payment_created authorised clock_advanced payment" {
			t.Fatalf("DELAYED_AT_BANK>COMPLETED steps: %s", names)
		}
		if p = payment(steps); p.Status != "RECEIVED" || !strings.Contains(fmtHistory(p), "DELAYED_AT_BANK COMPLETED") {
			t.Errorf("DELAYED_AT_BANK>COMPLETED ended %s: %s", p.Status, fmtHistory(p))
		}

		steps = d.triggerJSON(t, "NOT_RECEIVED")
		p = payment(steps)
		if secs := stepField[int64](t, steps, "clock_advanced", "seconds"); secs != int64(timeframeDays(p.TransferType))*86400 || secs != 8*86400 {
			t.Errorf("NOT_RECEIVED advanced the clock %d s for %s, want 8 days (no bank chosen: SEPA Credit Transfer)", secs, p.TransferType)
		}
		if p.Status != "NOT_RECEIVED" || fmtHistory(p) != "NEW_PAYMENT BANK_REDIRECT AUTHORISED_BY_USER COMPLETED NOT_RECEIVED" {
			t.Errorf("NOT_RECEIVED: %s", fmtHistory(p))
		}
		if got := d.verifiedFor(t, p.ID, 3); got[len(got)-1] != "payment_not_received/NOT_RECEIVED" {
			t.Errorf("notifications of NOT_RECEIVED: %v", got)
		}

		steps = d.triggerJSON(t, "refund", "--amount", "700")
		if names := stepNames(steps); names != "payment_created authorised payment refund_created refund" {
			t.Fatalf("refund steps: %s", names)
		}
		refund := stepField[api.Refund](t, steps, "refund", "refund")
		if refund.Status != "CONFIRMED" || refund.Amount != 700 {
			t.Errorf("refund %+v", refund)
		}
		if got := mustSDK(d.sdk.GetPayment(ctx, refund.PaymentID)); got.RefundNotAvailableCode != "FULLY_REFUNDED" {
			t.Errorf("refunded payment: %s", got.RefundNotAvailableCode)
		}
		refund = stepField[api.Refund](t, d.triggerJSON(t, "refund", "--scenario", "REFUND_REJECTED"), "refund", "refund")
		if refund.Status != "REJECTED" {
			t.Errorf("a rejected refund is %s", refund.Status)
		}

		// The account holds what the payments brought; a payout larger than
		// that is topped up first.
		acct := mustSDK(d.sdk.ListAccounts(ctx, nil)).Items[0]
		steps = d.triggerJSON(t, "payout", "--amount", int64Arg(acct.Balance.Available+500))
		if names := stepNames(steps); names != "topped_up payout_created verification payout" {
			t.Fatalf("payout steps: %s", names)
		}
		if po := stepField[api.Payout](t, steps, "payout", "payout"); po.Status != "COMPLETED" {
			t.Errorf("payout %+v", po)
		}
		if stepField[int64](t, steps, "topped_up", "amount") != 500 {
			t.Errorf("topped up %s", steps[0]["amount"])
		}
		steps = d.triggerJSON(t, "payout", "--scenario", "ACCOUNT_HOLDER_VERIFICATION_NO_MATCH")
		if names := stepNames(steps); !strings.HasSuffix(names, "payout_created verification held") {
			t.Fatalf("held payout steps: %s", names)
		}
		if v := stepField[api.AccountHolderVerification](t, steps, "held", "verification"); v.Result != "NO_MATCH" {
			t.Errorf("held payout's verification: %+v", v)
		}

		// GBP: no Connect account, so the payment names a beneficiary.
		p = payment(d.triggerJSON(t, "COMPLETED", "--currency", "GBP"))
		if p.Status != "COMPLETED" || p.PaymentSystem != "OPEN_BANKING_UK" || p.Currency.ID != "GBP" {
			t.Errorf("GBP: %s %s %s", p.Status, p.PaymentSystem, p.Currency.ID)
		}

		// For a person: one line per step.
		code, out, errOut := runCmd(t, "trigger", "cancelled_by_user", "--config", d.config)
		lines := strings.Split(strings.TrimSpace(out), "\n")
		if code != 0 || len(lines) != 3 || !strings.Contains(lines[0], "created: 10.50 EUR, NEW_PAYMENT, expected on the Connect account") ||
			!strings.Contains(lines[1], "Authorised in the sandbox as CANCELLED_BY_USER") || !strings.HasSuffix(lines[2], "NEW_PAYMENT -> BANK_REDIRECT -> CANCELLED_BY_USER") {
			t.Errorf("human output: exit %d\n%s%s", code, out, errOut)
		}
	})
}

// TestTriggerRefusals: an unknown outcome is a usage error; an outcome
// that needs a Connect account says so when there is none.
func TestTriggerRefusals(t *testing.T) {
	t.Parallel()
	env := apptest.New(t)
	config := filepath.Join(t.TempDir(), "profiles.json")
	if code, out, errOut := runCmd(t, loginArgs(env, apptest.OtherMerch, config)...); code != 0 {
		t.Fatalf("login: %s%s", out, errOut)
	}
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"PAID"}, 2, `unknown outcome "PAID"`},
		{[]string{"COMPLETED", "--currency", "USD"}, 2, "--currency must be EUR or GBP"},
		{[]string{"COMPLETED", "REFUSED_BY_BANK"}, 2, "name one outcome"},
		{[]string{"NOT_RECEIVED"}, 1, "NOT_RECEIVED needs a Connect account in EUR"},
		{[]string{"payout"}, 1, "a payout needs a Connect account in EUR"},
		{[]string{"COMPLETED", "--profile", "nope"}, 1, `no profile "nope"`},
	} {
		code, out, errOut := runCmd(t, append([]string{"trigger", "--config", config}, tc.args...)...)
		if code != tc.code || !strings.Contains(errOut, tc.want) {
			t.Errorf("trigger %v: exit %d (want %d)\n%s%s", tc.args, code, tc.code, out, errOut)
		}
	}
}

func fmtHistory(p api.PaymentDetails) string {
	var s []string
	for _, u := range p.StatusUpdates {
		s = append(s, string(u.NewStatus))
	}
	return strings.Join(s, " ")
}

// int64Arg is n as a command-line argument.
func int64Arg(n int64) string { return strconv.FormatInt(n, 10) }

// mustSDK returns v, or panics on err (an SDK call of a test's set-up).
func mustSDK[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}
