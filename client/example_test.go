package client_test

import (
	"context"
	"errors"
	"fmt"
	"log"
	"net/http/httptest"
	"os"
	"time"

	"github.com/bankrail/bankrail/api"
	"github.com/bankrail/bankrail/client"
)

// The examples run in `go test` against a sandbox with the demo merchant
// (`bankrail serve` on an empty database); BANKRAIL_URL is its address,
// e.g. http://127.0.0.1:8080.

// demoClient signs in as the sandbox's demo merchant, whose credentials
// `bankrail serve` prints.
func demoClient() *client.Client {
	c, err := client.New(os.Getenv("BANKRAIL_URL"), client.WithCredentials(client.Credentials{
		ClientID: "demo-client", ClientSecret: "demo-client-secret",
		Username: "merchant@demo.test", Password: "demo-password",
	}))
	if err != nil {
		log.Fatal(err)
	}
	return c
}

// Sign in and create a payment. The demo merchant has a Connect account in
// EUR: it is the beneficiary when the request names none.
func Example() {
	ctx := context.Background()
	c, err := client.New(os.Getenv("BANKRAIL_URL"), client.WithCredentials(client.Credentials{
		ClientID: "demo-client", ClientSecret: "demo-client-secret",
		Username: "merchant@demo.test", Password: "demo-password",
	}))
	if err != nil {
		log.Fatal(err)
	}
	p, err := c.CreatePayment(ctx, api.PaymentCreateRequest{
		Currency:         "EUR",
		Amount:           client.Ptr[int64](1050),
		PaymentSystem:    api.PaymentSystemOPENBANKINGEU,
		OpenBankingEU:    &api.OpenBankingEURequest{Type: client.Ptr(api.PaymentTypeGOODS)},
		PaymentReference: client.Ptr("Order 42"),
	}, nil) // nil: the hosted checkout, and an Idempotency-Key made up for retries
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(p.Status, p.Amount, p.Currency, p.PaymentReference)
	fmt.Println("send the payer to a link:", p.PaymentInitiationFlow.Details.Redirect.URL != "")
	// Output:
	// NEW_PAYMENT 1050 EUR Order 42
	// send the payer to a link: true
}

// Play the payer's and the bank's part in the sandbox, without a browser,
// and read where the payment went.
func ExampleClient_AuthoriseSandboxPayment() {
	ctx := context.Background()
	c := demoClient()
	p, err := c.CreatePayment(ctx, api.PaymentCreateRequest{Currency: "EUR", Amount: client.Ptr[int64](2500),
		PaymentSystem: api.PaymentSystemOPENBANKINGEU, OpenBankingEU: &api.OpenBankingEURequest{Type: client.Ptr(api.PaymentTypeGOODS)}}, nil)
	if err != nil {
		log.Fatal(err)
	}
	if _, err := c.AuthoriseSandboxPayment(ctx, p.ID, api.SandboxAuthoriseRequest{Outcome: "COMPLETED"}); err != nil {
		log.Fatal(err)
	}
	d, err := c.GetPayment(ctx, p.ID)
	if err != nil {
		log.Fatal(err)
	}
	for _, u := range d.StatusUpdates {
		fmt.Println(u.NewStatus)
	}
	// Output:
	// NEW_PAYMENT
	// BANK_REDIRECT
	// AUTHORISED_BY_USER
	// COMPLETED
	// RECEIVED
}

// Receive the signed notifications of a payment: NotificationHandler
// verifies each one with the application's notification secret (here the
// demo's) before your code sees it, and answers 400 to a forged one.
func ExampleNotificationHandler() {
	ctx := context.Background()
	c := demoClient()
	received := make(chan client.Notification, 10)
	receiver := httptest.NewServer(client.NotificationHandler(client.Verifier{Secret: "demo-notification-secret"},
		func(ctx context.Context, n client.Notification) error {
			received <- n // store it, deduplicating on n.ID, then answer
			return nil
		}))
	defer receiver.Close()

	p, err := c.CreatePayment(ctx, api.PaymentCreateRequest{Currency: "EUR", Amount: client.Ptr[int64](990),
		PaymentSystem: api.PaymentSystemOPENBANKINGEU, OpenBankingEU: &api.OpenBankingEURequest{Type: client.Ptr(api.PaymentTypeGOODS)},
		Communication: &api.Communication{Notifications: &api.CommunicationNotifications{URL: client.Ptr(receiver.URL)}}},
		&api.CreatePaymentParams{XServiceTestingScenario: client.Ptr(api.SandboxOutcome("COMPLETED"))})
	if err != nil {
		log.Fatal(err)
	}
	for range 3 {
		select {
		case n := <-received:
			switch {
			case n.Gateway != nil:
				fmt.Println("gateway", n.Gateway.Status, n.Gateway.Payment == p.ID)
			case n.Connect != nil:
				fmt.Println(n.Type, n.Connect.Status, n.Connect.Amount)
			}
		case <-time.After(10 * time.Second):
			log.Fatal("no notification")
		}
	}
	// Output:
	// gateway PENDING true
	// gateway COMPLETED true
	// payment_received RECEIVED 990
}

// Iterate over every payment of a list, page after page.
func ExampleClient_AllPayments() {
	ctx := context.Background()
	c := demoClient()
	for range 3 {
		if _, err := c.CreatePayment(ctx, api.PaymentCreateRequest{Currency: "EUR", Amount: client.Ptr[int64](100),
			PaymentSystem: api.PaymentSystemOPENBANKINGEU, OpenBankingEU: &api.OpenBankingEURequest{Type: client.Ptr(api.PaymentTypeGOODS)},
			InternalReference: client.Ptr("example-batch")}, nil); err != nil {
			log.Fatal(err)
		}
	}
	n, total := 0, int64(0)
	for p, err := range c.AllPayments(ctx, &api.ListPaymentsParams{InternalReference: client.Ptr("example-batch"), Limit: client.Ptr[int64](2)}) {
		if err != nil {
			log.Fatal(err)
		}
		n++
		total += p.Amount
	}
	fmt.Println(n, "payments,", total, "cents")
	// Output: 3 payments, 300 cents
}

// An answer that is not a success is an *client.Error: the code, the
// message, every failing field and the trace id to quote to support.
func ExampleError() {
	ctx := context.Background()
	c := demoClient()
	_, err := c.CreatePayment(ctx, api.PaymentCreateRequest{Currency: "GBP", Amount: client.Ptr[int64](0),
		PaymentSystem: api.PaymentSystemOPENBANKINGEU, OpenBankingEU: &api.OpenBankingEURequest{Type: client.Ptr(api.PaymentTypeGOODS)}}, nil)
	var e *client.Error
	if errors.As(err, &e) {
		fmt.Println(e.StatusCode, e.Code, e.TraceID != "")
		for _, f := range e.Fields {
			fmt.Println(f.PropertyPath, f.Type)
		}
	}
	// Output:
	// 422 VALIDATION_FAILURE true
	// currency INVALID_VALUE
	// amount TOO_LOW
}
