package httpapi_test

import (
	"bytes"
	"net/http"
	"slices"
	"testing"

	"github.com/bankrail/bankrail/internal/apptest"
	"github.com/bankrail/bankrail/internal/payment"
)

// dropinBody is an embedded checkout of 10.50 EUR for the shop's page.
func dropinBody() map[string]any {
	return map[string]any{
		"currencyCode": "EUR", "amount": 1050, "type": "BILL",
		"shopper":     map[string]any{"reference": "cust-1", "firstName": "Anna", "lastName": "Müller"},
		"beneficiary": map[string]any{"name": "Test Shop GmbH", "iban": ibanDE},
		"origin":      "https://Shop.example",
	}
}

func postDropin(t testing.TB, env *apptest.Env, token string, body any, headers map[string]string) *apptest.Response {
	t.Helper()
	return env.Do(t, apptest.Request{Method: "POST", Path: "/dropin", Token: token, Body: body, Header: headers})
}

func TestDropin(t *testing.T) {
	t.Parallel()
	apptest.Each(t, func(t *testing.T, env *apptest.Env) {
		shop := env.Token(t, apptest.Merchant)
		resp := postDropin(t, env, shop, dropinBody(), key("d-1"))
		var got struct{ ID, Token string }
		resp.JSON(t, &got)
		if resp.Status != http.StatusCreated || resp.Header.Get("Location") != "/payments/"+got.ID || resp.Header.Get("Deprecation") != "" {
			t.Fatalf("dropin: %d %v %s", resp.Status, resp.Header, resp.Body)
		}
		// The token opens this payment's embedded checkout, for the origin
		// given, and expires.
		l, ok := payment.ParseLink(got.Token)
		if !ok || l.Purpose != payment.LinkEmbedded || l.Origin != "https://shop.example" ||
			!l.Expires.Equal(env.App.Clock().Now().Add(payment.LinkTTL).Truncate(1e9)) {
			t.Fatalf("token %q: %+v", got.Token, l)
		}
		// The payment is a Global payment of the hosted channel.
		p := storedPayment(t, env, got.ID)
		if p.Channel != payment.ChannelHosted || p.Request.PaymentSystem != "OPEN_BANKING_EU" || p.Request.Payer.Name() != "Anna Müller" ||
			p.Request.Scheme().Type != payment.TypeBill || p.Request.Payer.Reference != "cust-1" {
			t.Fatalf("stored %+v", p)
		}
		if d := detailsJSON(t, env, shop, got.ID); d["status"] != "NEW_PAYMENT" || d["amount"] != 1050.0 {
			t.Fatalf("details %v", d)
		}
		// Idempotent; the origin is part of the request.
		replay := postDropin(t, env, shop, dropinBody(), key("d-1"))
		if replay.Header.Get("Idempotent-Replayed") != "true" || !bytes.Equal(replay.Body, resp.Body) {
			t.Fatalf("replay: %d %s", replay.Status, replay.Body)
		}
		postDropin(t, env, shop, with(dropinBody(), "origin", "https://other.example"), key("d-1")).Error(t, http.StatusConflict, "IDEMPOTENCY_CONFLICT")

		// Errors: the Global shape, with the request's names.
		bad := with(dropinBody(), "origin", "https://shop.example/checkout")
		bad = with(bad, "beneficiary", map[string]any{"name": "Test Shop GmbH"})
		bad = with(bad, "type", "FOOD")
		e := postDropin(t, env, shop, bad, nil).Error(t, http.StatusUnprocessableEntity, "VALIDATION_FAILURE")
		var paths []string
		for _, f := range e.Errors {
			paths = append(paths, f.Type+" "+f.PropertyPath)
		}
		if want := []string{"INVALID_FORMAT origin", "INVALID_VALUE type", "VALUE_REQUIRED beneficiary.iban"}; !slices.Equal(paths, want) {
			t.Fatalf("errors %q, want %q", paths, want)
		}
		// The smallest request of the interface (currency, amount, type,
		// shopper.reference) needs the receiving account too.
		e = postDropin(t, env, shop, map[string]any{"currencyCode": "GBP", "amount": 100, "type": "BILL", "shopper": map[string]any{"reference": "c"}}, nil).
			Error(t, http.StatusUnprocessableEntity, "VALIDATION_FAILURE")
		if len(e.Errors) != 1 || e.Errors[0].PropertyPath != "beneficiary" {
			t.Fatalf("errors %+v", e.Errors)
		}
		postDropin(t, env, env.Token(t, apptest.Viewer), dropinBody(), nil).Error(t, http.StatusForbidden, "ACCESS_DENIED")
		if got := totalPayments(t, env, shop); got != "1" {
			t.Fatalf("%s payments, want 1", got)
		}
	})
}
