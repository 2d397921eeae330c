package mandate

import (
	"context"
	"time"

	"github.com/bankrail/bankrail/internal/notify"
	"github.com/bankrail/bankrail/internal/paging"
)

// Subject types of the events of mandates and amendments in the event log.
const (
	SubjectMandate   = "mandate"
	SubjectAmendment = "amendment"
)

// Repository keeps mandates. Implementations return errs.NotFound for a
// mandate that does not exist or that the viewer may not see, and never
// (zero, nil). Each change records its event (type given, status the
// mandate's) in the event log, in the same unit of work.
type Repository interface {
	// Create inserts m and its EventRequested event.
	Create(ctx context.Context, m Mandate) error
	// Get reads a mandate of viewerCustomerID or of a customer below it.
	Get(ctx context.Context, viewerCustomerID, id string) (Mandate, error)
	// GetByID reads any mandate (the payer's pages, the timed moves).
	GetByID(ctx context.Context, id string) (Mandate, error)
	// Lock reads mandate id inside a unit of work and holds it until the
	// end (PostgreSQL: FOR UPDATE; SQLite holds the one writer), so that
	// use cases on one mandate (an amendment, a payment) run one after the
	// other.
	Lock(ctx context.Context, id string) (Mandate, error)
	// Save writes m over the version it was read at (m.Version) and, when
	// eventType is not empty, records that event; the stored version moves
	// on. A mandate changed meanwhile is CONFLICT and nothing is written.
	Save(ctx context.Context, m Mandate, eventType string) error
	// List returns one page of the mandates visible to viewerCustomerID,
	// newest first, and the total.
	List(ctx context.Context, viewerCustomerID string, f ListFilter) (paging.Page[Mandate], error)
	// DueToExpire returns up to limit ids of mandates whose validity.to
	// has passed at now while they are not ended.
	DueToExpire(ctx context.Context, now time.Time, limit int) ([]string, error)
}

// AmendmentRepository keeps amendments, with their events, like Repository.
type AmendmentRepository interface {
	// Create inserts a and its EventAmendmentRequested event: CONFLICT
	// when the mandate has an open amendment already.
	Create(ctx context.Context, a Amendment) error
	// Get reads an amendment of a mandate of viewerCustomerID or below; a
	// recalled one is NotFound.
	Get(ctx context.Context, viewerCustomerID, id string) (Amendment, error)
	// GetByID reads any amendment, recalled ones too.
	GetByID(ctx context.Context, id string) (Amendment, error)
	// OpenOf reads the open amendment of a mandate: NotFound when none.
	OpenOf(ctx context.Context, mandateID string) (Amendment, error)
	// End saves a, answered, only while the stored one is still
	// AWAITING_APPROVAL (else CONFLICT), with its event eventType.
	End(ctx context.Context, a Amendment, eventType string) error
	// DueToAbandon returns up to limit ids of open amendments created at or
	// before cutoff.
	DueToAbandon(ctx context.Context, cutoff time.Time, limit int) ([]string, error)
}

// Repos are the repositories a mandate use case writes through in one unit
// of work (the store's transaction implements them).
type Repos interface {
	Mandates() Repository
	Amendments() AmendmentRepository
	Outbox() notify.Outbox
}

// Transactor runs fn in one unit of work.
type Transactor func(ctx context.Context, fn func(Repos) error) error

// ListFilter narrows GET /mandates. Zero fields match everything.
type ListFilter struct {
	CustomerID string // only this customer (the viewer or below it)
	Status     Status
	Type       Type
	Page       int // from 1
	Limit      int // 1..MaxPageLimit
	// After, when set, starts the page right after this position (the
	// cursor parameter); Page is then the number the cursor carried.
	After *paging.Position
}

// Page sizes of GET /mandates.
const (
	DefaultPageLimit = 25
	MaxPageLimit     = 100
)
