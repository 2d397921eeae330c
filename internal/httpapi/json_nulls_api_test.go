package httpapi_test

import (
	"net/http"
	"slices"
	"testing"

	"github.com/bankrail/bankrail/internal/apptest"
)

// TestABodyRefusedForItsNullsNamesEveryOtherFault: a body with a null is
// refused, and the same answer names every other field that is missing:
// for a payment, those the domain requires (paymentSystem, currency); for a
// payout, those the document requires. A client fixes its body in one go.
func TestABodyRefusedForItsNullsNamesEveryOtherFault(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, path string
		body       map[string]any
		header     map[string]string
		want       []string // "path TYPE" of the answer's errors
	}{
		{"a payment with a null amount and nothing else", paymentsPath, map[string]any{"amount": nil}, paymentHeaders(nil),
			[]string{"amount INVALID_TYPE", "paymentSystem VALUE_REQUIRED", "currency VALUE_REQUIRED"}},
		{"a payment with a null payer email and no amount", paymentsPath,
			map[string]any{"currency": "EUR", "paymentSystem": "OPEN_BANKING_EU", "payer": map[string]any{"email": nil}}, paymentHeaders(nil),
			[]string{"payer.email INVALID_TYPE", "amount VALUE_REQUIRED"}},
		{"a payout with a null amount", "/payouts", map[string]any{"amount": nil}, paymentHeaders(nil),
			[]string{"amount INVALID_TYPE", "accountId VALUE_REQUIRED", "currency VALUE_REQUIRED", "paymentReference VALUE_REQUIRED", "beneficiary VALUE_REQUIRED"}},
	}
	apptest.Each(t, func(t *testing.T, env *apptest.Env) {
		token := env.Token(t, apptest.PSPAdmin)
		for _, c := range cases {
			t.Run(c.name, func(t *testing.T) {
				resp := env.Do(t, apptest.Request{Method: http.MethodPost, Path: c.path, Body: c.body, Header: c.header, Token: token})
				e := resp.Error(t, http.StatusUnprocessableEntity, "VALIDATION_FAILURE")
				var got []string
				for _, f := range e.Errors {
					got = append(got, f.PropertyPath+" "+f.Type)
				}
				for _, w := range c.want {
					if !slices.Contains(got, w) {
						t.Errorf("the answer does not name %q: %v", w, got)
					}
				}
				for i, g := range got {
					if slices.Contains(got[:i], g) {
						t.Errorf("%q is named twice: %v", g, got)
					}
				}
			})
		}
	})
}
