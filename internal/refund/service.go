package refund

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"

	"github.com/google/uuid"

	"github.com/bankrail/bankrail/internal/bank"
	"github.com/bankrail/bankrail/internal/clock"
	"github.com/bankrail/bankrail/internal/errs"
	"github.com/bankrail/bankrail/internal/idempotency"
	"github.com/bankrail/bankrail/internal/identity"
	"github.com/bankrail/bankrail/internal/ids"
	"github.com/bankrail/bankrail/internal/ledger"
	"github.com/bankrail/bankrail/internal/money"
	"github.com/bankrail/bankrail/internal/notify"
	"github.com/bankrail/bankrail/internal/payment"
	"github.com/bankrail/bankrail/notification"
)

// ErrOverRefund is a refund that would take a payment's refunded total
// above its amount.
var ErrOverRefund = errors.New("refund: more than what is left of the payment")

// MaxReferenceLength bounds externalReference.
const MaxReferenceLength = 255

// Service requests, reads and settles refunds.
type Service struct {
	refunds  Repository         // reads
	payments payment.Repository // reads
	accounts ledger.Repository  // reads
	inTx     Transactor
	keys     *idempotency.Guard
	clock    clock.Clock
	sandbox  bool
	bank     bank.TransferSender // nil: no bank connector wired
	files    bool                // refunds leave in pain.001 files (production)
	mock     FileBank            // the sandbox: the mock bank's answer goes through its files
	log      *slog.Logger
}

// Deps are what the refund service works with.
type Deps struct {
	Refunds  Repository         // reads
	Payments payment.Repository // reads
	Accounts ledger.Repository  // reads
	InTx     Transactor
	Keys     *idempotency.Guard
	Clock    clock.Clock
	// Sandbox keeps the request's testing scenario (REFUND_REJECTED) with
	// the refund for the sandbox's mock bank.
	Sandbox bool
	// Bank sends refunds (the sandbox's MockBank, or a real bank's
	// connector); nil when none is wired: a refund then fails, as no bank
	// can send it.
	Bank bank.TransferSender
	// Files, when true, sends refunds as transfers in pain.001 files
	// (internal/transfer; production): the settlement job queues the
	// refund's transfer, the bank's pain.002 and debit end it (Transfers).
	// Bank is then not used.
	Files bool
	// MockBank, in the sandbox, takes the refunds the sandbox's MockBank
	// answered as pain.001 files and answers them with pain.002 (GET
	// /sandbox/bank-files): the answer reaches the refund through the
	// same code as production's. nil: the answer settles it directly.
	MockBank FileBank
	Log      *slog.Logger // nil: discard
}

// NewService returns the refund service.
func NewService(d Deps) *Service {
	log := d.Log
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Service{refunds: d.Refunds, payments: d.Payments, accounts: d.Accounts, inTx: d.InTx, keys: d.Keys,
		clock: d.Clock, sandbox: d.Sandbox, bank: d.Bank, files: d.Files, mock: d.MockBank, log: log}
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
type Response = idempotency.Response

// Request creates a refund of a RECEIVED or SETTLED Connect payment and
// holds its amount on the account, in one unit of work with the job that
// settles it (Settle). The checks, in order: a
// payment that cannot be refunded at all is RESOURCE_NOT_MODIFIABLE
// (payment.RefundabilityAt); an amount above what is left or above the
// account's available balance is VALIDATION_FAILURE TOO_HIGH on amount.
func (s *Service) Request(ctx context.Context, in Input, render func(Refund) ([]byte, error)) (Response, error) {
	if _, err := identity.Authorize(ctx, identity.RefundRequest); err != nil {
		return Response{}, err
	}
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
	return idempotency.Create(ctx, s.keys, key, s.inTx, func(r Repos) (idempotency.Result, error) {
		f, err := s.create(ctx, r, in)
		if err != nil {
			return idempotency.Result{}, err
		}
		body, err := render(f)
		if err != nil {
			return idempotency.Result{}, err
		}
		return idempotency.Result{ResourceID: f.ID, Body: body}, nil
	})
}

// ScenarioRejected is the sandbox scenario of a refund the payer's bank
// refuses (X-Service-Testing-Scenario: REFUND_REJECTED).
const ScenarioRejected = "REFUND_REJECTED"

// outcomeOf is the sandbox's answer to a refund (MockBank's): 1177 fails,
// the scenario REFUND_REJECTED rejects, anything else is confirmed.
func outcomeOf(f Refund, reject bool) Status {
	switch {
	case f.Amount == FailingAmount:
		return Failed
	case reject:
		return Rejected
	}
	return Confirmed
}

// Limit is the cause of a refund's TOO_HIGH amount: the most that could be
// refunded (in minor units of Currency) and why, so that a page shows it in
// the currency's major units while the API's message keeps the contract's
// minor units. Max is -1 when a concurrent refund or movement decided it
// and the figure is not known.
type Limit struct {
	Max      int64
	Currency string
	Of       string // "what is left of the payment to refund" or "the Connect account's available balance"
}

// Error is the limit in words.
func (l Limit) Error() string { return fmt.Sprintf("at most %d %s: %s", l.Max, l.Currency, l.Of) }

// The two limits of a refund's amount.
const (
	limitLeft    = "what is left of the payment to refund"
	limitBalance = "the Connect account's available balance"
)

// tooHigh is the 422 of an amount above lim.
func tooHigh(lim Limit) error {
	var v errs.Validation
	if lim.Max < 0 {
		v.Add(errs.TooHigh, "amount", "amount must be at most %s.", lim.Of)
	} else {
		v.Add(errs.TooHigh, "amount", "amount must be at most %d: %s.", lim.Max, lim.Of)
	}
	e := v.Err().(*errs.Error)
	e.Cause = lim
	return e
}

// create applies the rule and writes the PENDING refund, its hold and the
// job that settles it.
func (s *Service) create(ctx context.Context, r Repos, in Input) (Refund, error) {
	p, err := r.Payments().Get(ctx, in.ViewerCustomerID, in.PaymentID)
	if err != nil {
		return Refund{}, err
	}
	// The refunded total and the account's balance from one snapshot (a
	// concurrent settlement moves both); the two conditional writes below
	// decide whatever the concurrency.
	refunded, acct, err := s.standing(ctx, r.Refunds(), p)
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
		return Refund{}, tooHigh(Limit{Max: left, Currency: acct.Currency, Of: limitLeft})
	case amount > acct.Balance.Available:
		return Refund{}, tooHigh(Limit{Max: acct.Balance.Available, Currency: acct.Currency, Of: limitBalance})
	}
	m, err := money.New(amount, acct.Currency)
	if err != nil {
		return Refund{}, err
	}
	tenant, now, err := clock.UnitTenant(ctx, s.clock, p.CustomerID)
	if err != nil {
		return Refund{}, err
	}
	id := ids.New() // time-ordered: refunds of one instant list in the order they were made
	f := Refund{ID: id, PaymentID: p.ID, AccountID: acct.ID, CustomerID: p.CustomerID, ClientID: p.ClientID,
		NotificationURL: p.Request.NotificationURL(), Amount: amount, Currency: acct.Currency,
		ExternalReference: in.ExternalReference, Status: Pending, TransactionID: ids.New(), CreatedAt: now, UpdatedAt: now}
	tx := ledger.Transaction{ID: f.TransactionID, AccountID: acct.ID, CustomerID: acct.CustomerID, Type: ledger.TypeRefund,
		Operation: ledger.Outgoing, Status: ledger.TxProcessing, Amount: m, PaymentID: p.ID, Reference: in.ExternalReference,
		CreatedAt: now, UpdatedAt: now}
	if p.Sender != nil {
		tx.Counterparty = ledger.Counterparty{Name: p.Sender.Name, IBAN: p.Sender.IBAN}
	}
	if s.files {
		if err := sendable(acct.Currency, tx.Counterparty.IBAN); err != nil {
			return Refund{}, err
		}
	}
	e, err := ledger.Open(tx, ids.New())
	if err != nil {
		return Refund{}, err
	}
	// The writes, in an order that takes the account's row last: the
	// ledger's balance UPDATE holds it until the commit (on PostgreSQL),
	// and every movement of the account waits for it.
	if err := r.Refunds().Reserve(ctx, p.ID, amount, p.Amount()); errors.Is(err, ErrOverRefund) {
		return Refund{}, tooHigh(Limit{Max: -1, Currency: acct.Currency, Of: limitLeft})
	} else if err != nil {
		return Refund{}, err
	}
	scenario := ""
	if s.sandbox && in.Reject {
		scenario = ScenarioRejected
	}
	if err := r.Jobs().Enqueue(ctx, settleJob(f, tenant, scenario, f.CreatedAt)); err != nil {
		return Refund{}, err
	}
	if err := r.Ledger().Record(ctx, tx, e); errors.Is(err, ledger.ErrInsufficientFunds) {
		return Refund{}, tooHigh(Limit{Max: -1, Currency: acct.Currency, Of: limitBalance})
	} else if err != nil {
		return Refund{}, err
	}
	if err := r.Refunds().Insert(ctx, f); err != nil {
		return Refund{}, err
	}
	return f, nil
}

// Notification is the notification of f's final status, to the payment's
// application (or its notification URL), ordered with the payment's.
func Notification(f Refund) (notify.Message, error) {
	return notify.Refund(notify.Target{CustomerID: f.CustomerID, ClientID: f.ClientID, URL: f.NotificationURL},
		notification.Refund{Refund: f.ID, Payment: f.PaymentID, ExternalReference: f.ExternalReference, Amount: f.Amount,
			Currency: f.Currency, Status: string(f.Status), Timestamp: f.UpdatedAt})
}

// Get reads a refund that viewerCustomerID may see.
func (s *Service) Get(ctx context.Context, viewerCustomerID, id string) (Refund, error) {
	if _, err := identity.Authorize(ctx, identity.RefundRead); err != nil {
		return Refund{}, err
	}
	if _, err := uuid.Parse(id); err != nil || len(id) != 36 {
		return Refund{}, errs.E(errs.MalformedPathParam, "The refund id %q is not a uuid.", id)
	}
	return s.refunds.Get(ctx, viewerCustomerID, strings.ToLower(id))
}

// OfPayment lists the refunds of a payment viewerCustomerID may see.
func (s *Service) OfPayment(ctx context.Context, viewerCustomerID, paymentID string) ([]Refund, error) {
	if _, err := identity.Authorize(ctx, identity.RefundRead); err != nil {
		return nil, err
	}
	if _, err := uuid.Parse(paymentID); err != nil || len(paymentID) != 36 {
		return nil, errs.E(errs.MalformedPathParam, "The payment id %q is not a uuid.", paymentID)
	}
	p, err := s.payments.Get(ctx, viewerCustomerID, strings.ToLower(paymentID))
	if err != nil {
		return nil, err
	}
	return s.refunds.OfPayment(ctx, p.ID)
}

// Refundability is the refund rule applied to p now: what is left of it
// and what its Connect account holds (the details record's refund fields).
func (s *Service) Refundability(ctx context.Context, p payment.Payment) (payment.Refundability, error) {
	if _, err := identity.Authorize(ctx, identity.RefundRead); err != nil {
		return payment.Refundability{}, err
	}
	refunded, acct, err := s.standing(ctx, s.refunds, p)
	if err != nil {
		return payment.Refundability{}, err
	}
	return payment.RefundabilityAt(p, refunded, acct.Balance.Available), nil
}

// standing is p's refunded total and, for an expected payment, its Connect
// account, read in one snapshot.
func (s *Service) standing(ctx context.Context, refunds Repository, p payment.Payment) (int64, ledger.Account, error) {
	if !p.Expected() {
		refunded, err := refunds.Refunded(ctx, p.ID)
		return refunded, ledger.Account{}, err
	}
	return refunds.Standing(ctx, p.CustomerID, p.ID, p.ConnectAccountID)
}
