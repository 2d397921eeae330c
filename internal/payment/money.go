package payment

import "github.com/bankrail/bankrail/internal/money"

// Money is the payment's amount in its currency. A payment that passed
// validation always has one; otherwise (no amount, unknown currency) it is
// the invalid zero Money, which Valid reports.
func (p Payment) Money() money.Money {
	m, err := money.New(p.Amount(), p.Request.Currency)
	if err != nil || p.Request.Amount == nil {
		return money.Money{}
	}
	return m
}
