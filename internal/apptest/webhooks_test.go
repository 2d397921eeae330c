package apptest_test

import (
	"testing"

	"github.com/bankrail/bankrail/internal/apptest"
)

// The webhook check accepts the bodies bankrail sends and refuses one with a
// field missing, a value outside its enum, pattern or format, a wrong type,
// a field where none is allowed, and an undocumented type.
func TestNotificationMismatch(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		typ, body string
		ok        bool
	}{
		{"refund_confirmed", `{"refund":"6076d8ad-26bc-4cc2-837c-a4631e8cd909","payment":"6076d8ad-26bc-4cc2-837c-a4631e8cd909","externalReference":"x","amount":3,"currency":"EUR","status":"CONFIRMED","timestamp":"2026-06-01T09:00:00Z"}`, true},
		{"refund_confirmed", `{"refund":"r1","payment":"6076d8ad-26bc-4cc2-837c-a4631e8cd909","externalReference":"x","amount":3,"currency":"EUR","status":"CONFIRMED","timestamp":"2026-06-01T09:00:00Z"}`, false},
		{"refund_confirmed", `{"refund":"6076d8ad-26bc-4cc2-837c-a4631e8cd909","payment":"6076d8ad-26bc-4cc2-837c-a4631e8cd909","externalReference":"x","amount":3,"currency":"EUR","status":"BOGUS","timestamp":"2026-06-01T09:00:00Z"}`, false},
		{"refund_confirmed", `{"refund":"6076d8ad-26bc-4cc2-837c-a4631e8cd909","payment":"6076d8ad-26bc-4cc2-837c-a4631e8cd909","externalReference":"x","amount":3,"currency":"EUR","status":"CONFIRMED","timestamp":"yesterday"}`, false},
		{"channel_payment_detected", `{"channelPayment":"6076d8ad-26bc-4cc2-837c-a4631e8cd909","channel":"6076d8ad-26bc-4cc2-837c-a4631e8cd909","status":"PROCESSING","paid":{"amount":"12.500000","currency":"USDC"},"credited":null,"timestamp":"2026-06-01T09:00:00Z"}`, true},
		{"channel_payment_detected", `{"channelPayment":"6076d8ad-26bc-4cc2-837c-a4631e8cd909","channel":"6076d8ad-26bc-4cc2-837c-a4631e8cd909","status":"PROCESSING","paid":{"amount":"12.5","currency":"USDC"},"credited":null,"timestamp":"2026-06-01T09:00:00Z"}`, false},
		{"channel_payment_detected", `{"channelPayment":"6076d8ad-26bc-4cc2-837c-a4631e8cd909","channel":"6076d8ad-26bc-4cc2-837c-a4631e8cd909","status":"PROCESSING","paid":{"amount":"12.500000","currency":"USDC"},"credited":{"amount":"x"},"timestamp":"2026-06-01T09:00:00Z"}`, false},
		{"test", `{}`, true},
		{"test", `{"a":1}`, false},
		{"", `{"payment":"6076d8ad-26bc-4cc2-837c-a4631e8cd909","reference":"R","amount":5,"status":"PENDING","detailedStatus":"BANK_REDIRECT","sender":{"iban":"x","accountNumber":null,"sortCode":null,"name":"n","bank":{"id":"a","country":"DE","groupName":"g","branchName":"b","bic8":"ABCDEFGH"}}}`, true},
		{"", `{"payment":"6076d8ad-26bc-4cc2-837c-a4631e8cd909","reference":"R","amount":5,"status":"PENDING","detailedStatus":"BANK_REDIRECT","sender":{"iban":"x","sortCode":null,"name":"n","bank":{"id":"a","country":"DE","groupName":"g","branchName":"b","bic8":"ABCDEFGH"}}}`, false},
		{"nope", `{}`, false},
	} {
		err := apptest.NotificationMismatch(c.typ, []byte(c.body))
		if (err == nil) != c.ok {
			t.Errorf("%s %s: %v", c.typ, c.body, err)
		}
	}
}
