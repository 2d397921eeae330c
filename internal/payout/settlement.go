package payout

import (
	"context"
	"errors"
	"time"

	"github.com/bankrail/bankrail/internal/errs"
	"github.com/bankrail/bankrail/internal/ledger"
)

// settleBatch is how many RECEIVED payments one read brings.
const settleBatch = 100

// UseSettlement makes the service serve SETTLEMENT payouts: st moves the
// payments they settle. Without it a SETTLEMENT payout cannot complete.
func (s *Service) UseSettlement(st Settler) { s.settler = st }

// settlePayments is what a SETTLEMENT payout p does as it completes, in its
// unit of work: the RECEIVED payments of its account move to SETTLED,
// oldest first, as far as p's amount covers them (the first payment that
// no longer fits ends it: later, smaller ones are not picked out). Each
// move writes the payment's status event, its link to p and whatever the
// payment's status machine notifies (nothing: no notification names
// SETTLED; payout_confirmed is p's). The money moved with p's own
// postings: the payments' funds were already on the account.
func (s *Service) settlePayments(ctx context.Context, r Repos, p Payout, now time.Time) error {
	if s.settler == nil {
		return errors.New("payout: SETTLEMENT payouts need UseSettlement")
	}
	left := p.Amount
	for {
		batch, err := r.Payouts().Received(ctx, p.AccountID, settleBatch)
		if err != nil {
			return err
		}
		for _, pm := range batch {
			if pm.Amount() > left {
				return nil
			}
			c, err := s.settler.Settled(pm, now)
			if err != nil {
				return err
			}
			if err := r.Payments().Move(ctx, c); err != nil {
				return err
			}
			if err := r.Payouts().Settled(ctx, p.ID, pm.ID, pm.Amount(), now); err != nil {
				return err
			}
			if err := r.Outbox().Enqueue(ctx, now, c.Messages...); err != nil {
				return err
			}
			left -= pm.Amount()
		}
		if len(batch) < settleBatch {
			return nil
		}
	}
}

// withSettlements fills the Settled of the SETTLEMENT payouts among ps
// (an empty list for one that settled nothing yet).
func (s *Service) withSettlements(ctx context.Context, ps []Payout) error {
	var ids []string
	for _, p := range ps {
		if p.Type == TypeSettlement {
			ids = append(ids, p.ID)
		}
	}
	if len(ids) == 0 {
		return nil
	}
	settled, err := s.payouts.SettlementsOf(ctx, ids)
	if err != nil {
		return err
	}
	for i, p := range ps {
		if p.Type == TypeSettlement {
			ps[i].Settled = append([]Settlement{}, settled[p.ID]...)
		}
	}
	return nil
}

// Booked ends payout tx (its ledger transaction, PROCESSING) as the bank's
// statement reports it, inside the caller's unit of work r at now: the
// bank's debit completes it (returned false), a returned transfer fails it
// (FAILED, its hold back on the account); payout_confirmed or
// payout_failed is written. A payout still CREATED (undecided) is moved
// too: the bank has spoken. The statement importer calls it.
func (s *Service) Booked(ctx context.Context, r Repos, tx ledger.Transaction, returned bool, now time.Time) error {
	p, err := r.Payouts().Get(ctx, tx.CustomerID, tx.ID)
	if err != nil {
		return err
	}
	if p.Status.Final() {
		return errs.E(errs.NotModifiable, "The payout %s is already %s.", p.ID, p.Status)
	}
	to := Completed
	if returned {
		to = Failed
	}
	return s.settle(ctx, r, p, p.Status, to, now)
}
