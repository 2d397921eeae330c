package httpapi_test

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/bankrail/bankrail/internal/apptest"
	"github.com/bankrail/bankrail/internal/legacy"
	"github.com/bankrail/bankrail/internal/payment"
)

const legacyPaymentsPath = "/legacy/payments"

// legacyBody is a legacy request with every field of the mapping table.
func legacyBody() map[string]any {
	return map[string]any{
		"currencyCode": "EUR", "amount": 1050, "type": "GOODS", "uniqueReference": "Order 42", "merchantInternalReference": "order-42",
		"payer":   map[string]any{"name": "Anna Müller", "ip": "203.0.113.7"},
		"shopper": map[string]any{"reference": "cust-1", "email": "anna@example.com", "firstName": "Anna", "lastName": "Müller", "documentId": "X1234567"},
		"bank":    bankDE, "callback": "order=42", "notificationUrl": "https://shop.example/notify",
		"paymentSuccessUrl": "https://shop.example/ok", "paymentFailureUrl": "https://shop.example/ko",
		"paymentPendingUrl": "https://shop.example/wait", "paymentCancelUrl": "https://shop.example/cancel",
		"checkoutCountries": []string{"DE", "AT"}, "bankEditable": true,
		"summaryDetails": []map[string]string{{"label": "Order", "value": "42"}, {"label": "Items", "value": "2 books"}},
		"beneficiary":    map[string]any{"name": "Test Shop GmbH", "iban": ibanDE, "swiftBic": "RHVBDEFF"},
	}
}

// globalTwin is legacyBody written by hand in the Global shape.
func globalTwin() map[string]any {
	return map[string]any{
		"currency": "EUR", "amount": 1050, "internalReference": "order-42", "paymentReference": "Order 42",
		"payer":         map[string]any{"reference": "cust-1", "firstName": "Anna", "lastName": "Müller", "email": "anna@example.com"},
		"device":        map[string]any{"ip": "203.0.113.7"},
		"paymentSystem": "OPEN_BANKING_EU",
		"openBankingEU": map[string]any{"type": "GOODS", "institutionId": bankDE},
		"beneficiary":   map[string]any{"name": "Test Shop GmbH", "accountIdentifiers": map[string]any{"iban": ibanDE, "swiftBic": "RHVBDEFF"}},
		"communication": map[string]any{
			"notifications": map[string]any{"url": "https://shop.example/notify"},
			"return": map[string]any{"queryString": "order=42", "urls": map[string]any{
				"success": map[string]any{"url": "https://shop.example/ok"}, "failure": map[string]any{"url": "https://shop.example/ko"},
				"pending": map[string]any{"url": "https://shop.example/wait"}, "cancel": map[string]any{"url": "https://shop.example/cancel"}}},
		},
		"checkout":    map[string]any{"hosted": map[string]any{"countries": map[string]any{"available": []string{"DE", "AT"}}}},
		"displayInfo": []map[string]string{{"key": "Order", "value": "42"}, {"key": "Items", "value": "2 books"}},
	}
}

// postLegacy sends POST /legacy/payments with version (empty: none).
func postLegacy(t testing.TB, env *apptest.Env, token, version string, body any, headers map[string]string) *apptest.Response {
	t.Helper()
	h := map[string]string{"X-Service-Api-Version": version}
	for k, v := range headers {
		h[k] = v
	}
	return env.Do(t, apptest.Request{Method: "POST", Path: legacyPaymentsPath, Token: token, Body: body, Header: h})
}

// legacyCreated is the legacy answer.
type legacyCreated struct {
	ID          string `json:"id"`
	CheckoutURL string `json:"checkoutUrl"`
}

func mustCreateLegacy(t testing.TB, env *apptest.Env, token string, body any, headers map[string]string) legacyCreated {
	t.Helper()
	resp := postLegacy(t, env, token, "1", body, headers)
	if resp.Status != http.StatusCreated {
		t.Fatalf("legacy create: %d %s", resp.Status, resp.Body)
	}
	var c legacyCreated
	resp.JSON(t, &c)
	if resp.Header.Get("Location") != "/payments/"+c.ID {
		t.Fatalf("Location %q for %s", resp.Header.Get("Location"), c.ID)
	}
	apptest.CheckDeprecated(t, resp.Header)
	return c
}

func TestLegacyCreateVersions(t *testing.T) {
	t.Parallel()
	apptest.Each(t, func(t *testing.T, env *apptest.Env) {
		shop := env.Token(t, apptest.Merchant)
		for _, v := range []string{"1", "2", "3", "4", "edge"} {
			resp := postLegacy(t, env, shop, v, legacyBody(), nil)
			if resp.Status != http.StatusCreated {
				t.Fatalf("version %s: %d %s", v, resp.Status, resp.Body)
			}
			apptest.CheckDeprecated(t, resp.Header)
		}
		for _, v := range []string{"", "5", "0", "EDGE", "1.0", "v1"} {
			e := postLegacy(t, env, shop, v, legacyBody(), nil).LegacyError(t, http.StatusBadRequest)
			if !strings.Contains(e.Exception.Message, "X-Service-Api-Version") || len(e.Exception.ErrorList) != 0 {
				t.Fatalf("version %q: %+v", v, e)
			}
		}
		// Authentication and permission come first, in the legacy shape too.
		postLegacy(t, env, "", "1", legacyBody(), nil).LegacyError(t, http.StatusUnauthorized)
		postLegacy(t, env, env.Token(t, apptest.Viewer), "1", legacyBody(), nil).LegacyError(t, http.StatusForbidden)
		if got := totalPayments(t, env, shop); got != "5" {
			t.Fatalf("%s payments, want 5", got)
		}
	})
}

// The same payment created through the legacy and the Global API gives the
// same Global payment: the same stored request, channel and details record,
// apart from ids and timestamps.
func TestLegacyAndGlobalGiveTheSamePayment(t *testing.T) {
	t.Parallel()
	uk := func() (map[string]any, map[string]any) {
		l := map[string]any{"currencyCode": "GBP", "amount": 999, "type": "BILL", "uniqueReference": "INV 7", "bank": bankGB,
			"shopper": map[string]any{"organisationName": "Acme Ltd"}, "beneficiary": map[string]any{"name": "Test Shop Ltd", "sortCode": "40-47-84", "accountNumber": "70872490"}}
		g := map[string]any{"currency": "GBP", "amount": 999, "paymentReference": "INV 7", "payer": map[string]any{"organisationName": "Acme Ltd"},
			"paymentSystem": "OPEN_BANKING_UK", "openBankingUK": map[string]any{"type": "BILL", "institutionId": bankGB},
			"beneficiary": map[string]any{"name": "Test Shop Ltd", "accountIdentifiers": map[string]any{"sortCode": "40-47-84", "accountNumber": "70872490"}}}
		return l, g
	}
	apptest.Each(t, func(t *testing.T, env *apptest.Env) {
		shop := env.Token(t, apptest.Merchant)
		ukLegacy, ukGlobal := uk()
		for name, pair := range map[string][2]map[string]any{"EU": {legacyBody(), globalTwin()}, "UK": {ukLegacy, ukGlobal}} {
			viaLegacy := mustCreateLegacy(t, env, shop, pair[0], nil).ID
			viaGlobal := mustCreate(t, env, shop, pair[1], nil).ID

			a, b := storedPayment(t, env, viaLegacy), storedPayment(t, env, viaGlobal)
			if !reflect.DeepEqual(a.Request, b.Request) || a.Channel != b.Channel || a.Status != b.Status || a.ClientID != b.ClientID {
				ja, _ := json.Marshal(a.Request)
				jb, _ := json.Marshal(b.Request)
				t.Fatalf("%s: stored requests differ\nlegacy %s %s\nglobal %s %s", name, a.Channel, ja, b.Channel, jb)
			}
			da, db := detailsJSON(t, env, shop, viaLegacy), detailsJSON(t, env, shop, viaGlobal)
			if !reflect.DeepEqual(da, db) {
				t.Fatalf("%s: GET /payments/{id} differ apart from ids and timestamps\nlegacy %v\nglobal %v", name, da, db)
			}
		}
	})
}

func storedPayment(t *testing.T, env *apptest.Env, id string) payment.Payment {
	t.Helper()
	p, err := env.App.Store().Payments().GetByID(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// detailsJSON is GET /payments/{id} without the id and the timestamps.
func detailsJSON(t *testing.T, env *apptest.Env, token, id string) map[string]any {
	t.Helper()
	resp := env.Do(t, apptest.Request{Method: "GET", Path: "/payments/" + id, Token: token})
	if resp.Status != http.StatusOK {
		t.Fatalf("get %s: %d %s", id, resp.Status, resp.Body)
	}
	var d map[string]any
	resp.JSON(t, &d)
	delete(d, "id")
	delete(d, "createdAt")
	delete(d, "updatedAt")
	for _, u := range d["statusUpdates"].([]any) {
		delete(u.(map[string]any), "createdAt")
	}
	return d
}

func TestLegacyCheckoutURL(t *testing.T) {
	t.Parallel()
	apptest.Each(t, func(t *testing.T, env *apptest.Env) {
		shop := env.Token(t, apptest.Merchant)
		c := mustCreateLegacy(t, env, shop, with(legacyBody(), "bank", nil), nil)
		u, err := url.Parse(c.CheckoutURL)
		if err != nil || u.Scheme+"://"+u.Host != env.Config.PublicURL || u.Path != "/checkout/"+c.ID || u.Query().Get("token") == "" {
			t.Fatalf("checkoutUrl %q", c.CheckoutURL)
		}
		if tok := u.Query().Get("token"); tok == storedPayment(t, env, c.ID).CheckoutToken {
			t.Fatal("checkoutUrl carries the permanent checkout token")
		}
		open := func() (int, string) {
			t.Helper()
			client := *env.Server.Client()
			client.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
			resp, err := client.Get(env.URL + u.RequestURI())
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			var b bytes.Buffer
			_, _ = b.ReadFrom(resp.Body)
			return resp.StatusCode, b.String()
		}
		if status, body := open(); status != http.StatusOK || !strings.Contains(body, "Choose your bank") || !strings.Contains(body, "2 books") {
			t.Fatalf("checkout: %d %s", status, body)
		}
		// The link expires with the service clock; the payment's own pages
		// are unaffected.
		env.Clock.Advance(payment.LinkTTL - time.Second)
		if status, body := open(); status == http.StatusNotFound {
			t.Fatalf("link refused before its expiry: %s", body)
		}
		env.Clock.Advance(time.Second)
		if status, body := open(); status != http.StatusNotFound || !strings.Contains(body, "expired") {
			t.Fatalf("expired link: %d %s", status, body)
		}
	})
}

func TestLegacyValidationErrors(t *testing.T) {
	t.Parallel()
	apptest.Each(t, func(t *testing.T, env *apptest.Env) {
		shop := env.Token(t, apptest.Merchant)
		for _, tc := range []struct {
			name   string
			body   any
			status int
			want   []string
		}{
			{"wrong fields", func() map[string]any {
				b := with(legacyBody(), "currencyCode", "USD")
				b = with(b, "summaryDetails", []map[string]string{{"label": "", "value": "x"}})
				b = with(b, "checkoutCountries", []string{"DE", "ZZ"})
				return with(b, "beneficiary", map[string]any{"name": "Test Shop GmbH", "iban": "DE89370400440532013001"})
			}(), 422, []string{"currencyCode", "beneficiary.iban", "checkoutCountries[1]", "summaryDetails[0].label"}},
			{"nothing", map[string]any{}, 422, []string{"currencyCode", "amount", "beneficiary"}},
			{"payer and shopper disagree", with(legacyBody(), "payer", map[string]any{"email": "other@example.com"}), 422, []string{"shopper.email"}},
			{"wrong JSON type", with(legacyBody(), "amount", "ten"), 422, []string{"amount"}},
			{"malformed", "{", 400, []string{}},
		} {
			e := postLegacy(t, env, shop, "2", tc.body, nil).LegacyError(t, tc.status)
			if got := e.Properties(); !slices.Equal(got, tc.want) {
				t.Fatalf("%s: properties %q, want %q", tc.name, got, tc.want)
			}
			if tc.status == 422 && e.Exception.Message != "Validation exception" {
				t.Fatalf("%s: message %q", tc.name, e.Exception.Message)
			}
		}
		if got := totalPayments(t, env, shop); got != "0" {
			t.Fatalf("%s payments after failures", got)
		}
	})
}

func TestLegacyIdempotency(t *testing.T) {
	t.Parallel()
	apptest.Each(t, func(t *testing.T, env *apptest.Env) {
		shop := env.Token(t, apptest.Merchant)
		first := postLegacy(t, env, shop, "1", legacyBody(), key("legacy-1"))
		replay := postLegacy(t, env, shop, "3", with(legacyBody(), "unknown", true), key("legacy-1"))
		if first.Status != http.StatusCreated || replay.Status != http.StatusCreated || replay.Header.Get("Idempotent-Replayed") != "true" ||
			!bytes.Equal(first.Body, replay.Body) {
			t.Fatalf("replay: %d %d %v\n%s\n%s", first.Status, replay.Status, replay.Header, first.Body, replay.Body)
		}
		apptest.CheckDeprecated(t, replay.Header)
		// Fields that are accepted and not used are not part of the request.
		if r := postLegacy(t, env, shop, "1", with(legacyBody(), "bankEditable", false), key("legacy-1")); r.Header.Get("Idempotent-Replayed") != "true" {
			t.Fatalf("bankEditable changed the request: %d %s", r.Status, r.Body)
		}
		postLegacy(t, env, shop, "1", with(legacyBody(), "amount", 2000), key("legacy-1")).LegacyError(t, http.StatusConflict)
		// The Global API's request under the same key is another request.
		postPayment(t, env, shop, globalTwin(), key("legacy-1")).Error(t, http.StatusConflict, "IDEMPOTENCY_CONFLICT")
		postLegacy(t, env, shop, "1", legacyBody(), key(strings.Repeat("k", 65))).LegacyError(t, http.StatusBadRequest)
		if got := totalPayments(t, env, shop); got != "1" {
			t.Fatalf("%s payments, want 1", got)
		}
	})
}

func TestLegacyNameMatchScore(t *testing.T) {
	t.Parallel()
	apptest.Each(t, func(t *testing.T, env *apptest.Env) {
		shop := env.Token(t, apptest.Merchant)
		body := with(legacyBody(), "shopper", map[string]any{"firstName": "José", "lastName": "García"})
		id := mustCreateLegacy(t, env, shop, body, nil).ID
		path := "/legacy/payments/" + id + "/name-match-score"
		env.Do(t, apptest.Request{Method: "GET", Path: path, Token: shop}).LegacyError(t, http.StatusConflict)
		if err := env.App.Payments().RecordSender(context.Background(), id, payment.Sender{Name: "J. GARCIA"}); err != nil {
			t.Fatal(err)
		}
		for _, initials := range []string{"true", "false"} {
			resp := env.Do(t, apptest.Request{Method: "GET", Path: path + "?allow_initials=" + initials, Token: shop})
			var got struct {
				InvocationID   string   `json:"invocationId"`
				NameMatchScore *float64 `json:"nameMatchScore"`
			}
			resp.JSON(t, &got)
			apptest.CheckDeprecated(t, resp.Header)
			var want scoreJSON
			env.Do(t, apptest.Request{Method: "GET", Path: "/payments/" + id + "/name-match-score?allowInitials=" + initials, Token: shop}).JSON(t, &want)
			if resp.Status != http.StatusOK || got.NameMatchScore == nil || *got.NameMatchScore != want.Score || len(got.InvocationID) != 36 {
				t.Fatalf("allow_initials=%s: %d %s, Global score %v", initials, resp.Status, resp.Body, want.Score)
			}
		}
		env.Do(t, apptest.Request{Method: "GET", Path: path + "?allow_initials=yes", Token: shop}).LegacyError(t, http.StatusBadRequest)
		env.Do(t, apptest.Request{Method: "GET", Path: "/legacy/payments/nope/name-match-score", Token: shop}).LegacyError(t, http.StatusBadRequest)
		other := env.Token(t, apptest.OtherMerch)
		env.Do(t, apptest.Request{Method: "GET", Path: path, Token: other}).LegacyError(t, http.StatusNotFound)
	})
}

func TestLegacyMigrationGuideServed(t *testing.T) {
	t.Parallel()
	env := apptest.New(t)
	resp := env.Do(t, apptest.Request{Method: "GET", Path: legacy.GuidePath})
	if resp.Status != http.StatusOK || string(resp.Body) != legacy.Guide() || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/markdown") {
		t.Fatalf("guide: %d %s", resp.Status, resp.Header)
	}
	apptest.CheckDeprecated(t, resp.Header)
	// Every legacy answer, an unknown path included, points at it.
	resp = env.Do(t, apptest.Request{Method: "GET", Path: "/legacy/nowhere"})
	apptest.CheckDeprecated(t, resp.Header)
	if !strings.Contains(resp.Header.Get("Link"), "<"+legacy.GuidePath+`>; rel="deprecation"`) {
		t.Fatalf("Link %q", resp.Header.Get("Link"))
	}
}

// A legacy payment lives as any payment: a sandbox scenario moves it, and
// its notifications go to its notificationUrl, signed.
func TestLegacyPaymentLifecycle(t *testing.T) {
	t.Parallel()
	apptest.Each(t, func(t *testing.T, env *apptest.Env) {
		shop := env.Token(t, apptest.Merchant)
		rc := apptest.NewReceiver(t)
		id := mustCreateLegacy(t, env, shop, with(legacyBody(), "notificationUrl", rc.URL+"/hook"),
			map[string]string{"X-Service-Testing-Scenario": "COMPLETED"}).ID
		var statuses []string
		for _, r := range rc.WaitFor(t, 2) {
			g := verify(t, r).Gateway
			if g == nil || g.Payment != id || g.MerchantInternalReference != "order-42" || g.Amount != 1050 {
				t.Fatalf("notification %s", r.Body)
			}
			statuses = append(statuses, g.Status+"/"+g.DetailedStatus)
		}
		if !slices.Equal(statuses, []string{"PENDING/BANK_REDIRECT", "COMPLETED/COMPLETED"}) {
			t.Fatalf("notifications %q", statuses)
		}
		if d := detailsJSON(t, env, shop, id); d["status"] != "COMPLETED" || d["uniqueReference"] != "Order 42" {
			t.Fatalf("details %v", d)
		}
	})
}
