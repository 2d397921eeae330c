package httpapi_test

import (
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/bankrail/bankrail/internal/apptest"
	"github.com/bankrail/bankrail/internal/config"
)

// details is the part of the payment details record the tests read.
type details struct {
	ID         string `json:"id"`
	Active     bool   `json:"active"`
	CreatedAt  string `json:"createdAt"`
	CustomerID string `json:"customerId"`
	Currency   struct {
		ID      string `json:"id"`
		Name    string `json:"name"`
		Decimal int    `json:"decimal"`
		Active  bool   `json:"active"`
	} `json:"currency"`
	Amount  int64  `json:"amount"`
	Type    string `json:"type"`
	Account struct {
		ID, Nickname, IBAN, SwiftBic, AccountNumber, Bankname string
		Country                                               *struct{ ID, Name string }
	} `json:"account"`
	UniqueReference string `json:"uniqueReference"`
	Bank            *struct {
		ID, Name, Logo string
		Country        struct{ ID, Name string }
	} `json:"bank"`
	Status        string `json:"status"`
	StatusUpdates []struct {
		CreatedAt string `json:"createdAt"`
		NewStatus string `json:"newStatus"`
	} `json:"statusUpdates"`
	Beneficiary struct {
		ID                     string `json:"id"`
		CustomerID             string `json:"customerId"`
		AccountIdentifications []struct{ Type, Value string }
		Country                *struct{ ID, Name string }
	} `json:"beneficiary"`
	TransferType string `json:"transferType"`
	Sender       struct {
		Name              *string `json:"name"`
		Email             string  `json:"email"`
		IP                string  `json:"ip"`
		DeviceFingerprint string  `json:"deviceFingerprint"`
	} `json:"sender"`
	RefundAvailable          bool   `json:"refundAvailable"`
	RefundNotAvailableReason string `json:"refundNotAvailableReason"`
	RefundNotAvailableCode   string `json:"refundNotAvailableCode"`
}

func getDetails(t testing.TB, env *apptest.Env, token, id string) details {
	t.Helper()
	resp := env.Do(t, apptest.Request{Method: "GET", Path: "/payments/" + id, Token: token})
	if resp.Status != http.StatusOK {
		t.Fatalf("GET /payments/%s: %d %s", id, resp.Status, resp.Body)
	}
	var d details
	resp.JSON(t, &d)
	return d
}

// noRedirects is a client that shows redirects instead of following them.
func noRedirects(env *apptest.Env) *http.Client {
	c := *env.Server.Client()
	c.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	return &c
}

func TestCreateAndReadPayment(t *testing.T) {
	t.Parallel()
	apptest.Each(t, func(t *testing.T, env *apptest.Env) {
		token := env.Token(t, apptest.Merchant)

		t.Run("hosted EU payment", func(t *testing.T) {
			resp := postPayment(t, env, token, euBody(), nil)
			if resp.Status != http.StatusCreated {
				t.Fatalf("POST /payments: %d %s", resp.Status, resp.Body)
			}
			var rec record
			resp.JSON(t, &rec)
			if resp.Header.Get("Location") != "/payments/"+rec.ID || resp.Header.Get("Idempotent-Replayed") != "" {
				t.Fatalf("headers %v", resp.Header)
			}
			if rec.Status != "NEW_PAYMENT" || rec.Currency != "EUR" || rec.Amount != 1050 || rec.PaymentReference != "Order 42" ||
				rec.InternalReference != "order-42" || rec.PaymentSystem != "OPEN_BANKING_EU" || rec.TransferType != "SEPA Instant Credit Transfer" {
				t.Fatalf("record %s", resp.Body)
			}
			if rec.OpenBankingEU == nil || rec.OpenBankingEU.Provider != "Rheinische Volksbank" || rec.OpenBankingEU.AccountIdentifiers.IBAN != "GB82WEST12345698765432" {
				t.Fatalf("openBankingEU %s", resp.Body)
			}
			flow := rec.PaymentInitiationFlow
			if flow.Status != "PROCESSING" || flow.Details.Reason != "AWAITING_USER_REDIRECT" {
				t.Fatalf("flow %+v", flow)
			}
			if !strings.HasPrefix(flow.Details.Redirect.URL, "http://bankrail.test/c/") || len(flow.Details.Redirect.URL) > 40 {
				t.Fatalf("short url %q", flow.Details.Redirect.URL)
			}
			if !strings.HasPrefix(flow.Details.Redirect.DirectURL, "http://bankrail.test/checkout/"+rec.ID+"?token=") {
				t.Fatalf("direct url %q", flow.Details.Redirect.DirectURL)
			}

			// The short link really redirects to the direct address.
			code := strings.TrimPrefix(flow.Details.Redirect.URL, "http://bankrail.test")
			req, _ := http.NewRequest("GET", env.URL+code, nil)
			hr, err := noRedirects(env).Do(req)
			if err != nil {
				t.Fatal(err)
			}
			hr.Body.Close()
			apptest.CheckAgainstSpec(t, req, &apptest.Response{Status: hr.StatusCode, Header: hr.Header})
			if hr.StatusCode != http.StatusFound || hr.Header.Get("Location") != flow.Details.Redirect.DirectURL {
				t.Fatalf("GET %s: %d Location %q", code, hr.StatusCode, hr.Header.Get("Location"))
			}

			d := getDetails(t, env, token, rec.ID)
			if d.ID != rec.ID || !d.Active || d.CreatedAt != rec.CreatedAt || d.CustomerID != apptest.ShopID || d.Amount != 1050 || d.Type != "GOODS" {
				t.Fatalf("details %+v", d)
			}
			if d.Currency.ID != "EUR" || d.Currency.Name != "Euro" || d.Currency.Decimal != 2 || !d.Currency.Active {
				t.Fatalf("currency %+v", d.Currency)
			}
			if d.Account.IBAN != ibanDE || d.Account.Nickname != "Test Shop GmbH" || d.Account.SwiftBic != "RHVBDEFF" ||
				d.Account.Bankname != "Rheinische Volksbank" || d.Account.Country == nil || d.Account.Country.Name != "Germany" {
				t.Fatalf("account %+v", d.Account)
			}
			if d.Bank == nil || d.Bank.ID != bankDE || d.Bank.Country.ID != "DE" || d.Bank.Logo != "http://bankrail.test/banks/"+bankDE+"/logo.svg" {
				t.Fatalf("bank %+v", d.Bank)
			}
			if d.Status != "NEW_PAYMENT" || len(d.StatusUpdates) != 1 || d.StatusUpdates[0].NewStatus != "NEW_PAYMENT" ||
				d.StatusUpdates[0].CreatedAt != rec.CreatedAt {
				t.Fatalf("status %s %+v", d.Status, d.StatusUpdates)
			}
			ids := d.Beneficiary.AccountIdentifications
			if d.Beneficiary.CustomerID != apptest.ShopID || len(ids) != 2 || ids[0].Type != "IBAN" || ids[0].Value != ibanDE ||
				ids[1].Type != "SWIFT_BIC" || d.Beneficiary.Country == nil || d.Beneficiary.Country.ID != "DE" {
				t.Fatalf("beneficiary %+v", d.Beneficiary)
			}
			if d.UniqueReference != "Order 42" || d.TransferType != "SEPA Instant Credit Transfer" {
				t.Fatalf("reference %q transfer %q", d.UniqueReference, d.TransferType)
			}
			if d.Sender.Name != nil || d.Sender.Email != "anna@example.com" || d.Sender.IP != "203.0.113.7" || d.Sender.DeviceFingerprint != "fp-1" {
				t.Fatalf("sender %+v", d.Sender)
			}
			if d.RefundAvailable || d.RefundNotAvailableCode != "NO_CONNECT_ACCOUNT" || d.RefundNotAvailableReason == "" {
				t.Fatalf("refund %v %q %q", d.RefundAvailable, d.RefundNotAvailableCode, d.RefundNotAvailableReason)
			}
			// The same beneficiary gets the same account id.
			again := getDetails(t, env, token, mustCreate(t, env, token, euBody(), nil).ID)
			if again.Account.ID != d.Account.ID || again.Beneficiary.ID != d.Beneficiary.ID || again.ID == d.ID {
				t.Fatalf("derived ids differ: %s/%s vs %s/%s", again.Account.ID, again.Beneficiary.ID, d.Account.ID, d.Beneficiary.ID)
			}
		})

		t.Run("api UK payment goes to the bank", func(t *testing.T) {
			rec := mustCreate(t, env, token, ukBody(), map[string]string{channelHeader: "api"})
			direct := rec.PaymentInitiationFlow.Details.Redirect.DirectURL
			if !strings.HasPrefix(direct, "http://bankrail.test/mock-banks/"+bankGB+"/authorise/"+rec.ID+"?token=") {
				t.Fatalf("direct url %q", direct)
			}
			if rec.TransferType != "Faster Payments" || rec.Beneficiary.AccountIdentifiers.SortCode != "404784" {
				t.Fatalf("record %+v", rec)
			}
			d := getDetails(t, env, token, rec.ID)
			// The contract's account has no sort code: the beneficiary's identifications carry it.
			ids := fmt.Sprint(d.Beneficiary.AccountIdentifications)
			if ids != "[{SORT_CODE 404784} {ACCOUNT_NUMBER 70872490}]" || d.Account.AccountNumber != "70872490" || d.Account.Country == nil ||
				d.Account.Country.ID != "GB" || d.Currency.Name != "Pound Sterling" || d.Type != "BILL" {
				t.Fatalf("details %+v", d)
			}
		})

		t.Run("hosted payment without bank and reference", func(t *testing.T) {
			body := with(euBody(), "paymentReference", nil)
			body["openBankingEU"] = map[string]any{}
			rec := mustCreate(t, env, token, body, nil)
			if !strings.HasPrefix(rec.PaymentReference, "BR") || len(rec.PaymentReference) != 12 || rec.TransferType != "SEPA Credit Transfer" {
				t.Fatalf("record %+v", rec)
			}
			d := getDetails(t, env, token, rec.ID)
			if d.Bank != nil || d.UniqueReference != rec.PaymentReference || d.Type != "OTHER" {
				t.Fatalf("details %+v", d)
			}
		})

		t.Run("unknown short link", func(t *testing.T) {
			env.Do(t, apptest.Request{Method: "GET", Path: "/c/NOSUCHCODE"}).Error(t, http.StatusNotFound, "RESOURCE_NOT_FOUND")
		})
	})
}

func TestCreatePaymentRequestErrors(t *testing.T) {
	t.Parallel()
	env := apptest.New(t)
	token := env.Token(t, apptest.Merchant)
	tests := []struct {
		name    string
		token   string
		body    any
		headers map[string]string
		status  int
		code    string
	}{
		{"no token", "", euBody(), nil, 401, "UNAUTHORISED"},
		{"read-only role", env.Token(t, apptest.Viewer), euBody(), nil, 403, "ACCESS_DENIED"},
		{"api version missing", token, euBody(), map[string]string{"X-Service-Api-Version": ""}, 400, "MISSING_HTTP_HEADER"},
		{"api version 2", token, euBody(), map[string]string{"X-Service-Api-Version": "2"}, 400, "INVALID_HTTP_HEADER"},
		{"channel missing", token, euBody(), map[string]string{channelHeader: ""}, 400, "MISSING_HTTP_HEADER"},
		{"channel unknown", token, euBody(), map[string]string{channelHeader: "web"}, 400, "INVALID_HTTP_HEADER"},
		{"idempotency key too long", token, euBody(), map[string]string{"Idempotency-Key": strings.Repeat("k", 65)}, 400, "INVALID_HTTP_HEADER"},
		{"idempotency key blank", token, euBody(), map[string]string{"Idempotency-Key": " "}, 400, "INVALID_HTTP_HEADER"},
		{"malformed JSON", token, `{"currency": "EUR",`, nil, 400, "BAD_REQUEST"},
		{"not an object", token, `[1, 2]`, nil, 400, "BAD_REQUEST"},
		{"form body", token, "a=b", map[string]string{"Content-Type": "application/x-www-form-urlencoded"}, 415, "UNSUPPORTED_MEDIA_TYPE"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			postPayment(t, env, tt.token, tt.body, tt.headers).Error(t, tt.status, tt.code)
		})
	}
	t.Run("a key of 64 characters is fine", func(t *testing.T) {
		mustCreate(t, env, token, euBody(), map[string]string{"Idempotency-Key": strings.Repeat("k", 64)})
	})
	t.Run("wrong JSON type names the field", func(t *testing.T) {
		e := postPayment(t, env, token, with(euBody(), "amount", "10.50"), nil).Error(t, 422, "VALIDATION_FAILURE")
		if len(e.Errors) != 1 || e.Errors[0].Type != "INVALID_TYPE" || e.Errors[0].PropertyPath != "amount" {
			t.Fatalf("errors %+v", e.Errors)
		}
	})
	t.Run("api channel requires the bank", func(t *testing.T) {
		body := euBody()
		body["openBankingEU"] = map[string]any{"type": "GOODS"}
		e := postPayment(t, env, token, body, map[string]string{channelHeader: "api"}).Error(t, 422, "VALIDATION_FAILURE")
		if len(e.Errors) != 1 || e.Errors[0].Type != "VALUE_REQUIRED" || e.Errors[0].PropertyPath != "openBankingEU.institutionId" {
			t.Fatalf("errors %+v", e.Errors)
		}
	})
}

func TestCreatePaymentListsEveryFailingField(t *testing.T) {
	t.Parallel()
	// The maximum amount comes from the configuration, in major units; with
	// an unknown currency it is that of a currency with four decimals.
	env := apptest.New(t, func(c *config.Config) { c.MaxPaymentMajor = 50 })
	token := env.Token(t, apptest.Merchant)
	body := euBody()
	body["amount"] = 500_001
	body["currency"] = "XYZ"
	body["beneficiary"] = map[string]any{"name": "Shop", "accountIdentifiers": map[string]any{"iban": "DE" + strings.Repeat("0", 40)}}
	body["openBankingEU"] = map[string]any{"institutionId": bankGB}
	body["checkout"] = map[string]any{"hosted": map[string]any{"countries": map[string]any{"available": []string{"DE", "XX"}}}}
	body["communication"] = map[string]any{"notifications": map[string]any{"url": "not-a-url"}}
	e := postPayment(t, env, token, body, nil).Error(t, 422, "VALIDATION_FAILURE")
	var got []string
	for _, f := range e.Errors {
		got = append(got, f.Type+" "+f.PropertyPath)
	}
	want := []string{"INVALID_VALUE currency", "TOO_HIGH amount", "INVALID_VALUE openBankingEU.institutionId",
		"TOO_LONG beneficiary.accountIdentifiers.iban", "INVALID_FORMAT communication.notifications.url",
		"INVALID_VALUE checkout.hosted.countries.available[1]"}
	if !slices.Equal(got, want) {
		t.Fatalf("errors %q, want %q", got, want)
	}
	body = euBody()
	body["beneficiary"] = map[string]any{"name": "Shop", "accountIdentifiers": map[string]any{"iban": "DE89370400440532013001"}}
	e = postPayment(t, env, token, body, nil).Error(t, 422, "VALIDATION_FAILURE")
	if len(e.Errors) != 1 || e.Errors[0].Type != "CHECKSUM_FAILED" || e.Errors[0].PropertyPath != "beneficiary.accountIdentifiers.iban" {
		t.Fatalf("errors %+v", e.Errors)
	}
}

func TestPaymentVisibility(t *testing.T) {
	t.Parallel()
	apptest.Each(t, func(t *testing.T, env *apptest.Env) {
		shop := env.Token(t, apptest.Merchant)
		rec := mustCreate(t, env, shop, euBody(), nil)
		// The PSP above the shop sees it; the read-only user of the shop too.
		if d := getDetails(t, env, env.Token(t, apptest.PSPAdmin), rec.ID); d.CustomerID != apptest.ShopID {
			t.Fatalf("PSP read: %+v", d)
		}
		getDetails(t, env, env.Token(t, apptest.Viewer), rec.ID)
		// Another merchant gets 404, exactly as for a missing payment.
		other := env.Token(t, apptest.OtherMerch)
		foreign := env.Do(t, apptest.Request{Method: "GET", Path: "/payments/" + rec.ID, Token: other})
		foreign.Error(t, http.StatusNotFound, "RESOURCE_NOT_FOUND")
		missing := env.Do(t, apptest.Request{Method: "GET", Path: "/payments/00000000-0000-4000-8000-00000000dead", Token: other})
		missing.Error(t, http.StatusNotFound, "RESOURCE_NOT_FOUND")
		// The PSP's own payment is not visible to the shop below it.
		pspRec := mustCreate(t, env, env.Token(t, apptest.PSPAdmin), euBody(), nil)
		env.Do(t, apptest.Request{Method: "GET", Path: "/payments/" + pspRec.ID, Token: shop}).Error(t, http.StatusNotFound, "RESOURCE_NOT_FOUND")
		// Upper-case ids are the same payment.
		getDetails(t, env, shop, strings.ToUpper(rec.ID))
		for _, bad := range []string{"123", "not-a-uuid", "{" + rec.ID + "}", url.PathEscape(rec.ID + "x")} {
			env.Do(t, apptest.Request{Method: "GET", Path: "/payments/" + bad, Token: shop}).Error(t, http.StatusBadRequest, "MALFORMED_PATH_PARAM")
		}
		env.Do(t, apptest.Request{Method: "GET", Path: "/payments/" + rec.ID}).Error(t, http.StatusUnauthorized, "UNAUTHORISED")
	})
}

func TestListPayments(t *testing.T) {
	t.Parallel()
	apptest.Each(t, func(t *testing.T, env *apptest.Env) {
		shop := env.Token(t, apptest.Merchant)
		var ids []string
		start := env.Clock.Now()
		for i := 0; i < 5; i++ {
			body := euBody()
			body["internalReference"] = "batch-" + string(rune('a'+i))
			if i == 4 {
				body = ukBody()
				body["internalReference"] = "batch-uk"
			}
			ids = append(ids, mustCreate(t, env, shop, body, nil).ID)
			env.Clock.Advance(time.Minute)
		}
		list := func(token, query string) ([]details, http.Header) {
			t.Helper()
			resp := env.Do(t, apptest.Request{Method: "GET", Path: "/payments" + query, Token: token})
			if resp.Status != http.StatusOK {
				t.Fatalf("GET /payments%s: %d %s", query, resp.Status, resp.Body)
			}
			var out []details
			resp.JSON(t, &out)
			return out, resp.Header
		}
		idsOf := func(ds []details) []string {
			var out []string
			for _, d := range ds {
				out = append(out, d.ID)
			}
			return out
		}
		all, h := list(shop, "")
		if want := []string{ids[4], ids[3], ids[2], ids[1], ids[0]}; !slices.Equal(idsOf(all), want) {
			t.Fatalf("newest first: %v, want %v", idsOf(all), want)
		}
		if h.Get("page") != "1" || h.Get("limit") != "25" || h.Get("page-count") != "1" || h.Get("total-items") != "5" {
			t.Fatalf("paging headers %v", h)
		}
		page2, h := list(shop, "?page=2&limit=2")
		if !slices.Equal(idsOf(page2), []string{ids[2], ids[1]}) || h.Get("page-count") != "3" || h.Get("total-items") != "5" || h.Get("limit") != "2" {
			t.Fatalf("page 2: %v %v", idsOf(page2), h)
		}
		if past, _ := list(shop, "?page=9"); len(past) != 0 {
			t.Fatalf("past the end: %d items", len(past))
		}
		if got, _ := list(shop, "?currency=GBP"); !slices.Equal(idsOf(got), []string{ids[4]}) {
			t.Fatalf("currency filter: %v", idsOf(got))
		}
		if got, _ := list(shop, "?internalReference=batch-b"); !slices.Equal(idsOf(got), []string{ids[1]}) {
			t.Fatalf("internalReference filter: %v", idsOf(got))
		}
		if got, _ := list(shop, "?paymentReference=INV%207&status=NEW_PAYMENT"); !slices.Equal(idsOf(got), []string{ids[4]}) {
			t.Fatalf("paymentReference filter: %v", idsOf(got))
		}
		if got, _ := list(shop, "?status=COMPLETED"); len(got) != 0 {
			t.Fatalf("status filter: %v", idsOf(got))
		}
		from := url.QueryEscape(start.Add(time.Minute).Format(time.RFC3339))
		to := url.QueryEscape(start.Add(3 * time.Minute).Format(time.RFC3339))
		if got, _ := list(shop, "?createdAt[gte]="+from+"&createdAt[lte]="+to); !slices.Equal(idsOf(got), []string{ids[3], ids[2], ids[1]}) {
			t.Fatalf("createdAt range: %v", idsOf(got))
		}
		// The PSP sees its merchant's payments; another merchant sees none.
		if got, _ := list(env.Token(t, apptest.PSPAdmin), "?customerId="+apptest.ShopID); len(got) != 5 {
			t.Fatalf("PSP: %d payments", len(got))
		}
		if got, h := list(env.Token(t, apptest.OtherMerch), ""); len(got) != 0 || h.Get("total-items") != "0" || h.Get("page-count") != "0" {
			t.Fatalf("other merchant: %d payments, %v", len(got), h)
		}
		for _, q := range []string{"?limit=0", "?limit=101", "?page=0", "?page=x", "?status=PAID", "?currency=euro",
			"?createdAt[gte]=yesterday", "?createdAt[lte]=2026-13-01", "?customerId=shop"} {
			env.Do(t, apptest.Request{Method: "GET", Path: "/payments" + q, Token: shop}).Error(t, http.StatusBadRequest, "INVALID_QUERY_PARAM")
		}
	})
}

// TestProductionRefusesInternalNotificationURLs checks the production guard
// at creation: a notification URL that points inside the network is refused
// with the field named; the sandbox accepts it (local receivers are normal there).
func TestProductionRefusesInternalNotificationURLs(t *testing.T) {
	t.Parallel()
	withURL := func(u string) map[string]any {
		return with(euBody(), "communication", map[string]any{"notifications": map[string]any{"url": u}})
	}
	prod := apptest.New(t, apptest.Production)
	token := prod.Token(t, apptest.Merchant)
	for _, u := range []string{"http://127.0.0.1:9000/hook", "http://10.1.2.3/hook", "http://169.254.169.254/latest", "http://[::1]/hook", "http://localhost/hook"} {
		e := postPayment(t, prod, token, withURL(u), nil).Error(t, http.StatusUnprocessableEntity, "VALIDATION_FAILURE")
		if len(e.Errors) != 1 || e.Errors[0].PropertyPath != "communication.notifications.url" || e.Errors[0].Type != "INVALID_VALUE" {
			t.Fatalf("%s: errors %+v", u, e.Errors)
		}
	}
	if resp := postPayment(t, prod, token, withURL("https://203.0.113.10/hook"), nil); resp.Status != http.StatusCreated {
		t.Fatalf("public address refused in production: %d %s", resp.Status, resp.Body)
	}
	sandbox := apptest.New(t)
	if resp := postPayment(t, sandbox, sandbox.Token(t, apptest.Merchant), withURL("http://127.0.0.1:9000/hook"), nil); resp.Status != http.StatusCreated {
		t.Fatalf("sandbox must accept a local receiver: %d %s", resp.Status, resp.Body)
	}
}
