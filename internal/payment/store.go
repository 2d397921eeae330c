package payment

import (
	"context"
	"time"

	"github.com/bankrail/bankrail/internal/idempotency"
	"github.com/bankrail/bankrail/internal/ledger"
	"github.com/bankrail/bankrail/internal/notify"
)

// Repository keeps payments. Implementations return errs.NotFound for a
// payment that does not exist or that the viewer may not see, and never
// (zero, nil) for a missing record. A payment's History is kept as its
// events (event.PaymentStatusChanged, one a move) in the event log.
type Repository interface {
	// Create inserts p with its History. Outside a unit of work it is
	// atomic by itself.
	Create(ctx context.Context, p Payment) error
	// Move saves c.Payment and the history entries it added, only while the
	// stored payment is still in status c.From; otherwise it changes
	// nothing and fails with CONFLICT (another request or instance moved it
	// first). The change's notifications are the caller's to write.
	Move(ctx context.Context, c Change) error
	// SetSender records the paying account reported by the bank.
	SetSender(ctx context.Context, id string, s Sender, at time.Time) error

	// Get reads a payment of viewerCustomerID or of a customer below it.
	Get(ctx context.Context, viewerCustomerID, id string) (Payment, error)
	// GetByID reads any payment, for the payer's pages (which check the
	// checkout token) and the timed moves.
	GetByID(ctx context.Context, id string) (Payment, error)
	// GetByShortCode reads a payment by the code of its short link.
	GetByShortCode(ctx context.Context, code string) (Payment, error)
	// List returns one page of the payments visible to viewerCustomerID,
	// newest first (createdAt, then id), and the total.
	List(ctx context.Context, viewerCustomerID string, f ListFilter) ([]Payment, int, error)
	// Due returns up to limit ids of payments whose timed move is due at
	// now, the most overdue first.
	Due(ctx context.Context, now time.Time, limit int) ([]string, error)
	// MatchExpected returns the oldest payment expected on Connect account
	// accountID, in one of statuses, of amount and currency, whose
	// uniqueReference or id is reference (RESOURCE_NOT_FOUND when none).
	MatchExpected(ctx context.Context, accountID, reference string, amount int64, currency string, statuses []Status) (Payment, error)
}

// Repos are the repositories a payment use case writes through in one unit
// of work (the store's transaction implements them).
type Repos interface {
	Payments() Repository
	Outbox() notify.Outbox
	Idempotency() idempotency.Completer
	Ledger() ledger.Repository // Connect funds and refunds post here
}

// Transactor runs fn in one unit of work: everything written through its
// Repos commits together or not at all.
type Transactor func(ctx context.Context, fn func(Repos) error) error

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
