package checkout_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/bankrail/bankrail/internal/apptest"
	"github.com/bankrail/bankrail/internal/checkout"
	"github.com/bankrail/bankrail/internal/payment"
	"github.com/bankrail/bankrail/notification"
)

func TestBankPicker(t *testing.T) {
	t.Parallel()
	apptest.Each(t, func(t *testing.T, env *apptest.Env) {
		token := env.Token(t, apptest.Merchant)
		p := env.CreatePayment(t, token, "hosted", apptest.EUPayment(), nil)
		pr := newPayer(t, env)
		pg, at := pr.follow(p.RedirectURL()) // the short link leads to the picker
		pg.must(t, http.StatusOK, `<meta name="viewport"`, "Choose your bank", "€10.50", "Test Shop GmbH", "Order 42",
			"Items", "2 books", "Rheinische Volksbank", "Donau Bank", `<label for="q">`)
		if at != p.DirectURL() || strings.Contains(pg.Body, "Banque de la Loire") || strings.Contains(pg.Body, "Thames") {
			t.Fatalf("picker at %s shows banks outside DE and AT:\n%s", at, pg.Body)
		}
		tok := tokenOf(t, p.DirectURL())
		search := func(q url.Values) page {
			q.Set("token", tok)
			return pr.get("/checkout/" + p.ID + "?" + q.Encode())
		}
		for _, tt := range []struct {
			query    url.Values
			has, not []string
		}{
			{url.Values{"q": {"isar"}}, []string{"Isar Sparkasse"}, []string{"Rheinische", "Donau"}},
			{url.Values{"q": {"KOLN"}}, []string{"Rheinische Volksbank"}, []string{"Isar"}}, // accents and case do not matter
			{url.Values{"country": {"AT"}}, []string{"Donau Bank", "Salzach"}, []string{"Isar"}},
			{url.Values{"country": {"FR"}}, []string{"Isar", "Donau"}, nil}, // a country the merchant did not allow is ignored
			{url.Values{"q": {"nowhere bank"}}, []string{"No bank matches"}, []string{"Isar"}},
		} {
			pg := search(tt.query)
			pg.must(t, http.StatusOK, tt.has...)
			for _, s := range tt.not {
				if strings.Contains(pg.Body, s) {
					t.Errorf("search %v shows %s", tt.query, s)
				}
			}
		}
		pr.get("/checkout/"+p.ID+"?token=wrong").must(t, http.StatusNotFound, "This payment link is not valid")
		pr.get("/checkout/not-a-uuid?token="+tok).must(t, http.StatusNotFound)
		pr.get("/checkout/static/checkout.css").must(t, http.StatusOK, ":focus-visible")
	}, apptest.ServedAtPublicURL)
}

// The payer picks a bank, confirms, approves at the mock bank and lands on
// the merchant's success URL with its query string and the signed outcome.
func TestHostedCheckoutToSuccessURL(t *testing.T) {
	t.Parallel()
	apptest.Each(t, func(t *testing.T, env *apptest.Env) {
		token := env.Token(t, apptest.Merchant)
		body := with(apptest.EUPayment(), "communication", map[string]any{"return": map[string]any{
			"queryString": "order=42&lang=de", "urls": map[string]any{"success": map[string]any{"url": "https://shop.example/ok?from=bank"},
				"unified": map[string]any{"url": "https://shop.example/back"}}}})
		p := env.CreatePayment(t, token, "hosted", body, nil)
		tok := tokenOf(t, p.DirectURL())
		pr := newPayer(t, env)
		confirm := pr.get("/checkout/" + p.ID + "/confirm?" + url.Values{"token": {tok}, "bank": {apptest.BankAT}}.Encode())
		confirm.must(t, http.StatusOK, "Confirm your payment", "Continue to Donau Bank", "€10.50", "Choose another bank")
		pr.get("/checkout/"+p.ID+"/confirm?"+url.Values{"token": {tok}, "bank": {apptest.BankGB}}.Encode()).must(t, http.StatusNotFound)

		toBank := pr.post("/checkout/"+p.ID+"/confirm", url.Values{"token": {tok}, "bank": {apptest.BankAT}})
		if toBank.Status != http.StatusSeeOther || !strings.HasPrefix(toBank.Location, env.URL+"/mock-banks/"+apptest.BankAT+"/authorise/"+p.ID) {
			t.Fatalf("confirm: %d %s", toBank.Status, toBank.Location)
		}
		if st := statusOf(t, env, p.ID); st != payment.StatusBankRedirect {
			t.Fatalf("after confirm: %s", st)
		}
		bankPage := pr.get(toBank.Location)
		bankPage.must(t, http.StatusOK, "Donau Bank", "Authorise a payment", "Approve the payment", "ANNA MÜLLER", `<label for="holder">`)

		done := pr.post(toBank.Location, url.Values{"token": {tok}, "outcome": {"COMPLETED"}, "holder": {"Anna Mueller"}})
		u, err := url.Parse(done.Location)
		if done.Status != http.StatusSeeOther || err != nil || u.Host != "shop.example" || u.Path != "/ok" {
			t.Fatalf("after approval: %d %s", done.Status, done.Location)
		}
		q := u.Query()
		if q.Get("from") != "bank" || q.Get("order") != "42" || q.Get("lang") != "de" {
			t.Fatalf("query string lost: %s", done.Location)
		}
		r, err := notification.VerifyReturn(apptest.NotificationSecrets["shop-client"], q, time.Minute, env.App.Clock().Now())
		if err != nil || r.PaymentID != p.ID || r.Status != "COMPLETED" || r.DetailedStatus != "COMPLETED" {
			t.Fatalf("signed outcome %+v: %v", r, err)
		}
		if st := statusOf(t, env, p.ID); st != payment.StatusCompleted {
			t.Fatalf("after approval: %s", st)
		}
		// Coming back to the link sends the payer to the merchant again.
		again := pr.get(p.DirectURL())
		if again.Status != http.StatusSeeOther || !strings.HasPrefix(again.Location, "https://shop.example/ok") {
			t.Fatalf("link after the end: %d %s", again.Status, again.Location)
		}
		// A second answer is refused.
		pr.post(toBank.Location, url.Values{"token": {tok}, "outcome": {"CANCELLED_BY_USER"}}).must(t, http.StatusSeeOther)
		if st := statusOf(t, env, p.ID); st != payment.StatusCompleted {
			t.Fatalf("after a second answer: %s", st)
		}
	}, apptest.ServedAtPublicURL)
}

// Each outcome of the bank page goes to its return URL, or the unified one;
// without return URLs the payer sees a final page, which in the sandbox
// links the inbox and the dashboard.
func TestReturnURLs(t *testing.T) {
	t.Parallel()
	apptest.Each(t, func(t *testing.T, env *apptest.Env) {
		token := env.Token(t, apptest.Merchant)
		all := map[string]any{"success": map[string]any{"url": "https://shop.example/ok"}, "failure": map[string]any{"url": "https://shop.example/ko"},
			"pending": map[string]any{"url": "https://shop.example/wait"}, "cancel": map[string]any{"url": "https://shop.example/cancel"}}
		unified := map[string]any{"unified": map[string]any{"url": "https://shop.example/back"}}
		for _, tt := range []struct {
			outcome string
			urls    map[string]any
			want    string // path at shop.example, or the final page's heading
			status  string
		}{
			{"COMPLETED", all, "/ok", "COMPLETED"},
			{"REFUSED_BY_BANK", all, "/ko", "FAILED"},
			{"ERROR_AT_BANK", all, "/ko", "FAILED"},
			{"CANCELLED_BY_USER", all, "/cancel", "FAILED"},
			{"DELAYED_AT_BANK>COMPLETED", all, "/wait", "PENDING"},
			{"CANCELLED_BY_USER", unified, "/back", "FAILED"},
			{"COMPLETED", nil, "Payment complete", ""},
			{"DELAYED_AT_BANK>REFUSED_BY_BANK", nil, "Payment pending", ""},
			{"REFUSED_BY_BANK", nil, "Payment refused", ""},
			{"CANCELLED_BY_USER", nil, "Payment cancelled", ""},
		} {
			body := with(apptest.EUPayment(), "openBankingEU", map[string]any{"institutionId": apptest.BankDE})
			if tt.urls != nil {
				body["communication"] = map[string]any{"return": map[string]any{"urls": tt.urls}}
			}
			p := env.CreatePayment(t, token, "api", body, nil)
			pr := newPayer(t, env)
			pr.get(p.RedirectURL()).must(t, http.StatusFound)
			pr.get(p.DirectURL()).must(t, http.StatusOK, "Rheinische Volksbank")
			if st := statusOf(t, env, p.ID); st != payment.StatusBankRedirect {
				t.Fatalf("api channel at the bank: %s", st)
			}
			done := pr.post(p.DirectURL(), url.Values{"token": {tokenOf(t, p.DirectURL())}, "outcome": {tt.outcome}})
			if done.Status != http.StatusSeeOther {
				t.Fatalf("%s: %d %s", tt.outcome, done.Status, done.Body)
			}
			if tt.status == "" { // the sandbox's final page: where the developer sees what followed
				pr.get(done.Location).must(t, http.StatusOK, tt.want, `href="/dashboard/inbox"`, `href="/dashboard/"`)
				continue
			}
			u, _ := url.Parse(done.Location)
			if u == nil || u.Path != tt.want || u.Query().Get("paymentStatus") != tt.status {
				t.Errorf("%s with %v: went to %s, want %s (%s)", tt.outcome, tt.urls, done.Location, tt.want, tt.status)
			}
		}
	}, apptest.ServedAtPublicURL)
}

// The merchant's bank skips the picker; another bank is refused.
func TestInstitutionGivenSkipsThePicker(t *testing.T) {
	t.Parallel()
	apptest.Each(t, func(t *testing.T, env *apptest.Env) {
		token := env.Token(t, apptest.Merchant)
		body := with(apptest.EUPayment(), "openBankingEU", map[string]any{"institutionId": apptest.BankDE})
		p := env.CreatePayment(t, token, "hosted", body, nil)
		pr := newPayer(t, env)
		pg := pr.get(p.DirectURL())
		pg.must(t, http.StatusOK, "Confirm your payment", "Continue to Rheinische Volksbank")
		if strings.Contains(pg.Body, "Choose another bank") {
			t.Fatal("the payer may change the bank the merchant chose")
		}
		tok := tokenOf(t, p.DirectURL())
		pr.post("/checkout/"+p.ID+"/confirm", url.Values{"token": {tok}, "bank": {apptest.BankAT}}).must(t, http.StatusConflict)
		pr.get("/mock-banks/"+apptest.BankAT+"/authorise/"+p.ID+"?token="+tok).must(t, http.StatusNotFound, "not at this bank")
		pr.post("/checkout/"+p.ID+"/confirm", url.Values{"token": {tok}, "bank": {apptest.BankDE}}).must(t, http.StatusSeeOther)
	}, apptest.ServedAtPublicURL)
}

func TestCheckoutRefusals(t *testing.T) {
	t.Parallel()
	apptest.Each(t, func(t *testing.T, env *apptest.Env) {
		token := env.Token(t, apptest.Merchant)
		p := env.CreatePayment(t, token, "hosted", apptest.EUPayment(), nil)
		tok := tokenOf(t, p.DirectURL())
		pr := newPayer(t, env)
		form := url.Values{"token": {tok}, "bank": {apptest.BankDE}}

		// A form posted from another site is refused, the token notwithstanding.
		req, _ := http.NewRequest(http.MethodPost, env.URL+"/checkout/"+p.ID+"/confirm", strings.NewReader(form.Encode()))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.Header.Set("Origin", "https://evil.example")
		pr.do(req).must(t, http.StatusForbidden)
		// Without the token nothing happens.
		pr.post("/checkout/"+p.ID+"/confirm", url.Values{"bank": {apptest.BankDE}}).must(t, http.StatusNotFound)
		pr.post("/mock-banks/"+apptest.BankDE+"/authorise/"+p.ID, url.Values{"token": {"nope"}, "outcome": {"COMPLETED"}}).must(t, http.StatusNotFound)
		if st := statusOf(t, env, p.ID); st != payment.StatusNew {
			t.Fatalf("moved to %s", st)
		}
		pr.post("/mock-banks/"+apptest.BankDE+"/authorise/"+p.ID, url.Values{"token": {tok}, "outcome": {"PAID"}}).must(t, http.StatusBadRequest)
		pr.get("/checkout/nothing/here").must(t, http.StatusNotFound, "This page does not exist")

		// 30 minutes later the payer finds the payment expired.
		env.Clock.Advance(payment.AbandonAfter)
		pg, _ := pr.follow(p.DirectURL())
		pg.must(t, http.StatusOK, "Payment expired")
		if st := statusOf(t, env, p.ID); st != payment.StatusAbandonedByUser {
			t.Fatalf("status %s", st)
		}
	}, apptest.ServedAtPublicURL)
}

// Production serves the checkout but no mock bank: the api channel's
// directUrl leads to the bank's connector, or without one to the final page
// (TestProductionBankWithoutConnector), and nobody can answer for a bank.
func TestProductionHasNoMockBanks(t *testing.T) {
	t.Parallel()
	env := apptest.New(t, apptest.Production, apptest.ServedAtPublicURL)
	token := env.Token(t, apptest.Merchant)
	p := env.CreatePayment(t, token, "api", with(apptest.EUPayment(), "openBankingEU", map[string]any{"institutionId": apptest.BankDE}), nil)
	pr := newPayer(t, env)
	tok := tokenOf(t, p.DirectURL())
	pr.post("/mock-banks/"+apptest.BankDE+"/authorise/"+p.ID, url.Values{"token": {tok}, "outcome": {"COMPLETED"}}).must(t, http.StatusNotFound)
	atBank := pr.get(p.DirectURL())
	if atBank.Status != http.StatusSeeOther || !strings.HasPrefix(atBank.Location, "/checkout/"+p.ID+"/done?") || strings.Contains(atBank.Body, "Approve") {
		t.Fatalf("the api channel's link in production: %d to %q", atBank.Status, atBank.Location)
	}
	q := env.CreatePayment(t, token, "hosted", apptest.EUPayment(), nil)
	pr.get(q.DirectURL()).must(t, http.StatusOK, "Choose your bank")
	if strings.Contains(pr.get(q.DirectURL()).Body, "Sandbox") {
		t.Fatal("production pages say sandbox")
	}
}

func TestFormatAmount(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		minor    int64
		currency string
		want     string
	}{
		{1050, "EUR", "€10.50"}, {5, "EUR", "€0.05"}, {123456789, "GBP", "£1,234,567.89"}, {1250, "CHF", "CHF 12.50"},
		{1000, "JPY", "JPY 1,000"}, {1234, "BHD", "BHD 1.234"}, {-250, "EUR", "-€2.50"},
	} {
		if got := checkout.FormatAmount(tt.minor, tt.currency); got != tt.want {
			t.Errorf("FormatAmount(%d, %s) = %q, want %q", tt.minor, tt.currency, got, tt.want)
		}
	}
}
