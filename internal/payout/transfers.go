package payout

import (
	"context"
	"fmt"
	"time"

	"github.com/bankrail/bankrail/internal/clock"
	"github.com/bankrail/bankrail/internal/transfer"
)

// MockBank is the sandbox's bank of transfers (transfer.MockBank).
type MockBank interface {
	Exchange(ctx context.Context, r transfer.Repos, t transfer.Transfer, o transfer.MockOutcome, reason string) error
}

// UseMockBank makes the sandbox send its payouts through m: as pain.001
// files answered by pain.002 (GET /sandbox/bank-files). Without it, or
// for a payout SEPA cannot carry (a UK account, a currency other than
// EUR), the sandbox decides the payout directly.
func (s *Service) UseMockBank(m MockBank) { s.mock = m }

// transferOf is p's transfer out of its account.
func (s *Service) transferOf(ctx context.Context, r Repos, p Payout, now time.Time) (transfer.Transfer, error) {
	acct, err := r.Ledger().Account(ctx, p.CustomerID, p.AccountID)
	if err != nil {
		return transfer.Transfer{}, err
	}
	return transfer.Transfer{ID: p.ID, OwnerID: p.ID, Kind: transfer.KindPayout, CustomerID: p.CustomerID, AccountID: p.AccountID,
		DebtorIBAN: acct.IBAN, DebtorName: acct.Nickname, CreditorName: p.Beneficiary.Name, CreditorIBAN: p.Beneficiary.IBAN,
		Amount: p.Amount, Currency: p.Currency, Remittance: p.PaymentReference, CreatedAt: now}, nil
}

// queue queues p's transfer (production) in its unit of work r: the next
// export writes it into a pain.001 file.
func (s *Service) queue(ctx context.Context, r Repos, p Payout, now time.Time) error {
	t, err := s.transferOf(ctx, r, p, now)
	if err != nil {
		return err
	}
	return transfer.Queue(ctx, r, t)
}

// decide ends a sandbox payout p that goes on by its outcome: through the
// mock bank's files when it can carry it, else directly.
func (s *Service) decide(ctx context.Context, r Repos, p Payout, now time.Time) error {
	if s.mock != nil {
		t, err := s.transferOf(ctx, r, p, now)
		if err != nil {
			return err
		}
		if t.Sendable() == nil {
			o, reason := transfer.MockBook, ""
			switch p.Outcome {
			case Failed:
				o, reason = transfer.MockFail, fmt.Sprintf("the sandbox fails payouts of %d", FailingAmount)
			case Rejected:
				o, reason = transfer.MockReject, "the sandbox rejects this payout (amount "+fmt.Sprint(RejectedAmount)+" or scenario "+string(ScenarioRejected)+")"
			}
			return s.mock.Exchange(ctx, r, t, o, reason)
		}
	}
	return s.settle(ctx, r, p, Processing, p.Outcome, now)
}

// Transfers is the owner of the payouts' transfers: the bank's rejection
// ends a PROCESSING payout REJECTED, its booked debit COMPLETED (a
// SETTLEMENT payout settling its payments) or, for a return, FAILED; the
// hold is released or leaves in one ledger entry and payout_confirmed or
// payout_failed is written, in the import's unit of work. A payout no
// longer PROCESSING is left as it is.
func (s *Service) Transfers() transfer.Owner {
	return transfer.Ends[Status]{RejectedTo: Rejected, BookedTo: Completed, ReturnedTo: Failed, End: s.endTransfer}
}

// endTransfer moves t's payout, if still PROCESSING, to to.
func (s *Service) endTransfer(ctx context.Context, r transfer.Repos, t transfer.Transfer, to Status) error {
	pr, ok := r.(Repos)
	if !ok {
		return fmt.Errorf("payout: the unit of work %T has no payout repositories", r)
	}
	p, err := pr.Payouts().Get(ctx, t.CustomerID, t.OwnerID)
	if err != nil {
		return err
	}
	if p.Status != Processing {
		return nil
	}
	now, err := clock.UnitTime(ctx, s.clock, p.CustomerID)
	if err != nil {
		return err
	}
	return s.settle(ctx, pr, p, Processing, to, now)
}
