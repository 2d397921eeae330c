package payment

import "context"

// UnreachableBankStatus is where a payment ends when the payer picks a bank
// bankrail has no connection to (no connector, docs/checkout.md "Banks and
// connectors"): the payer was on the way to the bank (BANK_REDIRECT) and
// the bank could not be reached, a technical failure on the bank's side of
// bankrail, neither the bank's refusal nor the payer's choice. Gateway
// notifications: PENDING, then FAILED with detailedStatus ERROR_AT_BANK.
const UnreachableBankStatus = StatusErrorAtBank

// BankUnreachable ends the payer's initiation at bank bankID, which bankrail
// cannot reach: the payment moves, through BANK_REDIRECT when it is still
// NEW_PAYMENT, to UnreachableBankStatus in one unit of work with the
// notifications of its moves. The bank is checked as GoToBank checks it;
// a payment whose initiation has ended already is RESOURCE_NOT_MODIFIABLE.
func (s *Service) BankUnreachable(ctx context.Context, id, token, bankID string) (Payment, error) {
	p, err := s.ForPayer(ctx, id, token)
	if err != nil {
		return Payment{}, err
	}
	return s.apply(ctx, p, Event{BankID: bankID, Outcome: Outcome{UnreachableBankStatus}})
}
