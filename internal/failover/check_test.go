//go:build failover

package failover_test

import (
	"context"
	"testing"
	"time"

	"github.com/bankrail/bankrail/api"
	"github.com/bankrail/bankrail/client"
	"github.com/bankrail/bankrail/internal/app"
	"github.com/bankrail/bankrail/internal/identity"
	"github.com/bankrail/bankrail/internal/ledger"
	"github.com/bankrail/bankrail/internal/notify"
)

// check asserts what the failovers kept: every answered create there
// once, the books balanced, every notification delivered. With
// asynchronous replication an answered write may be lost: it is returned
// (and fails the test when synchronous).
func check(t *testing.T, a *app.App, c *client.Client, rc *receiver, ack *acked, synchronous bool) (lost []string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	missing := func(what string) {
		lost = append(lost, what)
		if synchronous {
			t.Errorf("answered 2xx but not there: %s", what)
		}
	}
	// once checks that each answered reference is there exactly once.
	once := func(kind string, answered map[string]string, there map[string]int) {
		for ref := range answered {
			switch there[ref] {
			case 0:
				missing(kind + " " + ref)
			case 1:
			default:
				t.Errorf("%s %s is there %d times", kind, ref, there[ref])
			}
		}
	}
	refs := map[string]int{}
	for p, err := range c.AllPayments(ctx, &api.ListPaymentsParams{Limit: client.Ptr[int64](100)}) {
		if err != nil {
			t.Fatal(err)
		}
		refs[p.PaymentReference]++
	}
	once("payment", ack.payments, refs)
	payouts := map[string]int{}
	for p, err := range c.AllPayouts(ctx, &api.ListPayoutsParams{Limit: client.Ptr[int64](100)}) {
		if err != nil {
			t.Fatal(err)
		}
		payouts[p.PaymentReference]++
	}
	once("payout", ack.payouts, payouts)
	for id, payment := range ack.refunds {
		rs, err := c.ListPaymentRefunds(ctx, payment)
		if err != nil && client.StatusCode(err) != 404 {
			t.Fatal(err)
		}
		found := false
		for _, r := range rs {
			found = found || r.ID == id
		}
		if !found {
			missing("refund " + id)
		}
		if len(rs) > 1 {
			t.Errorf("payment %s has %d refunds, want the one", payment, len(rs))
		}
	}
	admin := identity.WithPrincipal(ctx, identity.Principal{Role: identity.RoleAdmin})
	for ext := range ack.payins {
		if _, err := a.Store().Ledger().TransactionByExternalID(admin, accountID, ext); err != nil {
			missing("payin " + ext)
		}
	}
	r, err := ledger.VerifyBooks(admin, a.Store().Books(), time.Now())
	if err != nil {
		t.Fatal(err)
	}
	if !r.Balanced() {
		t.Errorf("the books do not balance: %+v", r)
	}
	// Every notification the database holds reaches the merchant (a
	// delivery claimed on the dead server is retried once its lease ends).
	var undelivered []string
	for deadline := time.Now().Add(90 * time.Second); ; time.Sleep(200 * time.Millisecond) {
		page, err := a.Store().ListNotifications(admin, customerID, notify.Filter{Page: 1, Limit: 100_000})
		if err != nil {
			t.Fatal(err)
		}
		undelivered = undelivered[:0]
		for _, n := range page.Items {
			if !rc.got(n.ID) {
				undelivered = append(undelivered, n.ID+" "+n.Type)
			}
		}
		if len(undelivered) == 0 {
			t.Logf("all %d notifications delivered", len(page.Items))
			break
		}
		if time.Now().After(deadline) {
			t.Errorf("%d of %d notifications not delivered 90 s after the stream: %.5v", len(undelivered), len(page.Items), undelivered)
			break
		}
	}
	return lost
}
