package payment

import (
	"context"

	"github.com/bankrail/bankrail/internal/errs"
)

// Also is work another package does in the unit of work of a payment's
// change (the initiation a bank answered, a job that ends with the wait for
// the bank): r are the unit's repositories, c the change written. An error
// undoes the whole unit, the move with it.
type Also func(ctx context.Context, r Repos, c Change) error

// OnMoves registers fn, run in the unit of work of every change that moves
// a payment (after the change's notifications are written). It is called
// while the application is wired, before any request.
func (s *Service) OnMoves(fn Also) { s.onMoves = append(s.onMoves, fn) }

// CheckAtBank is AtBank without the move: the payment of the payer who
// holds token, when it is, or may go, at bank bankID (errs.NotFound
// otherwise), as it is now. A connector calls it before it initiates the
// payment at the bank, then moves it with AtBankAlso.
func (s *Service) CheckAtBank(ctx context.Context, id, token, bankID string) (Payment, error) {
	p, err := s.ForPayer(ctx, id, token)
	if err != nil {
		return Payment{}, err
	}
	if p.Scheme().InstitutionID != bankID && (p.Status != StatusNew || p.Scheme().InstitutionID != "") {
		return Payment{}, errs.NotFoundf("This payment is not at this bank.")
	}
	return p, nil
}

// AtBankAlso is AtBank with also run in the unit of work of the move to
// BANK_REDIRECT. A payment that does not move (it is at the bank already,
// or ended) runs no also: the caller sees that in the payment returned.
func (s *Service) AtBankAlso(ctx context.Context, id, token, bankID string, also Also) (Payment, error) {
	p, err := s.CheckAtBank(ctx, id, token, bankID)
	if err != nil || p.Status != StatusNew {
		return p, err
	}
	return s.apply(ctx, p, Event{BankID: bankID, Outcome: Outcome{StatusBankRedirect}}, also)
}
