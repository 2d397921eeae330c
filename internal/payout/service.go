package payout

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"strings"
	"time"

	"github.com/bankrail/bankrail/internal/clock"
	"github.com/bankrail/bankrail/internal/errs"
	"github.com/bankrail/bankrail/internal/idempotency"
	"github.com/bankrail/bankrail/internal/identity"
	"github.com/bankrail/bankrail/internal/ids"
	"github.com/bankrail/bankrail/internal/ledger"
	"github.com/bankrail/bankrail/internal/money"
	"github.com/bankrail/bankrail/internal/paging"
	"github.com/bankrail/bankrail/internal/transfer"
	"github.com/google/uuid"
)

// Service creates, decides and reads payouts.
type Service struct {
	payouts Repository // reads
	inTx    Transactor
	keys    *idempotency.Guard
	clock   clock.Clock
	sandbox bool
	log     *slog.Logger
	settler Settler  // moves the payments a SETTLEMENT payout settles
	mock    MockBank // the sandbox's bank of transfers (nil: payouts are decided directly)
}

// NewService returns the payout service. In the sandbox (sandbox true) a
// payout that goes on is decided at once by its amount and scenario; in
// production it stays PROCESSING (no bank connector yet).
func NewService(payouts Repository, inTx Transactor, keys *idempotency.Guard, clk clock.Clock, sandbox bool, log *slog.Logger) *Service {
	return &Service{payouts: payouts, inTx: inTx, keys: keys, clock: clk, sandbox: sandbox, log: log}
}

// Response is the answer to a creation as the client got it (the CREATED
// payout), kept under the Idempotency-Key for replays.
type Response = idempotency.Response

// Create validates in, holds the amount on the account, runs the account
// holder verification and, when it is a MATCH, lets the payout go on: all in
// one unit of work with the ledger postings and the notifications. render
// gives the body of the CREATED payout.
func (s *Service) Create(ctx context.Context, in Input, render func(Payout) ([]byte, error)) (Response, error) {
	if _, err := identity.Authorize(ctx, identity.PayoutCreate); err != nil {
		return Response{}, err
	}
	if err := in.validate(); err != nil {
		return Response{}, err
	}
	b := in.Beneficiary
	key := idempotency.Request{CustomerID: in.ViewerCustomerID, Key: in.IdempotencyKey, Noun: "payout",
		Fingerprint: idempotency.Fingerprint("POST /payouts", []byte(in.AccountID), []byte(strconv.FormatInt(in.Amount, 10)),
			[]byte(in.Currency), []byte(in.PaymentReference), []byte(in.InternalReference), []byte(in.Type),
			[]byte(b.Name), []byte(b.IBAN), []byte(b.SortCode), []byte(b.AccountNumber), []byte(in.Scenario))}
	return idempotency.Create(ctx, s.keys, key, s.retrying, func(r Repos) (idempotency.Result, error) {
		p, v, err := s.create(ctx, r, in)
		if err != nil {
			return idempotency.Result{}, err
		}
		body, err := render(p)
		if err != nil {
			return idempotency.Result{}, err
		}
		if !v.Holds() {
			if err := s.goOn(ctx, r, p, v.ExecutedAt); err != nil {
				return idempotency.Result{}, err
			}
		}
		return idempotency.Result{ResourceID: p.ID, Body: body}, nil
	})
}

// tooHigh is the 422 of an amount above the available balance.
func tooHigh(available string) error {
	var v errs.Validation
	v.Add(errs.TooHigh, "amount", "amount must be at most the account's available balance%s.", available)
	return v.Err()
}

// outcomeOf is the sandbox's final status of a payout that goes on: 1570
// fails, 2570 and the scenario PAYOUT_REJECTED are rejected by the provider.
func outcomeOf(amount int64, sc Scenario) Status {
	switch {
	case amount == FailingAmount:
		return Failed
	case amount == RejectedAmount || sc == ScenarioRejected:
		return Rejected
	}
	return Completed
}

// create writes the CREATED payout, its hold and its verification with the
// verification's notification.
func (s *Service) create(ctx context.Context, r Repos, in Input) (Payout, Verification, error) {
	acct, err := r.Ledger().Account(ctx, in.ViewerCustomerID, in.AccountID) // another customer's is 404 like an unknown one
	if err != nil {
		return Payout{}, Verification{}, err
	}
	var v errs.Validation
	if acct.Currency != in.Currency {
		v.Add(errs.InvalidValue, "currency", "currency must be %s, the account's currency.", acct.Currency)
	}
	if acct.Status != ledger.AccountActive {
		v.Add(errs.InvalidValue, "accountId", "The account is %s; only an ACTIVE account pays out.", acct.Status)
	}
	if err := v.Err(); err != nil {
		return Payout{}, Verification{}, err
	}
	if !s.sandbox { // production pays out by SEPA credit transfer (pain.001 files): refuse what it cannot carry now
		b := in.Beneficiary
		if err := transfer.Covers(in.Currency, "currency", b.IBAN, b.SortCode+b.AccountNumber, "beneficiary.accountIdentifiers.iban"); err != nil {
			return Payout{}, Verification{}, err
		}
	}
	if in.Amount > acct.Balance.Available {
		return Payout{}, Verification{}, tooHigh(fmt.Sprintf(" (%d)", acct.Balance.Available))
	}
	m, err := money.New(in.Amount, acct.Currency)
	if err != nil {
		return Payout{}, Verification{}, err
	}
	now, err := clock.UnitTime(ctx, s.clock, acct.CustomerID)
	if err != nil {
		return Payout{}, Verification{}, err
	}
	p := Payout{ID: ids.New(), AccountID: acct.ID, CustomerID: acct.CustomerID, ClientID: in.ClientID, Type: in.Type,
		Amount: in.Amount, Currency: acct.Currency, PaymentReference: in.PaymentReference, InternalReference: in.InternalReference,
		Beneficiary: in.Beneficiary, Status: Created, Outcome: outcomeOf(in.Amount, in.Scenario), CreatedAt: now, UpdatedAt: now}
	tx := ledger.Transaction{ID: p.ID, AccountID: acct.ID, CustomerID: acct.CustomerID, Type: ledger.TypePayout,
		Operation: ledger.Outgoing, Status: ledger.TxProcessing, Amount: m, Reference: p.Reference(),
		Counterparty: p.Counterparty(), CreatedAt: now, UpdatedAt: now}
	e, err := ledger.Open(tx, ids.New())
	if err != nil {
		return Payout{}, Verification{}, err
	}
	if err := r.Ledger().Record(ctx, tx, e); errors.Is(err, ledger.ErrInsufficientFunds) {
		return Payout{}, Verification{}, tooHigh("")
	} else if err != nil {
		return Payout{}, Verification{}, err
	}
	returned := MockHolder(in.Beneficiary, in.Scenario)
	ver := Verification{ID: uuid.NewString(), TransactionID: p.ID, CustomerID: p.CustomerID, Status: VerificationCompleted,
		Requested: in.Beneficiary.Name, Returned: returned, Result: Classify(in.Beneficiary.Name, returned),
		ExecutedAt: now, ExpiresAt: now.Add(ExpiresAfter)}
	p.VerificationID = ver.ID
	if err := r.Payouts().Create(ctx, p, ver); err != nil {
		return Payout{}, Verification{}, err
	}
	msg, err := verificationNotification(p, ver)
	if err != nil {
		return Payout{}, Verification{}, err
	}
	if err := r.Outbox().Enqueue(ctx, now, msg); err != nil {
		return Payout{}, Verification{}, err
	}
	return p, ver, nil
}

// goOn moves a CREATED payout to PROCESSING and queues its transfer for
// the next pain.001 file (production; the bank's answers end it, see
// Transfers), or in the sandbox decides it at once by its outcome.
func (s *Service) goOn(ctx context.Context, r Repos, p Payout, now time.Time) error {
	p.Status, p.UpdatedAt = Processing, now
	if err := r.Payouts().Move(ctx, p, Created); err != nil {
		return err
	}
	if !s.sandbox {
		return s.queue(ctx, r, p, now)
	}
	return s.decide(ctx, r, p, now)
}

// settle ends payout p (in status from) in status to: the held money leaves
// (COMPLETED) or comes back (FAILED, REJECTED), and payout_confirmed or
// payout_failed is written.
func (s *Service) settle(ctx context.Context, r Repos, p Payout, from, to Status, now time.Time) error {
	tx, err := r.Ledger().Transaction(ctx, p.CustomerID, p.ID)
	if err != nil {
		return err
	}
	moved, e, err := ledger.Settle(tx, ledger.TxStatus(to), ids.New(), now)
	if err != nil {
		return err
	}
	if err := r.Ledger().Move(ctx, moved, ledger.TxProcessing, e); err != nil {
		return err
	}
	p.Status, p.UpdatedAt = to, now
	if err := r.Payouts().Move(ctx, p, from); err != nil {
		return err
	}
	if to == Completed && p.Type == TypeSettlement {
		if err := s.settlePayments(ctx, r, p, now); err != nil {
			return err
		}
	}
	msg, err := payoutNotification(p)
	if err != nil {
		return err
	}
	return r.Outbox().Enqueue(ctx, now, msg)
}

// Decide approves (approve true) or rejects the held payout of
// verification id, as performer: approved, the payout goes on; rejected,
// it is REJECTED and its hold released. A second decision, or one on a
// MATCH or an expired verification, is RESOURCE_NOT_MODIFIABLE.
func (s *Service) Decide(ctx context.Context, viewerCustomerID, id string, approve bool, performer Performer) (Verification, error) {
	if _, err := identity.Authorize(ctx, identity.PayoutVerify); err != nil {
		return Verification{}, err
	}
	if !ids.IsUUID(id) {
		return Verification{}, errs.E(errs.MalformedPathParam, "The account holder verification id %q is not a uuid.", id)
	}
	var out Verification
	err := s.retrying(ctx, func(r Repos) error {
		v, err := r.Payouts().Verification(ctx, viewerCustomerID, strings.ToLower(id))
		if err != nil {
			return err
		}
		if v.Decision != nil || !v.Holds() {
			return errs.E(errs.NotModifiable, "The account holder verification needs no decision (result %s) or has one already.", v.Result)
		}
		p, err := r.Payouts().Get(ctx, v.CustomerID, v.TransactionID)
		if err != nil {
			return err
		}
		if p.Status != Created {
			return errs.E(errs.NotModifiable, "The payout is %s; its verification can no longer be decided.", p.Status)
		}
		now, err := clock.UnitTime(ctx, s.clock, v.CustomerID)
		if err != nil {
			return err
		}
		d := Decision{Performer: performer, Type: Approved, CreatedAt: now}
		if !approve {
			d.Type = RejectedByOne
		}
		v.Decision = &d
		if err := r.Payouts().Decide(ctx, v); err != nil {
			return err
		}
		out = v
		if approve {
			return s.goOn(ctx, r, p, now)
		}
		return s.settle(ctx, r, p, Created, Rejected, now)
	})
	if err != nil {
		return Verification{}, err
	}
	return out, nil
}

// RunExpiry rejects the held payouts whose verification has waited
// ExpiresAfter without a decision on its tenant's clock; it returns how
// many. The decision stays null. Run by a periodic worker.
func (s *Service) RunExpiry(ctx context.Context) (int, error) {
	due, err := s.payouts.DueVerifications(ctx, clock.Base(s.clock), 100) // basetime: a due scan, the store adds each tenant's offset
	if err != nil {
		return 0, err
	}
	n := 0
	for _, v := range due {
		err := s.inTx(ctx, func(r Repos) error {
			p, err := r.Payouts().Get(ctx, v.CustomerID, v.TransactionID)
			if err != nil {
				return err
			}
			now, err := clock.UnitTime(ctx, s.clock, v.CustomerID)
			if err != nil {
				return err
			}
			if p.Status != Created || now.Before(v.ExpiresAt) {
				return nil // decided meanwhile
			}
			return s.settle(ctx, r, p, Created, Rejected, now)
		})
		if errs.Is(err, errs.Conflict) {
			continue // another instance took it
		} else if err != nil {
			return n, fmt.Errorf("expire the payout of verification %s: %w", v.ID, err)
		}
		n++
	}
	return n, nil
}

// Get reads a payout viewerCustomerID may see (a SETTLEMENT payout with
// the payments it settled).
func (s *Service) Get(ctx context.Context, viewerCustomerID, id string) (Payout, error) {
	if _, err := identity.Authorize(ctx, identity.PayoutRead); err != nil {
		return Payout{}, err
	}
	if !ids.IsUUID(id) {
		return Payout{}, errs.E(errs.MalformedPathParam, "The payout id %q is not a uuid.", id)
	}
	p, err := s.payouts.Get(ctx, viewerCustomerID, strings.ToLower(id))
	if err != nil {
		return Payout{}, err
	}
	one := []Payout{p}
	if err := s.withSettlements(ctx, one); err != nil {
		return Payout{}, err
	}
	return one[0], nil
}

// List returns one page of the payouts viewerCustomerID may see and the
// total; SETTLEMENT payouts with the payments they settled.
func (s *Service) List(ctx context.Context, viewerCustomerID string, f Filter) (paging.Page[Payout], error) {
	if _, err := identity.Authorize(ctx, identity.PayoutRead); err != nil {
		return paging.Page[Payout]{}, err
	}
	page, err := s.payouts.List(ctx, viewerCustomerID, f)
	if err != nil {
		return paging.Page[Payout]{}, err
	}
	if err := s.withSettlements(ctx, page.Items); err != nil {
		return paging.Page[Payout]{}, err
	}
	return page, nil
}

// Verification reads an account holder verification viewerCustomerID may see.
func (s *Service) Verification(ctx context.Context, viewerCustomerID, id string) (Verification, error) {
	if _, err := identity.Authorize(ctx, identity.PayoutRead); err != nil {
		return Verification{}, err
	}
	if !ids.IsUUID(id) {
		return Verification{}, errs.E(errs.MalformedPathParam, "The account holder verification id %q is not a uuid.", id)
	}
	return s.payouts.Verification(ctx, viewerCustomerID, strings.ToLower(id))
}

// VerificationsOf lists the verifications of payout transactionID that
// viewerCustomerID may see.
func (s *Service) VerificationsOf(ctx context.Context, viewerCustomerID, transactionID string) ([]Verification, error) {
	if _, err := identity.Authorize(ctx, identity.PayoutRead); err != nil {
		return nil, err
	}
	return s.payouts.VerificationsOf(ctx, viewerCustomerID, strings.ToLower(transactionID))
}

// retrying runs fn in a unit of work, again (at most 3 times in all) when
// it fails with CONFLICT: a concurrent unit of work moved what it read (on
// PostgreSQL, a SETTLEMENT payout whose payments another one settled
// first, or a decision taken meanwhile). fn reads everything afresh.
func (s *Service) retrying(ctx context.Context, fn func(Repos) error) error {
	var err error
	for range 3 {
		if err = s.inTx(ctx, fn); !errs.Is(err, errs.Conflict) || errors.Is(err, ledger.ErrInsufficientFunds) {
			return err
		}
	}
	return err
}
