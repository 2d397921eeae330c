package aspsp

import (
	"context"
	"net/url"
	"sync"

	"github.com/bankrail/bankrail/internal/bank"
)

// InProcess is the bank.Connector of the mock banks without NextGenPSD2:
// the sandbox's path before issue 27 (the payer's answer on the mock bank
// page goes straight to the payment: no initiation at a bank, no request to
// one, nothing written there). It is no path of the product: it is
// bankrail-bench's fair baseline of the lifecycle through the connector
// (app.Options.MockBanksInProcess), the payer's same steps without the
// bank's hop.
type InProcess struct {
	// PublicURL is where bankrail serves its pages.
	PublicURL string
	answers   sync.Map // payment id -> bank.Answer, from Record to Answer within the payer's request
}

var _ bank.Connector = (*InProcess)(nil)

// Start implements bank.Connector: the mock bank page of the checkout
// (its aspspPaymentId is the payment's own id).
func (c *InProcess) Start(_ context.Context, a bank.Authorisation) (string, error) {
	return c.PublicURL + "/mock-banks/" + a.Bank.ID + "/authorise/" + a.PaymentID + "?" +
		url.Values{"token": {a.Token}, "aspspPaymentId": {a.PaymentID}}.Encode(), nil
}

// Record is the checkout's AnswerAtMockBank: the button the payer pressed,
// which Answer reads in the same request.
func (c *InProcess) Record(_ context.Context, _, paymentID, outcome, holder string) error {
	c.answers.Store(paymentID, bank.Answer{Outcome: outcome, Holder: holder})
	return nil
}

// Answer implements bank.Connector: the answer Record kept; none (the payer
// came back without pressing a button) is no outcome, which the checkout
// refuses.
func (c *InProcess) Answer(_ context.Context, a bank.Authorisation, _ url.Values) (bank.Answer, error) {
	v, ok := c.answers.LoadAndDelete(a.PaymentID)
	if !ok {
		return bank.Answer{}, nil
	}
	return v.(bank.Answer), nil
}
