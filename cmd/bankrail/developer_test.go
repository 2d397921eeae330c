package main

import (
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/bankrail/bankrail/api"
	"github.com/bankrail/bankrail/client"
	"github.com/bankrail/bankrail/internal/apptest"
	"github.com/bankrail/bankrail/internal/dbtest"
)

// TestTheTopLevelHelpIsTrue: every command the top-level help names for
// an administration noun exists, and every one that exists is named; the
// developer commands payments and notifications resend are listed (issue
// 30, item 6: "account: open, list, show" named commands that did not exist).
func TestTheTopLevelHelpIsTrue(t *testing.T) {
	t.Parallel()
	_, out, _ := runCmd(t, "help")
	nouns := map[string]bool{}
	for _, c := range adminCommands {
		nouns[c.noun] = true
	}
	for noun := range nouns {
		line := regexp.MustCompile(`(?m)^  ` + noun + `\s+(.*)$`).FindStringSubmatch(out)
		if line == nil {
			t.Errorf("the help does not list %s:\n%s", noun, out)
			continue
		}
		var named []string
		for _, w := range strings.FieldsFunc(strings.Split(line[1], "  ")[0], func(r rune) bool { return r == ',' || r == ' ' || r == ':' }) {
			if w != "" && w == strings.ToLower(w) && !strings.HasPrefix(w, "(") {
				named = append(named, w)
			}
		}
		var verbs []string
		for _, c := range verbsOf(noun) {
			verbs = append(verbs, c.verb)
		}
		// The line is "verbs, ... what": its lower-case words before the
		// object are the verbs, all of them and no other.
		named = named[:min(len(named), len(verbs))]
		slices.Sort(named)
		slices.Sort(verbs)
		if !slices.Equal(named, verbs) {
			t.Errorf("the help says %q for %s, whose commands are %v", line[1], noun, verbs)
		}
	}
	for _, want := range []string{"payments      list your payments", "bankrail notifications resend <id>"} {
		if !strings.Contains(out, want) {
			t.Errorf("the help lacks %q:\n%s", want, out)
		}
	}
	for _, args := range [][]string{{"payments", "--help"}, {"payments", "list", "--help"}, {"payments", "get", "--help"},
		{"notifications", "resend", "--help"}, {"account", "list", "--help"}, {"account", "get", "--help"}} {
		if code, out, errOut := runCmd(t, args...); code != 0 || !strings.Contains(out, "Usage: bankrail") {
			t.Errorf("%v: exit %d\n%s%s", args, code, out, errOut)
		}
	}
}

// TestTriggerNamesTheOutcomesOfAnUnknownOne: a wrong outcome is answered
// with the list of the right ones.
func TestTriggerNamesTheOutcomesOfAnUnknownOne(t *testing.T) {
	t.Parallel()
	code, _, errOut := runCmd(t, "trigger", "bogus")
	if code != 2 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, want := range []string{`unknown outcome "bogus"; the outcomes are COMPLETED, REFUSED_BY_BANK`, "DELAYED_AT_BANK>COMPLETED",
		"RECEIVED", "NOT_RECEIVED", "refund", "payout"} {
		if !strings.Contains(errOut, want) {
			t.Errorf("the error lacks %q:\n%s", want, errOut)
		}
	}
}

// TestAccountListAndGet: the administration commands list and show the
// Connect accounts the help promises.
func TestAccountListAndGet(t *testing.T) {
	t.Parallel()
	dbtest.EachMigrated(t, func(t *testing.T, db dbtest.DB) {
		storage, admin := adminOn(t, db)
		const shop = "7b000000-0000-4000-8000-0000000000a6"
		admin("customer", "create", "--name", "Account Shop", "--id", shop)
		created := admin("account", "create", "--customer", shop, "--currency", "EUR", "--nickname", "Main")
		m := regexp.MustCompile(`account (\S+) created: EUR (\S+) for`).FindStringSubmatch(created)
		if m == nil {
			t.Fatalf("account create: %s", created)
		}
		id, iban := m[1], m[2]
		admin("account", "create", "--customer", shop, "--currency", "GBP")
		list := admin("account", "list")
		for _, want := range []string{"ID  ", id, iban, "0.00 EUR", "Main", "GBP"} {
			if !strings.Contains(list, want) {
				t.Errorf("account list lacks %q:\n%s", want, list)
			}
		}
		if eur := admin("account", "list", "--customer", shop, "--currency", "eur"); strings.Contains(eur, "GBP") || !strings.Contains(eur, id) {
			t.Errorf("account list --currency eur:\n%s", eur)
		}
		for _, by := range [][]string{{"--id", id}, {"--iban", iban}} {
			got := admin(append([]string{"account", "get"}, by...)...)
			for _, want := range []string{"account " + id, "customer " + shop, "available 0.00 EUR", "held 0.00 EUR", "nickname Main"} {
				if !strings.Contains(regexp.MustCompile(` +`).ReplaceAllString(got, " "), want) {
					t.Errorf("account get %v lacks %q:\n%s", by, want, got)
				}
			}
		}
		if code, _, errOut := runCmd(t, append([]string{"account", "get"}, storage...)...); code != 1 || !strings.Contains(errOut, "give --id or --iban") {
			t.Errorf("account get without --id: exit %d %s", code, errOut)
		}
		if code, _, errOut := runCmd(t, append([]string{"account", "get", "--id", "7b000000-0000-4000-8000-0000000000ff"}, storage...)...); code != 1 ||
			!strings.Contains(errOut, "not found") {
			t.Errorf("account get of no account: exit %d %s", code, errOut)
		}
	})
}

// TestPaymentsListGetAndResend: the developer commands list and show the
// profile's payments and deliver a notification again, through the public
// API; another merchant's payment is not found.
func TestPaymentsListGetAndResend(t *testing.T) {
	t.Parallel()
	apptest.Each(t, func(t *testing.T, env *apptest.Env) {
		d := newDevEnv(t, env)
		ctx := t.Context()
		scenario := &api.CreatePaymentParams{XServiceTestingScenario: client.Ptr(api.SandboxOutcome("COMPLETED"))}
		p := mustSDK(d.sdk.CreatePayment(ctx, eurPayment(), scenario))
		apptest.Eventually(t, "the payment's notifications delivered", func() bool { return len(d.rc.Got()) >= 2 })
		dev := func(args ...string) string {
			t.Helper()
			code, out, errOut := runCmd(t, append(args, "--config", d.config)...)
			if code != 0 {
				t.Fatalf("%v: exit %d\n%s%s", args, code, out, errOut)
			}
			return out
		}
		list := dev("payments", "list")
		if !regexp.MustCompile(p.ID + `\s+(COMPLETED|RECEIVED)\s+10.50 EUR`).MatchString(list) {
			t.Errorf("payments list:\n%s", list)
		}
		if got := dev("payments", "list", "--status", "refused_by_bank"); strings.Contains(got, p.ID) {
			t.Errorf("payments list --status REFUSED_BY_BANK shows a COMPLETED payment:\n%s", got)
		}
		got := dev("payments", "get", p.ID)
		for _, want := range []string{"payment " + p.ID, "amount 10.50 EUR", "NEW_PAYMENT", "COMPLETED"} {
			if !strings.Contains(regexp.MustCompile(` +`).ReplaceAllString(got, " "), want) {
				t.Errorf("payments get lacks %q:\n%s", want, got)
			}
		}
		theirs := env.CreatePayment(t, env.Token(t, apptest.OtherMerch), "hosted", apptest.EUPayment(), nil)
		for _, id := range []string{"01a20000-0000-7000-8000-000000000000", theirs.ID} {
			if code, _, errOut := runCmd(t, "payments", "get", id, "--config", d.config); code != 1 || !strings.Contains(errOut, "RESOURCE_NOT_FOUND") {
				t.Errorf("payments get of no payment, or another merchant's: exit %d %s", code, errOut)
			}
		}
		if list := dev("payments", "list", "--limit", "100"); strings.Contains(list, theirs.ID) {
			t.Errorf("payments list shows another merchant's payment:\n%s", list)
		}

		ns := mustSDK(d.sdk.ListNotifications(ctx, &api.ListNotificationsParams{PaymentID: &p.ID}))
		if len(ns.Items) == 0 {
			t.Fatal("no notification of the payment")
		}
		before := len(d.rc.Got())
		out := dev("notifications", "resend", ns.Items[0].ID)
		if !strings.Contains(out, "notification "+ns.Items[0].ID) || !strings.Contains(out, "queued for delivery again") {
			t.Errorf("resend: %s", out)
		}
		apptest.Eventually(t, "the notification delivered again", func() bool { return len(d.rc.Got()) > before })
	})
}

// TestTailLabelsIdsByKindAndFilters: tail names a payout's id "payout",
// not "payment", and --event keeps only the types asked for.
func TestTailLabelsIdsByKindAndFilters(t *testing.T) {
	t.Parallel()
	apptest.Each(t, func(t *testing.T, env *apptest.Env) {
		d := newDevEnv(t, env)
		output, stop := runTail(t, d, "--event", "payout_*")
		steps := d.triggerJSON(t, "payout")
		po := stepField[api.Payout](t, steps, "payout", "payout")
		want := regexp.MustCompile(`notification \S+  payout_confirmed payout ` + po.ID)
		deadline := time.Now().Add(10 * time.Second)
		for !want.MatchString(output()) {
			if time.Now().After(deadline) {
				t.Fatalf("no payout_confirmed line naming the payout:\n%s", output())
			}
			time.Sleep(20 * time.Millisecond)
		}
		out := stop()
		if strings.Contains(out, "gateway") || strings.Contains(out, "payment_received") || strings.Contains(out, "account_holder_verification") {
			t.Errorf("--event payout_* printed other types:\n%s", out)
		}
	})
}

// TestSubjectKinds: the kind of every notification type's id.
func TestSubjectKinds(t *testing.T) {
	t.Parallel()
	for typ, want := range map[string]string{"gateway": "payment", "payment_received": "payment", "refund_confirmed": "payment",
		"payout_failed": "payout", "account_holder_verification_result_completed": "payout", "mandate_amended": "mandate",
		"channel_payment_detected": "channel"} {
		if got := subjectKind(typ); got != want {
			t.Errorf("%s: %s, want %s", typ, got, want)
		}
	}
	var f eventFilter
	if err := f.set("pay*ut_*"); err == nil {
		t.Error("a * inside a name was taken")
	}
	if err := f.set(" , "); err == nil {
		t.Error("an empty --event was taken")
	}
	if err := f.set("payout_*, gateway"); err != nil || !f.match("payout_failed") || !f.match("gateway") || f.match("payment_received") {
		t.Errorf("--event payout_*,gateway: %v %v", f, err)
	}
}
