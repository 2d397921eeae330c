package mandate

import (
	"context"
	"fmt"

	"github.com/bankrail/bankrail/internal/bank"
	"github.com/bankrail/bankrail/internal/payment"
)

// Payments adapts the Service to payment.Mandates: POST /payments with
// mandateId runs the mandate's rules (Use) inside the payment's unit of
// work, whose repositories are the store's transaction (it serves both
// domains' Repos).
type Payments struct{ Service *Service }

var _ payment.Mandates = Payments{}

// UseForPayment runs Use in the payment's unit of work r and returns what
// the payment takes from the mandate.
func (p Payments) UseForPayment(ctx context.Context, r payment.Repos, customerID string, u payment.MandateUse) (payment.MandateTerms, error) {
	repos, ok := r.(Repos)
	if !ok {
		return payment.MandateTerms{}, fmt.Errorf("mandate payment: the unit of work %T has no mandate repositories", r)
	}
	m, err := p.Service.Use(ctx, repos, customerID, PaymentUse{MandateID: u.MandateID, Amount: u.Amount,
		Currency: u.Currency, PaymentSystem: string(u.PaymentSystem)})
	if err != nil {
		return payment.MandateTerms{}, err
	}
	ai := m.Payer.AccountIdentifiers
	account := ai.AccountNumber
	if ai.BSB != "" { // PayTo: the BSB and account number, as Australian statements write them
		account = ai.BSB + "-" + ai.AccountNumber
	}
	return payment.MandateTerms{MandateID: m.ID, CustomerID: m.CustomerID, Currency: m.Currency, PaymentSystem: bank.PaymentSystem(m.Type.PaymentSystem()),
		Payer: payment.Sender{Name: m.Payer.Name, IBAN: ai.IBAN, SortCode: ai.SortCode, AccountNumber: account}}, nil
}
