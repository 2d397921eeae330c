package notification_test

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/bankrail/bankrail/notification"
)

// The generated structs encode their fields in the order the server has
// always sent them (x-order in the document): the signed bytes of every
// kind of body, every field set, are what they were before the bodies were
// generated.
func TestBodiesEncodeInTheirOrder(t *testing.T) {
	t.Parallel()
	at := time.Date(2026, 6, 1, 9, 0, 0, 0, time.UTC)
	s := func(v string) *string { return &v }
	for _, tc := range []struct {
		body any
		want string
	}{
		{notification.Gateway{Payment: "p", Reference: "r", MerchantInternalReference: "m", Amount: 1, Status: "COMPLETED", DetailedStatus: "COMPLETED",
			Sender: &notification.GatewaySender{IBAN: "i", AccountNumber: s("a"), SortCode: s("c"), Name: "n",
				Bank: notification.Bank{ID: "b", Country: "DE", GroupName: "g", BranchName: "h", BIC8: "ABCDEFGH"}}},
			`{"payment":"p","reference":"r","merchantInternalReference":"m","amount":1,"status":"COMPLETED","detailedStatus":"COMPLETED",` +
				`"sender":{"iban":"i","accountNumber":"a","sortCode":"c","name":"n","bank":{"id":"b","country":"DE","groupName":"g","branchName":"h","bic8":"ABCDEFGH"}}}`},
		{notification.Connect{Payment: "p", Reference: "r", MerchantInternalReference: "m", Amount: 1, Status: "RECEIVED", Currency: "EUR", Timestamp: at,
			Sender: &notification.ConnectSender{Location: "GB", Name: "n", AccountNumber: "a", SortCode: "c", IBAN: "i", SwiftBIC: "w", BSB: "b", PayID: "y"}},
			`{"payment":"p","reference":"r","merchantInternalReference":"m","amount":1,"status":"RECEIVED","currency":"EUR","timestamp":"2026-06-01T09:00:00Z",` +
				`"sender":{"location":"GB","name":"n","accountNumber":"a","sortCode":"c","iban":"i","swiftBic":"w","bsb":"b","payID":"y"}}`},
		{notification.Refund{Refund: "f", Payment: "p", ExternalReference: "x", Amount: 1, Currency: "EUR", Status: "CONFIRMED", Timestamp: at},
			`{"refund":"f","payment":"p","externalReference":"x","amount":1,"currency":"EUR","status":"CONFIRMED","timestamp":"2026-06-01T09:00:00Z"}`},
		{notification.Payout{Payout: "o", AccountID: "a", Amount: 1, Currency: "EUR", PaymentReference: "r", Status: "COMPLETED", Timestamp: at},
			`{"payout":"o","accountId":"a","amount":1,"currency":"EUR","paymentReference":"r","status":"COMPLETED","timestamp":"2026-06-01T09:00:00Z"}`},
		{notification.AccountHolderVerification{AccountHolderVerification: "v", TransactionID: "o", Status: "COMPLETED", Result: "MATCH", Timestamp: at},
			`{"accountHolderVerification":"v","transactionId":"o","status":"COMPLETED","result":"MATCH","timestamp":"2026-06-01T09:00:00Z"}`},
		{notification.Mandate{Mandate: "m", Amendment: "a", Status: "APPROVED", Timestamp: at},
			`{"mandate":"m","amendment":"a","status":"APPROVED","timestamp":"2026-06-01T09:00:00Z"}`},
		{notification.ChannelPayment{ChannelPayment: "c", Channel: "h", Status: "COMPLETED", Paid: notification.ChannelPaid{Amount: "1.000000", Currency: "USDC"},
			Credited: &notification.ChannelCredit{Amount: 1, Currency: "EUR"}, Timestamp: at},
			`{"channelPayment":"c","channel":"h","status":"COMPLETED","paid":{"amount":"1.000000","currency":"USDC"},"credited":{"amount":1,"currency":"EUR"},"timestamp":"2026-06-01T09:00:00Z"}`},
		{notification.Report{Report: "r", Type: "PAYMENTS", Status: "REPORT_AVAILABLE", Timestamp: at},
			`{"report":"r","type":"PAYMENTS","status":"REPORT_AVAILABLE","timestamp":"2026-06-01T09:00:00Z"}`},
	} {
		got, err := json.Marshal(tc.body)
		if err != nil || string(got) != tc.want {
			t.Errorf("%T encodes\n%s (%v), want\n%s", tc.body, got, err, tc.want)
		}
	}
}
