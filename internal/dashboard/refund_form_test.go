package dashboard_test

import (
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/bankrail/bankrail/internal/apptest"
)

// TestRefundFormSpeaksThePagesLanguage: the reference labelled optional is
// optional (an empty one is the payment's reference), an amount above what
// is left is explained in the currency's major units (10.50 EUR, not 1050),
// and no API wording (field names, "see errors for each field") reaches the
// page (issue 30, item 7).
func TestRefundFormSpeaksThePagesLanguage(t *testing.T) {
	t.Parallel()
	apptest.Each(t, func(t *testing.T, env *apptest.Env) {
		c, id, body, key := refundablePayment(t, env, "refund-form-1")
		m := regexp.MustCompile(`the refund carries the payment's reference, ([^<]+)\.</p>`).FindStringSubmatch(body)
		if m == nil {
			t.Fatalf("the form does not say what an empty reference is:\n%s", body)
		}
		reference := m[1]
		apiWords := []string{"see errors for each field", "externalReference", "minor units", "at most 1050"}

		p := c.post("/dashboard/payments/"+id+"/refund", url.Values{"amount": {"20.00"}, "key": {key}})
		if p.Status != http.StatusUnprocessableEntity {
			t.Fatalf("more than the payment: %d\n%s", p.Status, p.Body)
		}
		contains(t, "too high", p.Body, "The amount can be at most 10.50 EUR: what is left of the payment to refund.")
		lacks(t, "too high", p.Body, apiWords...)

		p = c.post("/dashboard/payments/"+id+"/refund", url.Values{"amount": {"1.00"}, "reference": {strings.Repeat("r", 256)}, "key": {key}})
		if p.Status != http.StatusUnprocessableEntity {
			t.Fatalf("a reference of 256 characters: %d", p.Status)
		}
		contains(t, "too long a reference", p.Body, "Please check what you entered:", "Your reference must be at most 255 characters long.")
		lacks(t, "too long a reference", p.Body, apiWords...)

		c.act("/dashboard/payments/"+id+"/refund", url.Values{"amount": {"1.00"}, "reference": {""}, "key": {key}})
		page := c.open("/dashboard/payments/" + id + "?done=refund")
		contains(t, "refunded without a reference", page.Body, "Refund requested.", "1.00 EUR", "<td>"+reference+"</td>")
	})
}

// refundablePayment makes a received Connect payment of 10.50 EUR, signs
// the merchant in and waits for the payment's page to offer the refund; it
// returns the console, the payment's id, its page and the form's key.
func refundablePayment(t *testing.T, env *apptest.Env, reference string) (c *console, id, body, key string) {
	t.Helper()
	openAccount(t, env, apptest.ShopID, "EUR", "main")
	token := env.Token(t, apptest.Merchant)
	id = createPayment(t, env, token, reference, map[string]string{"X-Service-Testing-Scenario": "COMPLETED"},
		func(b map[string]any) { delete(b, "beneficiary") })
	c = signIn(t, env, apptest.Merchant)
	waitFor(t, "the refund form", func() bool {
		body = c.open("/dashboard/payments/" + id).Body
		return strings.Contains(body, "Request a refund")
	})
	return c, id, body, regexp.MustCompile(`name="key" value="([^"]+)"`).FindStringSubmatch(body)[1]
}
