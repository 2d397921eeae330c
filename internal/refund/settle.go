package refund

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/bankrail/bankrail/internal/bank"
	"github.com/bankrail/bankrail/internal/clock"
	"github.com/bankrail/bankrail/internal/errs"
	"github.com/bankrail/bankrail/internal/ids"
	"github.com/bankrail/bankrail/internal/job"
	"github.com/bankrail/bankrail/internal/ledger"
)

// KindSettle is the job that settles a refund: it is enqueued in the
// refund's own transaction, so it exists if and only if the refund does.
const KindSettle = "refund.settle"

// SendAttempts is how often the settlement job sends a refund to a bank
// that gives no answer (an error, a timeout) before it gives up: with the
// job's backoff (1 s, 2 s, 4 s, ... capped at an hour) about a day. A bank
// that answers PENDING is asked again without using up these attempts.
const SendAttempts = 30

// SettleArgs are the settlement job's arguments.
type SettleArgs struct {
	Refund   string `json:"refund"`
	Customer string `json:"customer"`           // the refund's customer (to read it, and its clock)
	Scenario string `json:"scenario,omitempty"` // sandbox: REFUND_REJECTED, for the mock bank
}

// errNoBank is why a refund fails where no bank connector is wired.
var errNoBank = errors.New("no bank connector is wired to send refunds")

// settleJob is the job that settles f, due at at on the clock of tenant.
// Its unique key keeps one waiting job per refund (see askAgain).
func settleJob(f Refund, tenant, scenario string, at time.Time) job.Job {
	j, _ := job.New(KindSettle, SettleArgs{Refund: f.ID, Customer: f.CustomerID, Scenario: scenario}, at) // plain strings always encode
	j.TenantID, j.UniqueKey, j.MaxAttempts = tenant, KindSettle+":"+f.ID, SendAttempts
	return j
}

// Settle is the settlement job's handler. It sends a PENDING refund through
// the bank (again, if an earlier attempt's answer was lost: the bank
// takes a refund once by its id) and applies the bank's final answer in
// one transaction: the refund's status, the ledger's entry (HELD ->
// EXTERNAL for CONFIRMED, HELD -> AVAILABLE for FAILED and REJECTED) and its
// notification, all conditional on the refund being still PENDING, so
// that a job run twice (its lease ran out, an instance died after the
// commit) moves it once. A PENDING answer schedules another job at the
// time the bank names; an error is retried with the job's backoff.
func (s *Service) Settle(ctx context.Context, a SettleArgs) error {
	f, err := s.refunds.Get(ctx, a.Customer, a.Refund)
	if errs.Is(err, errs.NotFound) {
		return job.Cancel(err)
	} else if err != nil {
		return err
	}
	if f.Status != Pending {
		return nil // settled by an earlier attempt
	}
	tx, err := s.accounts.Transaction(ctx, f.CustomerID, f.TransactionID)
	if err != nil {
		return err
	}
	if s.files {
		return s.queue(ctx, f, tx)
	}
	to, reason := Failed, errNoBank.Error()
	if s.bank != nil {
		ans, err := s.send(ctx, f, tx, a.Scenario)
		if err != nil {
			return fmt.Errorf("send refund %s to the bank: %w", f.ID, err)
		}
		if !ans.State.Final() {
			return s.askAgain(ctx, f, a, ans.AskAgainAt)
		}
		to, reason = statusOf(ans.State), ans.Reason
		if s.mock != nil {
			if sent, err := s.viaMockBank(ctx, f, tx, to, reason); sent || err != nil {
				return err
			}
		}
	}
	err = s.inTx(ctx, func(r Repos) error { return s.settle(ctx, r, f, tx, to) })
	if errs.Is(err, errs.Conflict) || errs.Is(err, errs.NotFound) {
		// Another attempt moved it meanwhile: done if it is no longer PENDING.
		if g, gerr := s.refunds.Get(ctx, a.Customer, a.Refund); gerr == nil && g.Status != Pending {
			return nil
		}
	}
	if err == nil && to != Confirmed {
		s.log.Info("refund not sent", "refund", f.ID, "status", to, "reason", reason)
	}
	return err
}

// send asks the bank to send f (its ledger transaction tx names the
// payer).
func (s *Service) send(ctx context.Context, f Refund, tx ledger.Transaction, scenario string) (bank.TransferAnswer, error) {
	acct, err := s.accounts.Account(ctx, f.CustomerID, f.AccountID)
	if err != nil {
		return bank.TransferAnswer{}, err
	}
	return s.bank.Send(ctx, bank.Transfer{ID: f.ID, Kind: bank.TransferRefund, CustomerID: f.CustomerID, AccountID: f.AccountID,
		AccountIBAN: acct.IBAN, Amount: f.Amount, Currency: f.Currency,
		Beneficiary: bank.Party{Name: tx.Counterparty.Name, IBAN: tx.Counterparty.IBAN},
		Reference:   f.ExternalReference, PaymentID: f.PaymentID, RequestedAt: f.CreatedAt, Scenario: scenario})
}

// askAgain schedules the next settlement job of f at at on its tenant's
// clock (at once if that time has passed, a second from now when the bank
// named none). The running job then ends: a pending bank is not a failure,
// and asking again does not use up its attempts.
func (s *Service) askAgain(ctx context.Context, f Refund, a SettleArgs, at time.Time) error {
	tenant, now, err := clock.UnitTenant(ctx, s.clock, f.CustomerID)
	if err != nil {
		return err
	}
	switch {
	case at.IsZero():
		at = now.Add(time.Second)
	case at.Before(now):
		at = now
	}
	return s.inTx(ctx, func(r Repos) error {
		return r.Jobs().Enqueue(ctx, settleJob(f, tenant, a.Scenario, at.UTC().Truncate(time.Microsecond)))
	})
}

// statusOf is the refund status of a bank's final answer.
func statusOf(st bank.TransferState) Status {
	switch st {
	case bank.TransferCompleted:
		return Confirmed
	case bank.TransferRejected:
		return Rejected
	}
	return Failed
}

// settle ends the PENDING refund f (its PROCESSING ledger transaction tx)
// in status to: the held money leaves (CONFIRMED) or comes back to the
// account (FAILED, REJECTED), and the refund's notification is written. A
// refund that is no longer PENDING is NOT_FOUND (or the ledger's CONFLICT)
// and nothing is written. The refund's row goes first (the guard against a
// second settlement, which also serialises the settlements of one payment:
// Repository.Settle) and the ledger's move last, as in create: its balance
// UPDATE holds the account's row until the commit.
func (s *Service) settle(ctx context.Context, r Repos, f Refund, tx ledger.Transaction, to Status) error {
	txTo := ledger.TxCompleted
	switch to {
	case Failed:
		txTo = ledger.TxFailed
	case Rejected:
		txTo = ledger.TxRejected
	}
	now, err := clock.UnitTime(ctx, s.clock, f.CustomerID)
	if err != nil {
		return err
	}
	moved, e, err := ledger.Settle(tx, txTo, ids.New(), now)
	if err != nil {
		return errs.Wrap(errs.Conflict, err, "The refund's transaction is no longer PROCESSING.")
	}
	f.Status, f.UpdatedAt = to, now
	if err := r.Refunds().Settle(ctx, f); err != nil {
		return err
	}
	msg, err := Notification(f)
	if err != nil {
		return err
	}
	if err := r.Outbox().Enqueue(ctx, now, msg); err != nil {
		return err
	}
	return r.Ledger().Move(ctx, moved, ledger.TxProcessing, e)
}

// Booked ends the PENDING refund whose ledger transaction is tx as the
// bank's statement reports it, inside the caller's unit of work r: the
// bank's debit confirms it (returned false), a transfer the payer's bank
// returned fails it (FAILED, its amount back on the account and on the
// payment's refundable total, as a return booked through its transfer
// does: docs/decisions.md, "One booking of the bank's debits"); its
// notification is written. The statement importer calls it for a refund
// that has no transfer row.
func (s *Service) Booked(ctx context.Context, r Repos, tx ledger.Transaction, returned bool) error {
	f, err := r.Refunds().OfTransaction(ctx, tx.CustomerID, tx.ID)
	if err != nil {
		return err
	}
	if f.Status != Pending {
		return errs.E(errs.NotModifiable, "The refund %s is already %s.", f.ID, f.Status)
	}
	to := Confirmed
	if returned {
		to = Failed
	}
	return s.settle(ctx, r, f, tx, to)
}
