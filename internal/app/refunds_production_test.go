package app_test

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/bankrail/bankrail/internal/app"
	"github.com/bankrail/bankrail/internal/bank"
	"github.com/bankrail/bankrail/internal/clock"
	"github.com/bankrail/bankrail/internal/config"
	"github.com/bankrail/bankrail/internal/dbtest"
	"github.com/bankrail/bankrail/internal/errs"
	"github.com/bankrail/bankrail/internal/ledger"
	"github.com/bankrail/bankrail/internal/payment"
	"github.com/bankrail/bankrail/internal/refund"
)

// Production refuses at creation a refund its rail cannot carry: a
// payment received in GBP is a 422 on currency that names SEPA, and
// nothing is held (the payment stays refundable); a EUR payment of the
// same shop is refunded (PENDING until the bank answers). The payments
// are received in the sandbox (production has no mock bank) on the same
// database. (A payer whose IBAN the bank never said is refused on
// paymentId: refund's TestSendable, since no bank of either mode leaves
// a received payment without it.)
func TestProductionRefusesRefundsItCannotSend(t *testing.T) {
	t.Parallel()
	dbtest.EachMigrated(t, func(t *testing.T, db dbtest.DB) {
		base := clock.NewFake(settleEpoch)
		sandbox := settleApp(t, db, config.Sandbox, base, app.Options{})
		gbp, _, err := sandbox.Accounts().EnsureAccount(adminContext(), ledger.AccountSpec{CustomerID: settleShopA, Currency: "GBP", Nickname: "GBP"})
		if err != nil {
			t.Fatal(err)
		}
		eurPaid := receivedPayment(t, sandbox, settleShopA, "settle-a", 1000)
		gbpPaid := receivedUK(t, sandbox, 800)
		if err := sandbox.Close(); err != nil {
			t.Fatal(err)
		}
		prod := settleApp(t, db, config.Production, base, app.Options{})
		amount := int64(300)
		_, err = prod.Refunds().Request(adminContext(), refund.Input{ViewerCustomerID: settleShopA, PaymentID: gbpPaid, Amount: &amount,
			ExternalReference: "gbp"}, func(f refund.Refund) ([]byte, error) { return json.Marshal(f) })
		e, ok := errors.AsType[*errs.Error](err)
		if !ok || e.Code != errs.ValidationFailure || len(e.Fields) != 1 || e.Fields[0].PropertyPath != "currency" ||
			!strings.Contains(e.Fields[0].Message, "SEPA") || !strings.Contains(e.Fields[0].Message, "GBP") {
			t.Fatalf("a GBP refund in production: %#v", err)
		}
		if acct, err := prod.Store().Ledger().Account(adminContext(), settleShopA, gbp.ID); err != nil || acct.Balance.Available != 800 || acct.Balance.Held != 0 {
			t.Fatalf("the GBP account after the refusal: %+v %v", acct.Balance, err)
		}
		if f := requestRefund(t, prod, settleShopA, eurPaid, 300, false); f.Currency != "EUR" {
			t.Fatalf("the EUR refund %+v", f)
		}
	})
}

// receivedUK is a GBP payment of shop A received on its GBP account.
func receivedUK(t *testing.T, a *app.App, amount int64) string {
	t.Helper()
	completed, _ := payment.ParseOutcome("COMPLETED")
	req := payment.CreateRequest{Currency: "GBP", Amount: &amount, PaymentSystem: bank.OpenBankingUK,
		PaymentReference: "uk", OpenBankingUK: &payment.OpenBankingUK{Type: payment.TypeBill}}
	resp, err := a.Payments().Create(adminContext(), payment.CreateInput{Creator: payment.Creator{CustomerID: settleShopA,
		ClientID: "settle-a", UserID: "u"}, Channel: payment.ChannelHosted, Operation: "uk", Request: req, Scenario: completed},
		func(payment.Payment) ([]byte, error) { return []byte("{}"), nil })
	if err != nil {
		t.Fatal(err)
	}
	p, err := a.Payments().Get(adminContext(), settleShopA, resp.ResourceID)
	if err != nil || p.Status != payment.StatusReceived {
		t.Fatalf("payment %+v %v, want RECEIVED", p.Status, err)
	}
	return resp.ResourceID
}
