package app_test

import (
	"context"
	"testing"

	"github.com/bankrail/bankrail/internal/app"
	"github.com/bankrail/bankrail/internal/apptest"
	"github.com/bankrail/bankrail/internal/bank"
	"github.com/bankrail/bankrail/internal/camt/camttest"
	"github.com/bankrail/bankrail/internal/payment"
)

// expectPayment creates a payment of amount EUR of the shop, expected on
// its Connect account in EUR (COMPLETED: the payer paid at the bank).
func expectPayment(t testing.TB, a *app.App, reference string, amount int64) payment.Payment {
	t.Helper()
	completed, _ := payment.ParseOutcome("COMPLETED")
	req := payment.CreateRequest{Currency: "EUR", Amount: &amount, PaymentSystem: bank.OpenBankingEU, PaymentReference: reference,
		OpenBankingEU: &payment.OpenBankingEU{Type: payment.TypeGoods}}
	resp, err := a.Payments().Create(merchantContext(apptest.ShopID), payment.CreateInput{Creator: payment.Creator{CustomerID: apptest.ShopID,
		ClientID: "shop-client", UserID: "test"}, Channel: payment.ChannelHosted, Operation: "test", Request: req, Scenario: completed},
		func(payment.Payment) ([]byte, error) { return nil, nil })
	if err != nil {
		t.Fatal(err)
	}
	return paymentByID(t, a, resp.ResourceID)
}

func paymentByID(t testing.TB, a *app.App, id string) payment.Payment {
	t.Helper()
	p, err := a.Store().Payments().GetByID(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// TestStatementBatchMatchesAsEntryByEntry imports, in one batch (one unit
// of work), credits that compete for the same expected payments, a
// repeated entry and a debit bankrail did not send between them: each
// credit is matched as POST /payin would match it one after the other
// (a payment taken by an earlier credit of the batch is no longer
// expected: the later one is a MANUAL_CREDIT; by id or by its unique
// reference; the amount must be the payment's), each payment notified
// once, the ledger the sum of the credits, and the same file again
// changes nothing. Both engines.
func TestStatementBatchMatchesAsEntryByEntry(t *testing.T) {
	t.Parallel()
	apptest.Each(t, func(t *testing.T, env *apptest.Env) {
		a := env.App
		acct := openEUR(t, a, "batch-match")
		p1, p2, p3 := expectPayment(t, a, "", 2050), expectPayment(t, a, "invoice batch-2", 2050), expectPayment(t, a, "", 2050)
		credit := func(ref, asr string, minor int64) camttest.Entry {
			return camttest.Entry{AcctSvcrRef: asr, Minor: minor, Credit: true, Txs: []camttest.Tx{{Ustrd: []string{ref}}}}
		}
		entries := []camttest.Entry{
			credit(p1.ID, "E1", 2050),              // p1 by id: matched
			credit(p1.ID, "E2", 2050),              // p1 again: taken, a manual credit
			credit(p2.UniqueReference, "E3", 2050), // p2 by its reference: matched
			credit(p1.ID, "E1", 2050),              // E1 repeated: a duplicate
			credit(p3.ID, "E5", 2049),              // p3's amount differs: a manual credit
			{AcctSvcrRef: "E6", Minor: 300, Txs: []camttest.Tx{{Ustrd: []string{"fee"}}}}, // a debit not sent: an exception
			credit(p3.ID, "E7", 2050), // p3 after the exception: matched
		}
		doc := camttest.String(53, 8, "BM", camttest.Stmt{IBAN: acct.IBAN, Entries: entries})
		s := importDoc(t, a, "batch-match", doc)
		if s.Matched != 3 || s.ManualCredits != 2 || s.Duplicates != 1 || s.Exceptions != 1 || len(s.Rejected) != 0 {
			t.Fatalf("summary: matched %d, manual %d, duplicates %d, exceptions %d, rejected %v; want 3, 2, 1, 1, none",
				s.Matched, s.ManualCredits, s.Duplicates, s.Exceptions, s.Rejected)
		}
		write, _ := a.Store().Pools()
		for _, p := range []payment.Payment{p1, p2, p3} {
			if got := paymentByID(t, a, p.ID).Status; got != payment.StatusReceived {
				t.Errorf("payment %s is %s, want RECEIVED", p.ID, got)
			}
			var n int
			if err := write.QueryRow(`SELECT COUNT(*) FROM notifications WHERE payment_id = $1 AND type = 'payment_received'`, p.ID).Scan(&n); err != nil {
				t.Fatal(err)
			}
			if n != 1 {
				t.Errorf("payment %s has %d payment_received notifications, want 1", p.ID, n)
			}
		}
		want := int64(3*2050 + 2050 + 2049)
		if got := booked(t, a, acct.ID); got != want {
			t.Fatalf("ledger %d, want %d", got, want)
		}
		again := importDoc(t, a, "batch-match again", doc)
		if again.Duplicates != len(entries) || again.Matched+again.ManualCredits+again.Exceptions != 0 {
			t.Fatalf("the same file again: %+v", again)
		}
		if got := booked(t, a, acct.ID); got != want {
			t.Fatalf("ledger after the repeat %d, want %d", got, want)
		}
	})
}
