package dashboard_test

import (
	"encoding/csv"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/bankrail/bankrail/internal/apptest"
)

// TestPaymentsList: pages of 25, newest first; a search by the payment
// reference, by the merchant's internal reference or by the id; a status
// filter; the chart of payments per day; a PSP's user sees its merchant's
// payments with the merchant's name.
func TestPaymentsList(t *testing.T) {
	t.Parallel()
	apptest.Each(t, func(t *testing.T, env *apptest.Env) {
		token := env.Token(t, apptest.Merchant)
		var ids []string
		for i := range 27 {
			ids = append(ids, createPayment(t, env, token, fmt.Sprintf("ref-%02d", i), nil, nil))
			env.Clock.Advance(time.Second)
		}
		completed := createPayment(t, env, token, "paid-1", map[string]string{"X-Service-Testing-Scenario": "COMPLETED"}, nil)
		c := signIn(t, env, apptest.Merchant)
		// The chart of today: 1 finished, 27 in progress.
		contains(t, "chart", c.open("/dashboard/payments").Body, `role="img"`, "28 payments from", "the busiest day had 28",
			`<th scope="row">Mon 1 Jun</th><td class="num">1</td><td class="num">27</td><td class="num">0</td><td class="num">0</td><td class="num">28</td>`)
		// A day later (the payments left waiting are abandoned meanwhile), another.
		env.Clock.Advance(24 * time.Hour)
		createPayment(t, env, env.Token(t, apptest.Merchant), "tomorrow-1", nil, nil)

		c = signIn(t, env, apptest.Merchant)
		first := c.open("/dashboard/payments")
		rows := paymentLink.FindAllStringSubmatch(first.Body, -1)
		if len(rows) != 25 || !strings.Contains(first.Body, "Page 1 of 2 · 29 in all") || rows[1][1] != completed {
			t.Fatalf("first page: %d rows\n%s", len(rows), mainOf(first.Body))
		}
		lacks(t, "a merchant's list", first.Body, ">Merchant</th>")
		second := c.open("/dashboard/payments?page=2")
		if rows := paymentLink.FindAllStringSubmatch(second.Body, -1); len(rows) != 4 || rows[3][1] != ids[0] {
			t.Fatalf("second page: %d rows", len(rows))
		}
		contains(t, "second page", second.Body, `href="/dashboard/payments?page=1" rel="prev"`)

		for _, q := range []string{"ref-07", "internal-ref-07"} {
			p := c.open("/dashboard/payments?q=" + q)
			if rows := paymentLink.FindAllStringSubmatch(p.Body, -1); len(rows) != 1 || rows[0][1] != ids[7] {
				t.Fatalf("search %s: %v", q, rows)
			}
			contains(t, "search results", p.Body, "Search results", `value="`+q+`"`)
		}
		if p := c.get("/dashboard/payments?q=" + ids[3]); p.Status != http.StatusSeeOther || p.Location != "/dashboard/payments/"+ids[3] {
			t.Fatalf("search by id: %d %q", p.Status, p.Location)
		}
		contains(t, "no match", c.open("/dashboard/payments?q=nothing-like-it").Body, "No payment matches.")
		done := c.open("/dashboard/payments?status=COMPLETED")
		if rows := paymentLink.FindAllStringSubmatch(done.Body, -1); len(rows) != 1 || rows[0][1] != completed {
			t.Fatalf("status filter: %v", rows)
		}
		contains(t, "status filter", done.Body, `<option selected>COMPLETED</option>`)

		// The chart the day after: yesterday's 28 (whatever became of them), today's 1.
		chart := first.Body
		contains(t, "chart", chart, "29 payments from 20 May 2026 to 2 June 2026", "the busiest day had 28",
			`<td class="num">28</td></tr><tr><th scope="row">Tue 2 Jun</th><td class="num">0</td><td class="num">1</td><td class="num">0</td><td class="num">0</td><td class="num">1</td>`)

		psp := signIn(t, env, apptest.PSPAdmin)
		list := psp.open("/dashboard/payments")
		contains(t, "PSP's list", list.Body, ">Merchant</th>", "<td>Test Shop</td>", "29 in all")
		other := signIn(t, env, apptest.OtherMerch)
		contains(t, "another merchant's list", other.open("/dashboard/payments").Body, "No payments yet.", "0 payments from")
	})
}

// TestPaymentPage: a sandbox scenario played from the page moves the
// payment; its page shows the status timeline from the event log, its
// notifications with their attempts; a notification redelivered from the
// page reaches the merchant again.
func TestPaymentPage(t *testing.T) {
	t.Parallel()
	apptest.Each(t, func(t *testing.T, env *apptest.Env) {
		rc := apptest.NewReceiver(t)
		env.SetNotificationURL(t, apptest.Merchant, rc.URL)
		token := env.Token(t, apptest.Merchant)
		id := createPayment(t, env, token, "order-77", nil, nil)
		c := signIn(t, env, apptest.Merchant)
		p := c.open("/dashboard/payments/" + id)
		contains(t, "new payment", p.Body, "Payment order-77", "10.50 EUR", "Anna Müller", "Test Shop GmbH", "internal-order-77",
			`value="COMPLETED"`, "No notification yet.")
		env.Clock.Advance(time.Minute)
		loc := c.act("/dashboard/payments/"+id+"/authorise", url.Values{"outcome": {"COMPLETED"}})
		if loc != "/dashboard/payments/"+id+"?done=authorised" {
			t.Fatalf("after the scenario: %q", loc)
		}
		rc.WaitFor(t, 2) // PENDING (BANK_REDIRECT), COMPLETED
		var body string
		waitFor(t, "the attempts on the page", func() bool {
			body = c.open(loc).Body
			return strings.Count(body, "204 delivered") == 2
		})
		contains(t, "completed payment", body, "The scenario was played.")
		timeline := body[strings.Index(body, `<ol class="timeline">`):]
		timeline = timeline[:strings.Index(timeline, "</ol>")]
		var got []string
		for _, m := range regexp.MustCompile(`<span class="status \w+">(\w+)</span>`).FindAllStringSubmatch(timeline, -1) {
			got = append(got, m[1])
		}
		if strings.Join(got, ">") != "NEW_PAYMENT>BANK_REDIRECT>AUTHORISED_BY_USER>COMPLETED" {
			t.Fatalf("timeline %v", got)
		}
		contains(t, "timeline", timeline, "2026-06-01 09:00:00 UTC", "2026-06-01 09:01:00 UTC")
		lacks(t, "a finished payment", body, `value="COMPLETED"`)

		n := regexp.MustCompile(`/dashboard/notifications/([0-9a-f-]{36})/redeliver`).FindStringSubmatch(body)
		if n == nil {
			t.Fatal("no redeliver button")
		}
		loc = c.act("/dashboard/notifications/"+n[1]+"/redeliver", url.Values{"back": {"/dashboard/payments/" + id}})
		if loc != "/dashboard/payments/"+id+"?done=redeliver" {
			t.Fatalf("after redelivery: %q", loc)
		}
		rc.WaitFor(t, 3)
		detail := c.open("/dashboard/notifications/" + n[1])
		contains(t, "notification page", detail.Body, `&#34;payment&#34;:&#34;`+id+`&#34;`, "Attempts")
		waitFor(t, "the second attempt", func() bool { return strings.Count(c.open("/dashboard/notifications/"+n[1]).Body, "204 delivered") == 2 })
		// back never leads elsewhere.
		if loc := c.act("/dashboard/notifications/"+n[1]+"/redeliver", url.Values{"back": {"https://evil.test/"}}); loc != "/dashboard/notifications/"+n[1]+"?done=redeliver" {
			t.Fatalf("redeliver back to %q", loc)
		}
		list := c.open("/dashboard/notifications?status=DELIVERED")
		contains(t, "notifications list", list.Body, "gateway", `href="/dashboard/payments/`+id+`"`)
		if actions := strings.Join(auditActions(t, env, apptest.ShopID), "|"); !strings.Contains(actions,
			"POST /dashboard/payments/{id}/authorise|POST /dashboard/notifications/{id}/redeliver") {
			t.Fatalf("audit log %s", actions)
		}
	})
}

// TestRefundFromThePage: a Connect payment's page offers the refund of
// what is left; an amount in the currency's decimals is refunded, a
// resubmitted form is the same refund, a wrong amount is explained.
func TestRefundFromThePage(t *testing.T) {
	t.Parallel()
	apptest.Each(t, func(t *testing.T, env *apptest.Env) {
		c, id, _, key := refundablePayment(t, env, "connect-1")
		for _, bad := range []string{"3.001", "abc", "-1"} {
			p := c.post("/dashboard/payments/"+id+"/refund", url.Values{"amount": {bad}, "key": {key}})
			if p.Status != http.StatusUnprocessableEntity {
				t.Fatalf("amount %q: %d", bad, p.Status)
			}
			contains(t, "refused refund", p.Body, `role="alert"`, `value="`+bad+`"`)
		}
		p := c.post("/dashboard/payments/"+id+"/refund", url.Values{"amount": {"20.00"}, "key": {key}})
		if p.Status != http.StatusUnprocessableEntity {
			t.Fatalf("more than the payment: %d", p.Status)
		}
		contains(t, "too high", p.Body, "amount")
		for range 2 { // the same form twice: one refund
			c.act("/dashboard/payments/"+id+"/refund", url.Values{"amount": {"3.00"}, "reference": {"RMA-9"}, "key": {key}})
		}
		page := c.open("/dashboard/payments/" + id + "?done=refund")
		contains(t, "refunded payment", page.Body, "Refund requested.", "3.00 EUR", "RMA-9")
		if n := strings.Count(page.Body, "RMA-9</td>"); n != 1 {
			t.Fatalf("%d refunds listed, want 1", n)
		}
	})
}

// TestPayoutsPage: a payout held by a close match waits on the page;
// approved there it goes on, another rejected is REJECTED.
func TestPayoutsPage(t *testing.T) {
	t.Parallel()
	apptest.Each(t, func(t *testing.T, env *apptest.Env) {
		acct := openAccount(t, env, apptest.ShopID, "EUR", "payouts")
		credit(t, env, acct, 100_000, env.Clock.Now())
		token := env.Token(t, apptest.Merchant)
		first := heldPayout(t, env, token, acct, 1200, "Jane Doe")
		second := heldPayout(t, env, token, acct, 1300, "John Roe")
		c := signIn(t, env, apptest.Merchant)
		p := c.open("/dashboard/payouts")
		contains(t, "payouts page", p.Body, "12.00 EUR to Jane Doe", "13.00 EUR to John Roe", "CLOSE_MATCH", "J. Doe")
		v := regexp.MustCompile(`/dashboard/verifications/([0-9a-f-]{36})/approve`).FindAllStringSubmatch(p.Body, -1)
		if len(v) != 2 {
			t.Fatalf("approve buttons %v", v)
		}
		// Newest first: the second payout's verification is the first.
		if loc := c.act("/dashboard/verifications/"+v[1][1]+"/approve", nil); loc != "/dashboard/payouts?done=approved" {
			t.Fatalf("approve: %q", loc)
		}
		if loc := c.act("/dashboard/verifications/"+v[0][1]+"/reject", nil); loc != "/dashboard/payouts?done=rejected" {
			t.Fatalf("reject: %q", loc)
		}
		if s := payoutStatus(t, env, token, first); s != "COMPLETED" {
			t.Fatalf("approved payout %s", s)
		}
		if s := payoutStatus(t, env, token, second); s != "REJECTED" {
			t.Fatalf("rejected payout %s", s)
		}
		after := c.open("/dashboard/payouts?done=rejected")
		contains(t, "after the decisions", after.Body, "Nothing waits for a decision.", "Payout rejected")
		// A second decision is explained, not made.
		p = c.post("/dashboard/verifications/"+v[1][1]+"/reject", nil)
		if p.Status != http.StatusConflict {
			t.Fatalf("decided twice: %d", p.Status)
		}
		contains(t, "second decision", p.Body, `role="alert"`)
	})
}

// csvLink finds the download links of the reports page.
var csvLink = regexp.MustCompile(`href="(/dashboard/reports/[0-9a-f-]{36}/download)"`)

// TestReportsPage: a report requested with the form appears with its
// status and, once generated, downloads as CSV; the audit log report lists
// the console's sign-in and changes.
func TestReportsPage(t *testing.T) {
	t.Parallel()
	apptest.Each(t, func(t *testing.T, env *apptest.Env) {
		token := env.Token(t, apptest.Merchant)
		id := createPayment(t, env, token, "for-report", nil, nil)
		c := signIn(t, env, apptest.Merchant)
		form := c.open("/dashboard/reports")
		contains(t, "reports page", form.Body, `name="start" type="date" required value="2026-05-02"`, `value="2026-06-01"`)
		p := c.post("/dashboard/reports", url.Values{"type": {"PAYMENTS"}, "start": {"2026-06-01"}, "end": {"2026-06-01"}, "allowEmpty": {"on"}})
		if p.Status != http.StatusSeeOther || p.Location != "/dashboard/reports?done=report" {
			t.Fatalf("request: %d %q\n%s", p.Status, p.Location, p.Body)
		}
		var link []string
		waitFor(t, "the report", func() bool {
			link = csvLink.FindStringSubmatch(c.open("/dashboard/reports").Body)
			return link != nil
		})
		file := c.get(link[1])
		if file.Status != http.StatusOK || file.Header.Get("Content-Type") != "text/csv; charset=utf-8" ||
			!strings.HasPrefix(file.Header.Get("Content-Disposition"), `attachment; filename="payments-`) {
			t.Fatalf("download: %d %v", file.Status, file.Header)
		}
		rows, err := csv.NewReader(strings.NewReader(file.Body)).ReadAll()
		if err != nil || len(rows) != 2 || !strings.Contains(file.Body, id) {
			t.Fatalf("file %v %q", err, file.Body)
		}

		for _, bad := range []url.Values{
			{"type": {"PAYMENTS"}, "start": {"2026-06-01"}, "end": {"not a date"}},
			{"type": {"PAYMENTS"}, "start": {"2026-01-01"}, "end": {"2026-06-01"}},
			{"type": {"NOPE"}, "start": {"2026-06-01"}, "end": {"2026-06-01"}},
			{"type": {"PAYMENTS"}, "start": {"2025-06-01"}, "end": {"2025-06-02"}}, // nothing then, allowEmpty off
			{"type": {"CONNECT"}, "start": {"2026-06-01"}, "end": {"2026-06-01"}, "account": {""}},
		} {
			p := c.post("/dashboard/reports", bad)
			if p.Status != http.StatusUnprocessableEntity {
				t.Fatalf("%v: %d", bad, p.Status)
			}
			contains(t, "refused report", p.Body, `role="alert"`)
		}

		c.act("/dashboard/reports", url.Values{"type": {"AUDIT_LOG"}, "start": {"2026-06-01"}, "end": {"2026-06-01"}})
		var link2 []string
		waitFor(t, "the audit report", func() bool {
			for _, row := range strings.Split(c.open("/dashboard/reports").Body, "<tr>") {
				if strings.Contains(row, "AUDIT_LOG <code>") {
					link2 = csvLink.FindStringSubmatch(row)
				}
			}
			return link2 != nil
		})
		audit := c.get(link2[1])
		contains(t, "audit log", audit.Body, "dashboard.sign_in,", "POST /dashboard/reports,")
	})
}

// TestClockPage: the sandbox clock moves by a quick button or by an amount
// typed, refuses a wrong amount, and resets; production has no clock page.
func TestClockPage(t *testing.T) {
	t.Parallel()
	apptest.Each(t, func(t *testing.T, env *apptest.Env) {
		c := signIn(t, env, apptest.Merchant)
		p := c.open("/dashboard/clock")
		contains(t, "clock page", p.Body, "2026-06-01 09:00:00 UTC", "at the wall clock", "Test PSP")
		c.act("/dashboard/clock/advance", url.Values{"seconds": {"86400"}})
		c.act("/dashboard/clock/advance", url.Values{"amount": {"2"}, "unit": {"hours"}})
		p = c.open("/dashboard/clock?done=advanced")
		contains(t, "advanced clock", p.Body, "2026-06-02 11:00:00 UTC", "1 day 2h0m0s ahead of the wall clock", "The sandbox clock moved forward.")
		for _, bad := range []url.Values{{"amount": {"0"}, "unit": {"hours"}}, {"amount": {"x"}, "unit": {"days"}},
			{"amount": {"1"}, "unit": {"years"}}, {"amount": {"401"}, "unit": {"days"}}} {
			if p := c.post("/dashboard/clock/advance", bad); p.Status != http.StatusUnprocessableEntity {
				t.Fatalf("%v: %d", bad, p.Status)
			}
		}
		// The PSP's merchant shares the PSP's clock.
		contains(t, "the PSP's clock", signIn(t, env, apptest.PSPAdmin).open("/dashboard/clock").Body, "2026-06-02 11:00:00 UTC")
		c.act("/dashboard/clock/reset", nil)
		contains(t, "reset clock", c.open("/dashboard/clock").Body, "2026-06-01 09:00:00 UTC", "at the wall clock")
	})
}

// TestAccountsPage: the Connect accounts with their balances; an
// account's page with its transactions and its balance over time.
func TestAccountsPage(t *testing.T) {
	t.Parallel()
	apptest.Each(t, func(t *testing.T, env *apptest.Env) {
		acct := openAccount(t, env, apptest.ShopID, "EUR", "Main EUR")
		credit(t, env, acct, 100_000, env.Clock.Now())
		env.Clock.Advance(time.Hour)
		credit(t, env, acct, 2_550, env.Clock.Now())
		openAccount(t, env, apptest.OtherShopID, "EUR", "Theirs")
		c := signIn(t, env, apptest.Merchant)
		list := c.open("/dashboard/accounts")
		contains(t, "accounts", list.Body, "Main EUR", "1025.50 EUR", acct.IBAN)
		lacks(t, "accounts", list.Body, "Theirs")
		p := c.open("/dashboard/accounts/" + acct.ID)
		contains(t, "account", p.Body, "Available balance over time", "<polyline", "MANUAL_CREDIT", "25.50 EUR", "Anna Payer",
			"now 1025.50 EUR")
		if p := c.get("/dashboard/accounts/" + openAccount(t, env, apptest.OtherShopID, "EUR", "Theirs").ID); p.Status != http.StatusNotFound {
			t.Fatalf("another merchant's account: %d", p.Status)
		}
	})
}

// TestInboxPage: the sandbox inbox shows what it received with the verdict
// on each signature.
func TestInboxPage(t *testing.T) {
	t.Parallel()
	apptest.Each(t, func(t *testing.T, env *apptest.Env) {
		env.SetNotificationURL(t, apptest.Merchant, env.URL+"/sandbox/inbox/"+apptest.Merchant.ClientID)
		token := env.Token(t, apptest.Merchant)
		createPayment(t, env, token, "inbox-1", map[string]string{"X-Service-Testing-Scenario": "COMPLETED"}, nil)
		forged := env.Do(t, apptest.Request{Method: "POST", Path: "/sandbox/inbox/" + apptest.Merchant.ClientID, Body: `{"payment":"x"}`,
			Header: map[string]string{"X-Service-Signature": "t=1,v1=00", "X-Service-Notification-Id": "forged-1"}, SkipSpec: true})
		if forged.Status != http.StatusBadRequest {
			t.Fatalf("forged notification: %d", forged.Status)
		}
		c := signIn(t, env, apptest.Merchant)
		var body string
		waitFor(t, "the inbox", func() bool {
			body = c.open("/dashboard/inbox").Body
			return strings.Count(body, "Signature valid") >= 2
		})
		contains(t, "inbox", body, "Signature invalid", "COMPLETED", "for shop-client")
	})
}

// TestReadOnlyRole: a READ_ONLY user reads every page but sees no action,
// not even the clock.
func TestReadOnlyRole(t *testing.T) {
	t.Parallel()
	apptest.Each(t, func(t *testing.T, env *apptest.Env) {
		rc := apptest.NewReceiver(t)
		env.SetNotificationURL(t, apptest.Merchant, rc.URL)
		acct := openAccount(t, env, apptest.ShopID, "EUR", "main")
		credit(t, env, acct, 10_000, env.Clock.Now())
		token := env.Token(t, apptest.Merchant)
		heldPayout(t, env, token, acct, 1000, "Jane Doe")
		id := createPayment(t, env, token, "ro-1", map[string]string{"X-Service-Testing-Scenario": "COMPLETED"},
			func(b map[string]any) { delete(b, "beneficiary") })
		rc.WaitFor(t, 1)
		c := signIn(t, env, apptest.Viewer)
		var p page
		waitFor(t, "the notifications", func() bool {
			p = c.open("/dashboard/payments/" + id)
			return strings.Contains(p.Body, "delivered")
		})
		contains(t, "read-only payment page", p.Body, "Status timeline", "Notifications", "Refunds")
		for path, body := range map[string]string{"/dashboard/payments/" + id: p.Body, "/dashboard/payouts": c.open("/dashboard/payouts").Body,
			"/dashboard/notifications": c.open("/dashboard/notifications").Body, "/dashboard/reports": c.open("/dashboard/reports").Body} {
			lacks(t, path, mainOf(body), `method="post"`, "Redeliver", "Approve", "Request a refund", "Request report", "outcome")
		}
		lacks(t, "navigation", p.Body, `href="/dashboard/clock"`)
		if p := c.get("/dashboard/clock"); p.Status != http.StatusForbidden {
			t.Fatalf("clock page of READ_ONLY: %d", p.Status)
		}
	})
}
