package refund

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/bankrail/bankrail/internal/clock"
	"github.com/bankrail/bankrail/internal/errs"
	"github.com/bankrail/bankrail/internal/idempotency"
	"github.com/bankrail/bankrail/internal/ledger"
	"github.com/bankrail/bankrail/internal/money"
	"github.com/bankrail/bankrail/internal/notify"
	"github.com/bankrail/bankrail/internal/payment"
)

// ErrOverRefund is a refund that would take a payment's refunded total
// above its amount.
var ErrOverRefund = errors.New("refund: more than what is left of the payment")

// MaxReferenceLength bounds externalReference.
const MaxReferenceLength = 255

// Service requests and reads refunds.
type Service struct {
	refunds  Repository         // reads
	payments payment.Repository // reads
	accounts ledger.Repository  // reads
	inTx     Transactor
	keys     *idempotency.Guard
	clock    clock.Clock
	sandbox  bool
}

// NewService returns the refund service (refunds, payments and accounts for reads). In the sandbox (sandbox true) a
// refund's outcome is decided at once by its amount and scenario; in
// production it stays PENDING (no bank connector yet).
func NewService(refunds Repository, payments payment.Repository, accounts ledger.Repository, inTx Transactor,
	keys *idempotency.Guard, clk clock.Clock, sandbox bool) *Service {
	return &Service{refunds: refunds, payments: payments, accounts: accounts, inTx: inTx, keys: keys, clock: clk, sandbox: sandbox}
}

// Input is one POST /payments/{id}/request-refund.
type Input struct {
	ViewerCustomerID  string
	PaymentID         string
	IdempotencyKey    string
	Amount            *int64 // nil: all that is left
	ExternalReference string
	Reject            bool // sandbox scenario REFUND_REJECTED: the payer's bank refuses it
}

// Response is the answer to a request as the client got it (the PENDING
// refund), kept under the Idempotency-Key for replays.
type Response struct {
	Body       []byte
	ResourceID string
	Replayed   bool
}

// Request creates a refund of a RECEIVED or SETTLED Connect payment and
// holds its amount on the account, in one unit of work with the refund's
// outcome in the sandbox and its notification. The checks, in order: a
// payment that cannot be refunded at all is RESOURCE_NOT_MODIFIABLE
// (payment.RefundabilityAt); an amount above what is left or above the
// account's available balance is VALIDATION_FAILURE TOO_HIGH on amount.
func (s *Service) Request(ctx context.Context, in Input, render func(Refund) ([]byte, error)) (Response, error) {
	if _, err := uuid.Parse(in.PaymentID); err != nil || len(in.PaymentID) != 36 {
		return Response{}, errs.E(errs.MalformedPathParam, "The payment id %q is not a uuid.", in.PaymentID)
	}
	in.PaymentID = strings.ToLower(in.PaymentID)
	var v errs.Validation
	switch {
	case strings.TrimSpace(in.ExternalReference) == "":
		v.Add(errs.ValueRequired, "externalReference", "externalReference is required: your reference of the refund.")
	case len([]rune(in.ExternalReference)) > MaxReferenceLength:
		v.Add(errs.TooLong, "externalReference", "externalReference must be at most %d characters long.", MaxReferenceLength)
	}
	if in.Amount != nil && *in.Amount <= 0 {
		v.Add(errs.TooLow, "amount", "amount must be a positive number of minor units (or left out for all that is left).")
	}
	if err := v.Err(); err != nil {
		return Response{}, err
	}
	amountPart := "all"
	if in.Amount != nil {
		amountPart = money.FormatDecimal(*in.Amount, 0)
	}
	reject := ""
	if in.Reject {
		reject = "REFUND_REJECTED"
	}
	key := idempotency.Request{CustomerID: in.ViewerCustomerID, Key: in.IdempotencyKey, Noun: "refund",
		Fingerprint: idempotency.Fingerprint("POST /payments/{id}/request-refund", []byte(in.PaymentID),
			[]byte(amountPart), []byte(in.ExternalReference), []byte(reject))}
	res, replayed, err := s.keys.Do(ctx, key, func(ctx context.Context, t *idempotency.Ticket) (idempotency.Result, error) {
		var out idempotency.Result
		err := s.inTx(ctx, func(r Repos) error {
			f, err := s.create(ctx, r, in)
			if err != nil {
				return err
			}
			body, err := render(f)
			if err != nil {
				return err
			}
			out = idempotency.Result{ResourceID: f.ID, Body: body}
			if s.sandbox {
				if err := s.settle(ctx, r, f, outcomeOf(f, in.Reject)); err != nil {
					return err
				}
			}
			if t == nil {
				return nil
			}
			return r.Idempotency().Complete(ctx, *t, out)
		})
		return out, err
	})
	if err != nil {
		return Response{}, err
	}
	return Response{Body: res.Body, ResourceID: res.ResourceID, Replayed: replayed}, nil
}

// outcomeOf is the sandbox's answer to a refund: 1177 fails, the scenario
// REFUND_REJECTED rejects, anything else is confirmed.
func outcomeOf(f Refund, reject bool) Status {
	switch {
	case f.Amount == FailingAmount:
		return Failed
	case reject:
		return Rejected
	}
	return Confirmed
}

// tooHigh is the 422 of an amount above what the rules allow.
func tooHigh(format string, args ...any) error {
	var v errs.Validation
	v.Add(errs.TooHigh, "amount", format, args...)
	return v.Err()
}

// create applies the rule and writes the PENDING refund and its hold.
func (s *Service) create(ctx context.Context, r Repos, in Input) (Refund, error) {
	p, err := r.Payments().Get(ctx, in.ViewerCustomerID, in.PaymentID)
	if err != nil {
		return Refund{}, err
	}
	// The account before the refunded total: under concurrent refunds a
	// later total only makes what is left smaller, never the rule stricter
	// than the two conditional writes below, which decide.
	var acct ledger.Account
	if p.Expected() {
		if acct, err = r.Ledger().Account(ctx, p.CustomerID, p.ConnectAccountID); err != nil {
			return Refund{}, err
		}
	}
	refunded, err := r.Refunds().Refunded(ctx, p.ID)
	if err != nil {
		return Refund{}, err
	}
	if ra := payment.RefundabilityAt(p, refunded, acct.Balance.Available); !ra.Available {
		return Refund{}, errs.E(errs.NotModifiable, "%s (%s)", ra.Reason, ra.Code)
	}
	left := p.Amount() - refunded
	amount := left
	if in.Amount != nil {
		amount = *in.Amount
	}
	switch {
	case amount > left:
		return Refund{}, tooHigh("amount must be at most %d: what is left of the payment to refund.", left)
	case amount > acct.Balance.Available:
		return Refund{}, tooHigh("amount must be at most %d: the Connect account's available balance.", acct.Balance.Available)
	}
	m, err := money.New(amount, acct.Currency)
	if err != nil {
		return Refund{}, err
	}
	now, err := s.now(ctx, p.CustomerID)
	if err != nil {
		return Refund{}, err
	}
	id, err := uuid.NewV7() // time-ordered: refunds of one instant list in the order they were made
	if err != nil {
		return Refund{}, err
	}
	f := Refund{ID: id.String(), PaymentID: p.ID, AccountID: acct.ID, CustomerID: p.CustomerID, ClientID: p.ClientID,
		NotificationURL: p.Request.NotificationURL(), Amount: amount, Currency: acct.Currency,
		ExternalReference: in.ExternalReference, Status: Pending, TransactionID: ledger.NewID(), CreatedAt: now, UpdatedAt: now}
	tx := ledger.Transaction{ID: f.TransactionID, AccountID: acct.ID, CustomerID: acct.CustomerID, Type: ledger.TypeRefund,
		Operation: ledger.Outgoing, Status: ledger.TxProcessing, Amount: m, PaymentID: p.ID, Reference: in.ExternalReference,
		CreatedAt: now, UpdatedAt: now}
	if p.Sender != nil {
		tx.Counterparty = ledger.Counterparty{Name: p.Sender.Name, IBAN: p.Sender.IBAN}
	}
	e, err := ledger.Open(tx, ledger.NewID())
	if err != nil {
		return Refund{}, err
	}
	if err := r.Ledger().Record(ctx, tx, e); errors.Is(err, ledger.ErrInsufficientFunds) {
		return Refund{}, tooHigh("amount must be at most the Connect account's available balance.")
	} else if err != nil {
		return Refund{}, err
	}
	if err := r.Refunds().Create(ctx, f, p.Amount()); errors.Is(err, ErrOverRefund) {
		return Refund{}, tooHigh("amount must be at most what is left of the payment to refund.")
	} else if err != nil {
		return Refund{}, err
	}
	return f, nil
}

// settle ends a PENDING refund in status to: the held money leaves
// (CONFIRMED) or comes back to the account (FAILED, REJECTED), and the
// refund's notification is written.
func (s *Service) settle(ctx context.Context, r Repos, f Refund, to Status) error {
	tx, err := r.Ledger().Transaction(ctx, f.CustomerID, f.TransactionID)
	if err != nil {
		return err
	}
	txTo := ledger.TxCompleted
	switch to {
	case Failed:
		txTo = ledger.TxFailed
	case Rejected:
		txTo = ledger.TxRejected
	}
	now, err := s.now(ctx, f.CustomerID)
	if err != nil {
		return err
	}
	moved, e, err := ledger.Settle(tx, txTo, ledger.NewID(), now)
	if err != nil {
		return err
	}
	if err := r.Ledger().Move(ctx, moved, ledger.TxProcessing, e); err != nil {
		return err
	}
	f.Status, f.UpdatedAt = to, now
	if err := r.Refunds().Settle(ctx, f); err != nil {
		return err
	}
	msg, err := Notification(f)
	if err != nil {
		return err
	}
	return r.Outbox().Enqueue(ctx, now, msg)
}

// Notification is the notification of f's final status, to the payment's
// application (or its notification URL), ordered with the payment's.
func Notification(f Refund) (notify.Message, error) {
	typ := map[Status]string{Confirmed: "refund_confirmed", Failed: "refund_failed", Rejected: "refund_rejected"}[f.Status]
	return notify.New(notify.Target{CustomerID: f.CustomerID, ClientID: f.ClientID, URL: f.NotificationURL}, f.PaymentID, typ,
		map[string]any{"refund": f.ID, "payment": f.PaymentID, "externalReference": f.ExternalReference, "amount": f.Amount,
			"currency": f.Currency, "status": string(f.Status), "timestamp": f.UpdatedAt.UTC()})
}

// Get reads a refund that viewerCustomerID may see.
func (s *Service) Get(ctx context.Context, viewerCustomerID, id string) (Refund, error) {
	if _, err := uuid.Parse(id); err != nil || len(id) != 36 {
		return Refund{}, errs.E(errs.MalformedPathParam, "The refund id %q is not a uuid.", id)
	}
	return s.refunds.Get(ctx, viewerCustomerID, strings.ToLower(id))
}

// OfPayment lists the refunds of a payment viewerCustomerID may see.
func (s *Service) OfPayment(ctx context.Context, viewerCustomerID, paymentID string) ([]Refund, error) {
	if _, err := uuid.Parse(paymentID); err != nil || len(paymentID) != 36 {
		return nil, errs.E(errs.MalformedPathParam, "The payment id %q is not a uuid.", paymentID)
	}
	p, err := s.payments.Get(ctx, viewerCustomerID, strings.ToLower(paymentID))
	if err != nil {
		return nil, err
	}
	return s.refunds.OfPayment(ctx, p.ID)
}

// now is the time on the clock of customerID's tenant (the sandbox clock is
// per top-level customer), at the precision the store keeps.
func (s *Service) now(ctx context.Context, customerID string) (time.Time, error) {
	t, err := clock.For(ctx, s.clock, customerID)
	if err != nil {
		return time.Time{}, fmt.Errorf("read the clock of customer %s: %w", customerID, err)
	}
	return t.UTC().Truncate(time.Microsecond), nil
}

// Refundability is the refund rule applied to p now: what is left of it
// and what its Connect account holds (the details record's refund fields).
func (s *Service) Refundability(ctx context.Context, p payment.Payment) (payment.Refundability, error) {
	var available int64
	if p.Expected() { // the account first, as in create
		a, err := s.accounts.Account(ctx, p.CustomerID, p.ConnectAccountID)
		if err != nil {
			return payment.Refundability{}, err
		}
		available = a.Balance.Available
	}
	refunded, err := s.refunds.Refunded(ctx, p.ID)
	if err != nil {
		return payment.Refundability{}, err
	}
	return payment.RefundabilityAt(p, refunded, available), nil
}
