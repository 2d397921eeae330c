package failover_test

import (
	"context"
	"net/http"
	"testing"

	"github.com/bankrail/bankrail/api"
	"github.com/bankrail/bankrail/client"
)

// signedIn is an SDK client of the instance at url that tries each request
// once and counts the answers by status (tr), signed in with the pool warm,
// and create makes a payment of 10.00 EUR under the Idempotency-Key key.
func signedIn(t *testing.T, ctx context.Context, url, key string) (cl *client.Client, tr *answers, create func() (*api.Payment, error)) {
	t.Helper()
	tr = &answers{byStatus: map[int]int{}}
	cl, err := client.New(url,
		client.WithCredentials(client.Credentials{ClientID: clientID, ClientSecret: clientSecret, Username: username, Password: password}),
		client.WithHTTPClient(&http.Client{Transport: tr}), client.WithRetry(client.RetryPolicy{MaxAttempts: 1}))
	if err != nil {
		t.Fatal(err)
	}
	create = func() (*api.Payment, error) {
		return cl.CreatePayment(ctx, api.PaymentCreateRequest{Currency: "EUR", Amount: client.Ptr[int64](1000),
			PaymentSystem: api.PaymentSystemOPENBANKINGEU, PaymentReference: client.Ptr(key),
			OpenBankingEU: &api.OpenBankingEURequest{Type: client.Ptr(api.PaymentTypeGOODS)}},
			&api.CreatePaymentParams{IdempotencyKey: client.Ptr(key)})
	}
	if _, err := cl.ListPayments(ctx, nil); err != nil { // signed in, the pool warm
		t.Fatal(err)
	}
	return cl, tr, create
}
