// Package payout is money a merchant sends out of a Connect account to a
// beneficiary: the payout (the account's PAYOUT transaction, same id), its
// statuses CREATED -> PROCESSING -> COMPLETED | FAILED | REJECTED, the
// sandbox's outcomes, and the account holder verification every payout
// runs first. The amount is held from creation (ledger: AVAILABLE ->
// HELD); a completed payout's money leaves, a failed or rejected one's
// comes back. It knows nothing of HTTP or SQL.
package payout

import (
	"context"
	"time"

	"github.com/bankrail/bankrail/internal/idempotency"
	"github.com/bankrail/bankrail/internal/ledger"
	"github.com/bankrail/bankrail/internal/notify"
	"github.com/bankrail/bankrail/internal/paging"
	"github.com/bankrail/bankrail/internal/payment"
	"github.com/bankrail/bankrail/internal/transfer"
)

// Status is the state of a payout.
type Status string

// Payout statuses.
const (
	Created    Status = "CREATED"    // held; waiting for its verification (or its decision)
	Processing Status = "PROCESSING" // sent to the beneficiary's bank
	Completed  Status = "COMPLETED"  // the money left
	Failed     Status = "FAILED"     // the money is back on the account
	Rejected   Status = "REJECTED"   // refused (by the provider, or the verification's decision); the money is back
)

// Statuses lists every payout status (for filters).
var Statuses = []Status{Created, Processing, Completed, Failed, Rejected}

// Final reports whether s ends the payout.
func (s Status) Final() bool { return s == Completed || s == Failed || s == Rejected }

// Sandbox magic amounts.
const (
	FailingAmount  = 1570 // the payout fails (FAILED)
	RejectedAmount = 2570 // the provider rejects it (REJECTED)
)

// Type is the kind of payout.
type Type string

// Payout types.
const (
	TypePayout Type = "PAYOUT"
	// TypeSettlement pays out the account's received payments: when it
	// completes, the account's RECEIVED payments move to SETTLED, oldest
	// first, as far as its amount covers them (see settlePayments).
	TypeSettlement Type = "SETTLEMENT"
)

// Beneficiary is who receives the payout.
type Beneficiary struct {
	Name          string
	IBAN          string // normalised; or SortCode and AccountNumber
	SortCode      string
	AccountNumber string
}

// Key is the beneficiary's account as one string (the mock bank's key).
func (b Beneficiary) Key() string {
	if b.IBAN != "" {
		return b.IBAN
	}
	return b.SortCode + b.AccountNumber
}

// Payout is a payout of a Connect account.
type Payout struct {
	ID                string // the id of its ledger transaction too
	AccountID         string
	CustomerID        string // the account's customer
	ClientID          string // the creator's application: it is notified
	Type              Type
	Amount            int64 // minor units
	Currency          string
	PaymentReference  string
	InternalReference string
	Beneficiary       Beneficiary
	Status            Status
	Outcome           Status // the sandbox's final status once it goes on (COMPLETED, FAILED or REJECTED)
	VerificationID    string
	CreatedAt         time.Time
	UpdatedAt         time.Time
	// Settled are the payments a SETTLEMENT payout settled, in the order
	// it settled them (none until it completes); filled by Service.Get and
	// Service.List, nil for a PAYOUT.
	Settled []Settlement
}

// Reference is the reference of p's account transaction: the
// paymentReference the beneficiary sees.
func (p Payout) Reference() string { return p.PaymentReference }

// Counterparty is the other side of p's account transaction: the
// beneficiary's name and IBAN (empty for a UK account named by sort code
// and account number).
func (p Payout) Counterparty() ledger.Counterparty {
	return ledger.Counterparty{Name: p.Beneficiary.Name, IBAN: p.Beneficiary.IBAN}
}

// Settlement is a RECEIVED payment a SETTLEMENT payout moved to SETTLED.
type Settlement struct {
	PaymentID string
	Amount    int64 // the payment's amount, minor units
}

// Filter narrows GET /payouts. Zero fields match everything.
type Filter struct {
	AccountID   string
	Status      Status
	CreatedFrom *time.Time // inclusive; nil = unbounded (the zero time is a bound)
	CreatedTo   *time.Time // inclusive; nil = unbounded (the zero time is a bound)
	Page        int        // from 1
	Limit       int        // 1..ledger.MaxPageLimit
	// After, when set, starts the page right after this position (the
	// cursor parameter); Page is then the number the cursor carried.
	After *paging.Position
}

// Repository keeps payouts and their verifications.
type Repository interface {
	// Create inserts p and v (p's verification).
	Create(ctx context.Context, p Payout, v Verification) error
	// Move saves p's status while the stored one is from (else CONFLICT).
	Move(ctx context.Context, p Payout, from Status) error
	// Get reads a payout visible to viewerCustomerID.
	Get(ctx context.Context, viewerCustomerID, id string) (Payout, error)
	// List returns one page of the payouts visible to viewerCustomerID,
	// newest first, and the total.
	List(ctx context.Context, viewerCustomerID string, f Filter) (paging.Page[Payout], error)
	// Verification reads a verification visible to viewerCustomerID.
	Verification(ctx context.Context, viewerCustomerID, id string) (Verification, error)
	// VerificationsOf lists the verifications of payout transactionID
	// visible to viewerCustomerID (one, or none).
	VerificationsOf(ctx context.Context, viewerCustomerID, transactionID string) ([]Verification, error)
	// Decide saves v's decision while it has none (else RESOURCE_NOT_MODIFIABLE).
	Decide(ctx context.Context, v Verification) error
	// DueVerifications lists up to limit undecided, held verifications whose
	// expiry has passed on their tenant's clock (base time now).
	DueVerifications(ctx context.Context, now time.Time, limit int) ([]Verification, error)
	// Received lists up to limit payments expected on Connect account
	// accountID that are RECEIVED, oldest first (createdAt, then id).
	Received(ctx context.Context, accountID string, limit int) ([]payment.Payment, error)
	// Settled records that SETTLEMENT payout payoutID settled paymentID
	// (CONFLICT when the payment was settled already).
	Settled(ctx context.Context, payoutID, paymentID string, amount int64, at time.Time) error
	// SettlementsOf reads the payments each of payoutIDs settled, by
	// payout id, each payout's in the order it settled them (oldest
	// payment first); a payout that settled nothing has no entry.
	SettlementsOf(ctx context.Context, payoutIDs []string) (map[string][]Settlement, error)
}

// Settler moves a RECEIVED payment to SETTLED (payment.Lifecycle does):
// the change, with its history entry, to save through payment.Repository.Move.
type Settler interface {
	Settled(p payment.Payment, at time.Time) (payment.Change, error)
}

// Repos are the repositories a payout writes through in one unit of work.
type Repos interface {
	Payouts() Repository
	Payments() payment.Repository // SETTLEMENT payouts settle payments
	Ledger() ledger.Repository
	Outbox() notify.Outbox
	Idempotency() idempotency.Completer
	Transfers() transfer.Repository // production: the payout's transfer, for the next pain.001 file
}

// Transactor runs fn in one unit of work.
type Transactor func(ctx context.Context, fn func(Repos) error) error
