package refund

import (
	"context"
	"fmt"

	"github.com/bankrail/bankrail/internal/clock"
	"github.com/bankrail/bankrail/internal/errs"
	"github.com/bankrail/bankrail/internal/ledger"
	"github.com/bankrail/bankrail/internal/transfer"
)

// sendable refuses, with a 422, a refund the production rail cannot carry:
// SEPA credit transfers are in euros, to the payer's IBAN, which the
// payer's bank must have said.
func sendable(currency, payerIBAN string) error {
	if err := transfer.Covers(currency, "currency", "", "", ""); err != nil {
		return err
	}
	if payerIBAN == "" {
		var v errs.Validation
		v.Add(errs.InvalidValue, "paymentId", "The payer's bank did not say the payer's IBAN: a refund by SEPA credit transfer cannot reach the payer.")
		return v.Err()
	}
	return nil
}

// queue queues the transfer of PENDING refund f (its ledger transaction
// tx names the payer) for the next pain.001 file, in one unit of work;
// queuing twice (the job ran again) changes nothing. The refund stays
// PENDING until the bank answers (Transfers).
func (s *Service) queue(ctx context.Context, f Refund, tx ledger.Transaction) error {
	t, err := s.transferOf(ctx, f, tx)
	if err != nil {
		return err
	}
	return s.inTx(ctx, func(r Repos) error { return transfer.Queue(ctx, r, t) })
}

// Transfers is the owner of the refunds' transfers: the bank's rejection
// ends a PENDING refund REJECTED, its booked debit CONFIRMED or, for a
// return, FAILED; the hold is released or leaves in one ledger entry with
// the refund's notification, in the import's unit of work. A refund no
// longer PENDING is left as it is.
func (s *Service) Transfers() transfer.Owner {
	return transfer.Ends[Status]{RejectedTo: Rejected, BookedTo: Confirmed, ReturnedTo: Failed, End: s.endTransfer}
}

// endTransfer moves t's refund, if still PENDING, to to.
func (s *Service) endTransfer(ctx context.Context, r transfer.Repos, t transfer.Transfer, to Status) error {
	rr, ok := r.(Repos)
	if !ok {
		return fmt.Errorf("refund: the unit of work %T has no refund repositories", r)
	}
	f, err := rr.Refunds().Get(ctx, t.CustomerID, t.OwnerID)
	if err != nil {
		return err
	}
	if f.Status != Pending {
		return nil
	}
	tx, err := rr.Ledger().Transaction(ctx, f.CustomerID, f.TransactionID)
	if err != nil {
		return err
	}
	return s.settle(ctx, rr, f, tx, to)
}

// FileBank is the sandbox's bank of transfers (transfer.MockBank).
type FileBank interface {
	Exchange(ctx context.Context, r transfer.Repos, t transfer.Transfer, o transfer.MockOutcome, reason string) error
}

// transferOf is the transfer of refund f (its ledger transaction tx names
// the payer).
func (s *Service) transferOf(ctx context.Context, f Refund, tx ledger.Transaction) (transfer.Transfer, error) {
	acct, err := s.accounts.Account(ctx, f.CustomerID, f.AccountID)
	if err != nil {
		return transfer.Transfer{}, err
	}
	now, err := clock.UnitTime(ctx, s.clock, f.CustomerID)
	if err != nil {
		return transfer.Transfer{}, err
	}
	return transfer.Transfer{ID: f.TransactionID, OwnerID: f.ID, Kind: transfer.KindRefund,
		CustomerID: f.CustomerID, AccountID: f.AccountID, DebtorIBAN: acct.IBAN, DebtorName: acct.Nickname,
		CreditorName: tx.Counterparty.Name, CreditorIBAN: tx.Counterparty.IBAN, Amount: f.Amount, Currency: f.Currency,
		Remittance: f.ExternalReference, CreatedAt: now}, nil
}

// viaMockBank sends refund f, which the sandbox's bank answered to, as a
// pain.001 file through the mock bank, whose pain.002 (and booked debit)
// settle it; false when SEPA cannot carry it (no payer IBAN, not EUR):
// the answer then settles it directly.
func (s *Service) viaMockBank(ctx context.Context, f Refund, tx ledger.Transaction, to Status, reason string) (bool, error) {
	t, err := s.transferOf(ctx, f, tx)
	if err != nil {
		return false, err
	}
	if t.Sendable() != nil {
		return false, nil
	}
	o := transfer.MockBook
	switch to {
	case Failed:
		o = transfer.MockFail
	case Rejected:
		o = transfer.MockReject
	}
	return true, s.inTx(ctx, func(r Repos) error { return s.mock.Exchange(ctx, r, t, o, reason) })
}
