package httpapi_test

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/bankrail/bankrail/internal/apptest"
	"github.com/bankrail/bankrail/internal/config"
)

// TestMaximumAmountPerCurrency: the configured maximum is in major units,
// so POST /payin takes exactly that many whole yen, euros or dinars (each
// currency's exponent scales it: 0, 2, 3) and refuses one minor unit more
// with 422 TOO_HIGH on amount.amount; on both engines.
func TestMaximumAmountPerCurrency(t *testing.T) {
	t.Parallel()
	apptest.Each(t, func(t *testing.T, env *apptest.Env) {
		token := env.Token(t, apptest.Merchant)
		for _, tt := range []struct {
			currency string
			limit    int64 // 50 major units in minor units
		}{
			{"JPY", 50},
			{"EUR", 5_000},
			{"BHD", 50_000},
		} {
			acct := openAccount(t, env, apptest.ShopID, tt.currency, "limit "+tt.currency)
			if resp := payin(t, env, token, "ext-max-"+tt.currency, "at the maximum", tt.limit, tt.currency, acct.IBAN); resp.Status != http.StatusAccepted {
				t.Fatalf("%d %s (the maximum): %d %s", tt.limit, tt.currency, resp.Status, resp.Body)
			}
			resp := payin(t, env, token, "ext-over-"+tt.currency, "above the maximum", tt.limit+1, tt.currency, acct.IBAN)
			e := resp.Error(t, http.StatusUnprocessableEntity, "VALIDATION_FAILURE")
			if len(e.Errors) != 1 || e.Errors[0].Type != "TOO_HIGH" || e.Errors[0].PropertyPath != "amount.amount" ||
				!strings.Contains(e.Errors[0].Message, fmt.Sprintf("at most %d (minor units of %s)", tt.limit, tt.currency)) {
				t.Fatalf("%d %s: errors %+v", tt.limit+1, tt.currency, e.Errors)
			}
		}
	}, func(c *config.Config) { c.MaxPaymentMajor = 50 })
}
