//go:build failover

package failover_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/bankrail/bankrail/api"
	"github.com/bankrail/bankrail/client"
)

// acked is what clients were answered 2xx for, by kind: payments by
// reference, payins by external id, refunds and payouts by id.
type acked struct {
	mu       sync.Mutex
	payments map[string]string // reference -> payment id
	payins   map[string]bool
	refunds  map[string]string // refund id -> payment id
	payouts  map[string]string // reference -> payout id
	// successes: when each instance (0, 1) last answered a write 2xx, in order
	successes [2][]time.Time
	failed    error    // what stopped a client
	lostSeen  []string // asynchronous: a client met the loss of what it had been answered
}

func newAcked() *acked {
	return &acked{payments: map[string]string{}, payins: map[string]bool{}, refunds: map[string]string{}, payouts: map[string]string{}}
}

func (a *acked) note(instance int, f func()) {
	a.mu.Lock()
	defer a.mu.Unlock()
	f()
	a.successes[instance] = append(a.successes[instance], time.Now())
}

// servedAgain is when each instance first answered a write 2xx after t0
// (zero: not yet).
func (a *acked) servedAgain(t0 time.Time) [2]time.Time {
	a.mu.Lock()
	defer a.mu.Unlock()
	var out [2]time.Time
	for i, s := range a.successes {
		for _, at := range s {
			if at.After(t0) {
				out[i] = at
				break
			}
		}
	}
	return out
}

func (a *acked) count() int {
	a.mu.Lock()
	defer a.mu.Unlock()
	return len(a.payments) + len(a.payins) + len(a.refunds) + len(a.payouts)
}

// clientOf is a merchant's SDK client of instance url that retries
// every safe call (reads, creates under an Idempotency-Key, payins) for
// long enough to outlast a failover.
func clientOf(t *testing.T, url string, tr http.RoundTripper) *client.Client {
	t.Helper()
	c, err := client.New(url,
		client.WithCredentials(client.Credentials{ClientID: clientID, ClientSecret: clientSecret, Username: username, Password: password}),
		client.WithHTTPClient(&http.Client{Transport: tr, Timeout: 30 * time.Second}),
		client.WithRetry(client.RetryPolicy{MaxAttempts: 200, BaseDelay: 20 * time.Millisecond, MaxDelay: 200 * time.Millisecond, MaxRetryAfter: 5 * time.Second}))
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// stream runs one client (number n, on instance n%2) until ctx ends: a
// payment created, a payin, a payment authorised and refunded in part, a
// payout, in turn, each under an Idempotency-Key of its own (the SDK
// retries it with the same key until it is answered).
func stream(ctx context.Context, n int, c *client.Client, iban string, ack *acked, synchronous bool) error {
	instance := n % 2
	var toRefund []string
	for i := 0; ctx.Err() == nil; i++ {
		ref := fmt.Sprintf("c%d-%d", n, i)
		var err error
		switch i % 4 {
		case 0:
			var p *api.Payment
			p, err = c.CreatePayment(ctx, api.PaymentCreateRequest{Currency: "EUR", Amount: client.Ptr[int64](1000),
				PaymentSystem: api.PaymentSystemOPENBANKINGEU, PaymentReference: client.Ptr(ref),
				OpenBankingEU: &api.OpenBankingEURequest{Type: client.Ptr(api.PaymentTypeGOODS)}},
				&api.CreatePaymentParams{IdempotencyKey: client.Ptr("pay-" + ref)})
			if err == nil {
				ack.note(instance, func() { ack.payments[ref] = p.ID })
				toRefund = append(toRefund, p.ID)
			}
		case 1:
			err = c.Payin(ctx, api.SimulatedIncomingTransaction{ExternalPaymentID: "payin-" + ref, PaymentReference: client.Ptr("no such order"),
				Amount:      api.SimulatedIncomingAmount{Amount: 1000, Currency: "EUR"},
				Beneficiary: api.SimulatedIncomingBeneficiary{AccountIdentifiers: api.SimulatedIncomingBeneficiaryIdentifiers{IBAN: iban}}})
			if err == nil {
				ack.note(instance, func() { ack.payins["payin-"+ref] = true })
			}
		case 2:
			if len(toRefund) == 0 {
				continue
			}
			id := toRefund[0]
			toRefund = toRefund[1:]
			if err = authorise(ctx, c, id); err == nil {
				var r *api.Refund
				r, err = c.RequestRefund(ctx, id, api.RefundRequest{Amount: client.Ptr[int64](100), ExternalReference: "rma-" + ref},
					&api.RequestRefundParams{IdempotencyKey: client.Ptr("refund-" + ref)})
				if err == nil {
					ack.note(instance, func() { ack.refunds[r.ID] = id })
				}
			}
			if code := client.StatusCode(err); !synchronous && (code == http.StatusNotFound || code == http.StatusConflict) {
				// The payment, or its authorisation, was answered and then
				// lost with the asynchronous primary.
				ack.mu.Lock()
				ack.lostSeen = append(ack.lostSeen, fmt.Sprintf("%s refused %d: %v", id, code, err))
				ack.mu.Unlock()
				err = nil
			}
		case 3:
			var p *api.Payout
			p, err = c.CreatePayout(ctx, api.PayoutRequest{AccountID: accountID, Amount: 100, Currency: "EUR", PaymentReference: ref,
				Beneficiary: api.PayoutBeneficiary{Name: "Jane Doe", AccountIdentifiers: api.PayoutAccountIdentifiers{IBAN: client.Ptr(payeeIBAN)}}},
				&api.CreatePayoutParams{IdempotencyKey: client.Ptr("payout-" + ref)})
			if err == nil {
				ack.note(instance, func() { ack.payouts[ref] = p.ID })
			}
		}
		if err != nil && ctx.Err() == nil {
			err = fmt.Errorf("client %d, %s: %w", n, ref, err)
			ack.mu.Lock()
			ack.failed = errors.Join(ack.failed, err)
			ack.mu.Unlock()
			return err
		}
	}
	return nil
}

// payeeIBAN is where payouts go.
const payeeIBAN = "DE89370400440532013000"

// authorise makes the sandbox's bank complete payment id. The SDK does
// not retry it (not idempotent): it is tried again here while it meets
// the failover; a 409 says an earlier try did it.
func authorise(ctx context.Context, c *client.Client, id string) error {
	for {
		_, err := c.AuthoriseSandboxPayment(ctx, id, api.SandboxAuthoriseRequest{Outcome: "COMPLETED"})
		var e *client.Error
		switch {
		case err == nil:
			return nil
		case errors.As(err, &e) && e.StatusCode == http.StatusConflict:
			return nil
		case errors.As(err, &e) && e.StatusCode < 500:
			return err
		case ctx.Err() != nil:
			return ctx.Err()
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(50 * time.Millisecond):
		}
	}
}
