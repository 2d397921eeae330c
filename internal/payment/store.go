package payment

import (
	"context"
	"time"

	"github.com/bankrail/bankrail/internal/idempotency"
	"github.com/bankrail/bankrail/internal/ledger"
	"github.com/bankrail/bankrail/internal/notify"
	"github.com/bankrail/bankrail/internal/paging"
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
	// GetView reads a payment of viewerCustomerID or of a customer below it
	// for its details record: its Request holds only what that record
	// reads (View.Request), never to be written back; with the amounts the
	// refund rule needs.
	GetView(ctx context.Context, viewerCustomerID, id string) (ListItem, error)
	// GetByID reads any payment, for the payer's pages (which check the
	// checkout token) and the timed moves.
	GetByID(ctx context.Context, id string) (Payment, error)
	// GetByShortCode reads a payment by the code of its short link.
	GetByShortCode(ctx context.Context, code string) (Payment, error)
	// List returns one page of the payments visible to viewerCustomerID,
	// newest first (createdAt, then id), and the total (ListPage's Total).
	List(ctx context.Context, viewerCustomerID string, f ListFilter) ([]Payment, int, error)
	// ListPage returns one page of the payments visible to viewerCustomerID,
	// newest first (createdAt, then id), read as GetView reads them, each
	// with what the refund rule needs, the exact total
	// and the position after the page when more follow. It reads the page
	// from an index in order: its cost does not grow with the number of
	// payments, only with the number of visible customers and the offset.
	ListPage(ctx context.Context, viewerCustomerID string, f ListFilter) (Page, error)
	// Due returns up to limit ids of payments whose timed move is due at
	// now, the most overdue first.
	Due(ctx context.Context, now time.Time, limit int) ([]string, error)
	// MoveAll is Move of each of cs, in order, inside a unit of work: the
	// moves' history written in a few multi-row statements.
	MoveAll(ctx context.Context, cs []Change) error
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
	CreatedFrom       *time.Time // inclusive; nil = unbounded (the zero time is a bound)
	CreatedTo         *time.Time // inclusive; nil = unbounded (the zero time is a bound)
	Page              int        // from 1
	Limit             int        // 1..MaxPageLimit
	// After, when set, starts the page right after this position (keyset
	// paging, the cursor parameter) instead of at (Page-1)*Limit; Page is
	// then the page number the cursor carried, for the paging headers.
	After *Position
}

// Position is a place in the list order (createdAt, then id, both
// descending): a page that starts after it begins with the next older
// payment. It is every list's position (the cursor's content).
type Position = paging.Position

// Page is one page of the payments list (paging.Page: its exact total and
// the position of the next page).
type Page = paging.Page[ListItem]

// ListItem is a listed payment with the amounts the refund rule needs
// beyond the payment itself, read in the same query.
type ListItem struct {
	Payment
	Refunded  int64 // its pending and confirmed refunds
	Available int64 // the available balance of its Connect account (0 when it has none)
	Refund    Refundability
}

// Page sizes of GET /payments.
const (
	DefaultPageLimit = 25
	MaxPageLimit     = 100
)
