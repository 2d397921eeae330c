package notification_test

import (
	"net/http"
	"reflect"
	"testing"
	"time"

	"github.com/bankrail/bankrail/notification"
)

// Parse decodes every type into its struct (Body and the field of its kind)
// and leaves the test notification and unknown types untyped.
func TestParseByType(t *testing.T) {
	t.Parallel()
	at := time.Date(2026, 6, 1, 9, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		typ   string
		body  string
		want  any
		field func(notification.Notification) any
	}{
		{notification.TypeRefundRejected, `{"refund":"r1","payment":"p1","externalReference":"RMA-1","amount":300,"currency":"EUR","status":"REJECTED","timestamp":"2026-06-01T09:00:00Z"}`,
			&notification.Refund{Refund: "r1", Payment: "p1", ExternalReference: "RMA-1", Amount: 300, Currency: "EUR", Status: "REJECTED", Timestamp: at},
			func(n notification.Notification) any { return n.Refund }},
		{notification.TypePayoutFailed, `{"payout":"o1","accountId":"a1","amount":1570,"currency":"EUR","paymentReference":"Invoice 42","status":"FAILED","timestamp":"2026-06-01T09:00:00Z"}`,
			&notification.Payout{Payout: "o1", AccountID: "a1", Amount: 1570, Currency: "EUR", PaymentReference: "Invoice 42", Status: "FAILED", Timestamp: at},
			func(n notification.Notification) any { return n.Payout }},
		{notification.TypeAccountHolderVerificationResultCompleted, `{"accountHolderVerification":"v1","transactionId":"o1","status":"COMPLETED","result":"CLOSE_MATCH","timestamp":"2026-06-01T09:00:00Z"}`,
			&notification.AccountHolderVerification{AccountHolderVerification: "v1", TransactionID: "o1", Status: "COMPLETED", Result: "CLOSE_MATCH", Timestamp: at},
			func(n notification.Notification) any { return n.AccountHolderVerification }},
		{notification.TypeMandateAmended, `{"mandate":"m1","amendment":"x1","status":"APPROVED","timestamp":"2026-06-01T09:00:00Z"}`,
			&notification.Mandate{Mandate: "m1", Amendment: "x1", Status: "APPROVED", Timestamp: at},
			func(n notification.Notification) any { return n.Mandate }},
		{notification.TypeChannelPaymentCompleted, `{"channelPayment":"c1","channel":"h1","status":"COMPLETED","paid":{"amount":"12.500000","currency":"USDC"},"credited":{"amount":1150,"currency":"EUR"},"timestamp":"2026-06-01T09:00:00Z"}`,
			&notification.ChannelPayment{ChannelPayment: "c1", Channel: "h1", Status: "COMPLETED", Paid: notification.ChannelPaid{Amount: "12.500000", Currency: "USDC"},
				Credited: &notification.ChannelCredit{Amount: 1150, Currency: "EUR"}, Timestamp: at},
			func(n notification.Notification) any { return n.ChannelPayment }},
		{notification.TypeReportAvailable, `{"report":"r9","type":"PAYMENTS","status":"REPORT_AVAILABLE","timestamp":"2026-06-01T09:00:00Z"}`,
			&notification.Report{Report: "r9", Type: "PAYMENTS", Status: "REPORT_AVAILABLE", Timestamp: at},
			func(n notification.Notification) any { return n.Report }},
		{notification.TypePaymentNotReceived, `{"payment":"p1","reference":"R","amount":2050,"status":"NOT_RECEIVED","currency":"EUR","timestamp":"2026-06-01T09:00:00Z"}`,
			&notification.Connect{Payment: "p1", Reference: "R", Amount: 2050, Status: "NOT_RECEIVED", Currency: "EUR", Timestamp: at},
			func(n notification.Notification) any { return n.Connect }},
		{"", `{"payment":"p1","reference":"R","amount":5,"status":"PENDING","detailedStatus":"BANK_REDIRECT","newField":1}`,
			&notification.Gateway{Payment: "p1", Reference: "R", Amount: 5, Status: "PENDING", DetailedStatus: "BANK_REDIRECT"},
			func(n notification.Notification) any { return n.Gateway }},
	} {
		h := http.Header{}
		if tc.typ != "" {
			h.Set(notification.HeaderType, tc.typ)
		}
		n, err := notification.Parse(h, []byte(tc.body))
		if err != nil {
			t.Fatalf("%s: %v", tc.typ, err)
		}
		if !reflect.DeepEqual(n.Body, tc.want) || !reflect.DeepEqual(tc.field(n), tc.want) {
			t.Fatalf("%s: body %#v, field %#v, want %#v", tc.typ, n.Body, tc.field(n), tc.want)
		}
		if reflect.TypeOf(notification.NewBody(tc.typ)) != reflect.TypeOf(tc.want) {
			t.Fatalf("%s: NewBody gives %T", tc.typ, notification.NewBody(tc.typ))
		}
	}
	for _, typ := range []string{notification.TypeTest, "something_new"} {
		h := http.Header{notification.HeaderType: {typ}}
		if n, err := notification.Parse(h, []byte(`{"x":1}`)); err != nil || n.Body != nil || n.Gateway != nil || string(n.Raw) != `{"x":1}` {
			t.Fatalf("%s: %+v %v", typ, n, err)
		}
		if _, err := notification.Parse(h, []byte(`{`)); err == nil {
			t.Fatalf("%s: invalid JSON accepted", typ)
		}
	}
	if _, err := notification.Parse(http.Header{notification.HeaderType: {notification.TypeRefundConfirmed}}, []byte(`{"amount":"3"}`)); err == nil {
		t.Fatal("a refund body with a string amount decodes")
	}
	for _, typ := range notification.Types() {
		if (notification.NewBody(typ) == nil) != (typ == notification.TypeTest) {
			t.Fatalf("Types lists %q, which has no body struct", typ)
		}
	}
}
