// Package refund is the refund of a Connect payment: the request and its
// rules (what is left, what the account holds), the refund's statuses, the
// service that creates and reads refunds, and its settlement. The amount is
// held on the payment's Connect account from creation (ledger: AVAILABLE ->
// HELD), in the transaction that also enqueues the refund's settlement job
// (settle.go): the job sends the refund through the bank's transfer
// connector (bank.TransferSender; the sandbox's is MockBank) and, on the
// bank's final answer, moves it to CONFIRMED (the money leaves), FAILED or
// REJECTED (the money comes back), with its postings and notification in
// one transaction. It knows nothing of HTTP or SQL.
package refund

import (
	"context"
	"time"

	"github.com/bankrail/bankrail/internal/idempotency"
	"github.com/bankrail/bankrail/internal/job"
	"github.com/bankrail/bankrail/internal/ledger"
	"github.com/bankrail/bankrail/internal/notify"
	"github.com/bankrail/bankrail/internal/payment"
	"github.com/bankrail/bankrail/internal/transfer"
)

// Status is the state of a refund.
type Status string

// Refund statuses: PENDING -> CONFIRMED | FAILED | REJECTED.
const (
	Pending   Status = "PENDING"
	Confirmed Status = "CONFIRMED"
	Failed    Status = "FAILED"   // the money is back on the account
	Rejected  Status = "REJECTED" // refused by the payer's bank; the money is back too
)

// FailingAmount is the sandbox's magic amount: a refund of exactly 1177
// minor units fails.
const FailingAmount = 1177

// Refund is a refund of a payment.
type Refund struct {
	ID                string
	PaymentID         string
	AccountID         string
	CustomerID        string // the payment's customer
	ClientID          string // the payment's application: it is notified
	NotificationURL   string // the payment's notification URL, if any
	Amount            int64  // minor units
	Currency          string
	ExternalReference string
	Status            Status
	TransactionID     string // the account transaction that holds and moves the money
	CreatedAt         time.Time
	UpdatedAt         time.Time
}

// Repository keeps refunds and the refunded total of each payment.
type Repository interface {
	// Create inserts r and adds its amount to the payment's refunded total,
	// only while that total stays within limit (else ErrOverRefund, nothing
	// written): Reserve, then Insert.
	Create(ctx context.Context, r Refund, limit int64) error
	// Reserve adds amount to the payment's refunded total, only while it
	// stays within limit (else ErrOverRefund, nothing written).
	Reserve(ctx context.Context, paymentID string, amount, limit int64) error
	// Insert inserts r, whose amount was reserved and whose ledger
	// transaction was recorded in the same unit of work.
	Insert(ctx context.Context, r Refund) error
	// Settle saves r's final status while it is still PENDING; a FAILED or
	// REJECTED refund gives its amount back to the payment's total.
	Settle(ctx context.Context, r Refund) error
	// Get reads a refund of a payment visible to viewerCustomerID.
	Get(ctx context.Context, viewerCustomerID, id string) (Refund, error)
	// OfTransaction reads the refund, visible to viewerCustomerID, whose
	// ledger transaction is transactionID.
	OfTransaction(ctx context.Context, viewerCustomerID, transactionID string) (Refund, error)
	// OfPayment lists a payment's refunds, oldest first.
	OfPayment(ctx context.Context, paymentID string) ([]Refund, error)
	// Refunded is the payment's refunded total (pending and confirmed refunds).
	Refunded(ctx context.Context, paymentID string) (int64, error)
	// Standing reads, in one snapshot, the payment's refunded total and
	// its Connect account accountID (of customerID): a settlement that
	// gives money back moves both at once, and a rule read from two
	// snapshots could see one move without the other.
	Standing(ctx context.Context, customerID, paymentID, accountID string) (refunded int64, acct ledger.Account, err error)
}

// Repos are the repositories a refund writes through in one unit of work.
type Repos interface {
	Refunds() Repository
	Payments() payment.Repository
	Ledger() ledger.Repository
	Outbox() notify.Outbox
	Idempotency() idempotency.Completer
	Jobs() job.Enqueuer
	Transfers() transfer.Repository // production: the refund's transfer, for the next pain.001 file
}

// Transactor runs fn in one unit of work.
type Transactor func(ctx context.Context, fn func(Repos) error) error
