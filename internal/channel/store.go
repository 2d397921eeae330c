package channel

import (
	"context"
	"time"

	"github.com/bankrail/bankrail/internal/ledger"
	"github.com/bankrail/bankrail/internal/notify"
	"github.com/bankrail/bankrail/internal/paging"
)

// Repository keeps channels. Implementations return errs.NotFound for a
// channel that does not exist or that the viewer may not see, and never
// (zero, nil).
type Repository interface {
	// Create inserts c.
	Create(ctx context.Context, c Channel) error
	// Get reads a channel of viewerCustomerID or of a customer below it.
	Get(ctx context.Context, viewerCustomerID, id string) (Channel, error)
	// GetByID reads any channel (the timed moves).
	GetByID(ctx context.Context, id string) (Channel, error)
	// List returns one page of the channels visible to viewerCustomerID,
	// newest first, and the total.
	List(ctx context.Context, viewerCustomerID string, f ListFilter) (paging.Page[Channel], error)
}

// ListFilter narrows GET /channels. Zero fields match everything.
type ListFilter struct {
	CustomerID string // only this customer (the viewer or below it)
	Page       int    // from 1
	Limit      int    // 1..MaxPageLimit
	// After, when set, starts the page right after this position (the
	// cursor parameter); Page is then the number the cursor carried.
	After *paging.Position
}

// The event log's subject type of deposits and its event types (also the
// X-Service-Type of their notifications).
const (
	SubjectPayment = "channel_payment"
	EventDetected  = "channel_payment_detected"  // status PROCESSING, at detection
	EventCompleted = "channel_payment_completed" // status COMPLETED, when the confirmation is credited
)

// PaymentRepository keeps the deposits of channels, like Repository. Each
// change records its event in the event log in the same unit of work.
type PaymentRepository interface {
	// Create inserts a PROCESSING deposit and its EventDetected event.
	Create(ctx context.Context, p Payment) error
	// Get reads a deposit on a channel of viewerCustomerID or below it.
	Get(ctx context.Context, viewerCustomerID, id string) (Payment, error)
	// GetByID reads any deposit.
	GetByID(ctx context.Context, id string) (Payment, error)
	// List returns one page of the deposits of channelID, oldest first:
	// limit of them from page (from 1), or after position after when set;
	// without a total.
	List(ctx context.Context, channelID string, page, limit int, after *paging.Position) (paging.Page[Payment], error)
	// Complete saves p, COMPLETED, and its EventCompleted event, only while
	// the stored one is still PROCESSING (else CONFLICT, nothing written).
	Complete(ctx context.Context, p Payment) error
	// DueToConfirm returns up to limit ids of PROCESSING deposits detected
	// at or before cutoff on their tenant's clock (the store adds each
	// tenant's offset to cutoff).
	DueToConfirm(ctx context.Context, cutoff time.Time, limit int) ([]string, error)
}

// Repos are the repositories a channel use case writes through in one
// unit of work (the store's transaction implements them).
type Repos interface {
	Channels() Repository
	ChannelPayments() PaymentRepository
	Ledger() ledger.Repository
	Outbox() notify.Outbox
}

// Transactor runs fn in one unit of work.
type Transactor func(ctx context.Context, fn func(Repos) error) error
