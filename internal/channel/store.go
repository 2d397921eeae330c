package channel

import (
	"context"
	"time"

	"github.com/bankrail/bankrail/internal/ledger"
	"github.com/bankrail/bankrail/internal/notify"
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
	List(ctx context.Context, viewerCustomerID string, f ListFilter) ([]Channel, int, error)
}

// ListFilter narrows GET /channels. Zero fields match everything.
type ListFilter struct {
	CustomerID string // only this customer (the viewer or below it)
	Page       int    // from 1
	Limit      int    // 1..MaxPageLimit
}

// Offset is the number of channels before the page.
func (f ListFilter) Offset() int { return max(f.Page-1, 0) * f.Limit }

// PaymentRepository keeps the deposits of channels, like Repository.
type PaymentRepository interface {
	// Create inserts a PROCESSING deposit.
	Create(ctx context.Context, p Payment) error
	// Get reads a deposit on a channel of viewerCustomerID or below it.
	Get(ctx context.Context, viewerCustomerID, id string) (Payment, error)
	// GetByID reads any deposit.
	GetByID(ctx context.Context, id string) (Payment, error)
	// List returns the deposits of channelID, oldest first, limit of them
	// after offset.
	List(ctx context.Context, channelID string, offset, limit int) ([]Payment, error)
	// Complete saves p, COMPLETED, only while the stored one is still
	// PROCESSING (else CONFLICT, nothing written).
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
