package notify

import (
	"testing"
	"time"

	"github.com/bankrail/bankrail/notification"
)

// The builders of the typed bodies: the type follows the status (or is
// checked), the ordering key is the subject's, timestamps are UTC, and a
// status or type that is not theirs is refused.
func TestTypedBuilders(t *testing.T) {
	t.Parallel()
	to := Target{CustomerID: "c1", ClientID: "app"}
	at := time.Date(2026, 6, 1, 11, 0, 0, 0, time.FixedZone("CEST", 2*3600))
	check := func(what string, m Message, err error, typ, key, body string) {
		t.Helper()
		if err != nil || m.Type != typ || m.PaymentID != key || string(m.Body) != body {
			t.Fatalf("%s: %+v %s %v; want %s %s %s", what, m, m.Body, err, typ, key, body)
		}
	}
	for status, typ := range map[string]string{"CONFIRMED": notification.TypeRefundConfirmed, "FAILED": notification.TypeRefundFailed,
		"REJECTED": notification.TypeRefundRejected} {
		m, err := Refund(to, notification.Refund{Refund: "r1", Payment: "p1", ExternalReference: "X", Amount: 5, Currency: "EUR", Status: status, Timestamp: at})
		check("refund "+status, m, err, typ, "p1",
			`{"refund":"r1","payment":"p1","externalReference":"X","amount":5,"currency":"EUR","status":"`+status+`","timestamp":"2026-06-01T09:00:00Z"}`)
	}
	for status, typ := range map[string]string{"COMPLETED": notification.TypePayoutConfirmed, "FAILED": notification.TypePayoutFailed,
		"REJECTED": notification.TypePayoutFailed} {
		m, err := Payout(to, notification.Payout{Payout: "o1", AccountID: "a1", Amount: 5, Currency: "EUR", PaymentReference: "I", Status: status, Timestamp: at})
		check("payout "+status, m, err, typ, "o1",
			`{"payout":"o1","accountId":"a1","amount":5,"currency":"EUR","paymentReference":"I","status":"`+status+`","timestamp":"2026-06-01T09:00:00Z"}`)
	}
	m, err := AccountHolderVerification(to, notification.AccountHolderVerification{AccountHolderVerification: "v1", TransactionID: "o1",
		Status: "COMPLETED", Result: "MATCH", Timestamp: at})
	check("verification", m, err, notification.TypeAccountHolderVerificationResultCompleted, "o1",
		`{"accountHolderVerification":"v1","transactionId":"o1","status":"COMPLETED","result":"MATCH","timestamp":"2026-06-01T09:00:00Z"}`)
	m, err = Mandate(to, notification.TypeMandateSuspended, notification.Mandate{Mandate: "m1", Status: "SUSPENDED", Timestamp: at})
	check("mandate", m, err, notification.TypeMandateSuspended, "m1", `{"mandate":"m1","status":"SUSPENDED","timestamp":"2026-06-01T09:00:00Z"}`)
	m, err = ChannelPayment(to, notification.TypeChannelPaymentDetected, notification.ChannelPayment{ChannelPayment: "x1", Channel: "h1",
		Status: "PROCESSING", Paid: notification.ChannelPaid{Amount: "1.000000", Currency: "USDC"}, Timestamp: at})
	check("channel", m, err, notification.TypeChannelPaymentDetected, "h1",
		`{"channelPayment":"x1","channel":"h1","status":"PROCESSING","paid":{"amount":"1.000000","currency":"USDC"},"credited":null,"timestamp":"2026-06-01T09:00:00Z"}`)

	if _, err := Refund(to, notification.Refund{Status: "PENDING"}); err == nil {
		t.Fatal("a PENDING refund is notified")
	}
	if _, err := Payout(to, notification.Payout{Status: "PROCESSING"}); err == nil {
		t.Fatal("a PROCESSING payout is notified")
	}
	if _, err := Mandate(to, notification.TypeRefundConfirmed, notification.Mandate{}); err == nil {
		t.Fatal("a mandate body under a refund type")
	}
	if _, err := ChannelPayment(to, "channel_payment_lost", notification.ChannelPayment{}); err == nil {
		t.Fatal("an unknown channel type")
	}
}
