package payment

import (
	"context"
	"time"

	"bankrail/internal/notify"
)

// Store persists payments and idempotency keys. Implementations return
// errs.NotFound for a payment that does not exist or that the viewer may not
// see, and never (zero, nil) for a missing record.
type Store interface {
	// ClaimIdempotencyKey inserts the key as pending, or applies Decide to
	// the stored one (taking it over when Decide says so), atomically.
	ClaimIdempotencyKey(ctx context.Context, c Claim) (ClaimResult, error)
	// ReleaseIdempotencyKey forgets a pending key still held with token.
	ReleaseIdempotencyKey(ctx context.Context, customerID, key, token string) error

	// CreatePayment inserts p and, when done is not nil, stores the
	// response under its idempotency key in the same transaction; it fails
	// with errs.IdempotencyConflict when the key is no longer held with
	// done.Token. msgs (a sandbox scenario's notifications) are written in
	// the same transaction.
	CreatePayment(ctx context.Context, p Payment, done *Completion, msgs ...notify.Message) error
	// GetPayment reads a payment of viewerCustomerID or of a customer below it.
	GetPayment(ctx context.Context, viewerCustomerID, id string) (Payment, error)
	// GetPaymentByShortCode reads a payment by the code of its short link.
	GetPaymentByShortCode(ctx context.Context, code string) (Payment, error)
	// ListPayments returns one page of the payments visible to
	// viewerCustomerID, newest first (createdAt, then id), and the total.
	ListPayments(ctx context.Context, viewerCustomerID string, f ListFilter) ([]Payment, int, error)
	// SetPaymentSender records the paying account reported by the bank.
	SetPaymentSender(ctx context.Context, id string, s Sender, at time.Time) error

	// GetPaymentByID reads any payment, for the payer's pages (which check
	// the checkout token) and the timed moves.
	GetPaymentByID(ctx context.Context, id string) (Payment, error)
	// MovePayment saves c.Payment and writes c.Messages in one transaction,
	// only while the stored payment is still in status c.From; otherwise it
	// changes nothing and fails with CONFLICT (another request or instance
	// moved it first).
	MovePayment(ctx context.Context, c Change) error
	// DuePayments returns up to limit ids of payments whose timed move is
	// due at now, the most overdue first.
	DuePayments(ctx context.Context, now time.Time, limit int) ([]string, error)
}

// ListFilter narrows GET /payments. Zero fields match everything.
type ListFilter struct {
	CustomerID        string // only this customer (must be the viewer or below it)
	Status            Status
	Currency          string
	InternalReference string
	PaymentReference  string
	CreatedFrom       time.Time // inclusive
	CreatedTo         time.Time // inclusive
	Page              int       // from 1
	Limit             int       // 1..MaxPageLimit
}

// Page sizes of GET /payments.
const (
	DefaultPageLimit = 25
	MaxPageLimit     = 100
)

// Offset is the number of payments before the page.
func (f ListFilter) Offset() int { return (f.Page - 1) * f.Limit }
