// Package alias is account aliases: virtual IBANs of a Connect account, so
// that each payer or invoice can pay into an IBAN of its own. A merchant
// orders 1..1000 of them (an alias order); a background job issues them in
// batches, each batch one unit of work that inserts its aliases and counts
// them on the order, so the order's completed counts up until it is
// COMPLETED (or FAILED). Funds sent to an active alias are the account's
// (internal/payment routes them); to an inactive one they bounce. The
// package knows nothing of HTTP or SQL.
package alias

import (
	"context"
	"time"

	"github.com/bankrail/bankrail/internal/idempotency"
	"github.com/bankrail/bankrail/internal/job"
	"github.com/bankrail/bankrail/internal/ledger"
	"github.com/bankrail/bankrail/internal/paging"
)

// Status is the state of an alias order.
type Status string

// Order statuses.
const (
	Processing Status = "PROCESSING" // the worker issues its aliases
	Completed  Status = "COMPLETED"  // every alias was issued (completedAt set)
	Failed     Status = "FAILED"     // it stopped; the aliases issued so far stay
)

// Statuses lists every order status.
var Statuses = []Status{Processing, Completed, Failed}

// Bounds of an order and of the worker's batches.
const (
	MinCount  = 1
	MaxCount  = 1000
	BatchSize = 100 // aliases issued by one unit of work
)

// KindIssue is the job kind that issues an order's aliases.
const KindIssue = "alias.issue"

// IssueArgs are the arguments of a KindIssue job.
type IssueArgs struct {
	OrderID string `json:"orderId"`
}

// ScenarioFailed (X-Service-Testing-Scenario, sandbox) makes the order
// FAILED when the worker takes it, before it issues anything.
const ScenarioFailed = "ORDER_NAMED_ACCOUNTS_FAILED"

// Order is an order of aliases for one account.
type Order struct {
	ID          string
	AccountID   string
	CustomerID  string // the account's customer
	Status      Status
	Requested   int
	Completed   int    // aliases issued so far
	Scenario    string // the sandbox scenario it was created with ("" or ScenarioFailed)
	Failure     string // why it FAILED (for operators; not on the wire)
	CreatedAt   time.Time
	UpdatedAt   time.Time
	CompletedAt time.Time // zero until COMPLETED
}

// Alias is one virtual IBAN of an account.
type Alias struct {
	ID         string
	AccountID  string
	CustomerID string // the account's customer
	OrderID    string
	Seq        int // its place in the order, from 0
	IBAN       string
	Active     bool
	CreatedAt  time.Time
	UpdatedAt  time.Time
}

// Filter narrows GET /account-aliases. Zero fields match everything.
type Filter struct {
	OrderID   string
	AccountID string
	Page      int // from 1
	Limit     int // 1..ledger.MaxPageLimit
	// After, when set, starts the page right after this position (the
	// cursor parameter); Page is then the number the cursor carried.
	After *paging.Position
}

// Repository keeps alias orders and aliases. Reads that take a viewer
// answer RESOURCE_NOT_FOUND for what the viewer may not see.
type Repository interface {
	// CreateOrder inserts a new PROCESSING order.
	CreateOrder(ctx context.Context, o Order) error
	// Order reads an order visible to viewerCustomerID.
	Order(ctx context.Context, viewerCustomerID, id string) (Order, error)
	// LockOrder reads order id and holds it until the unit of work ends,
	// so that two workers never issue a batch of one order at once.
	LockOrder(ctx context.Context, id string) (Order, error)
	// Save inserts batch and saves o (its completed count, status,
	// completedAt and failure), only while the stored order is PROCESSING
	// with from aliases issued (else CONFLICT, nothing written). An IBAN
	// or (order, seq) already taken is CONFLICT too.
	Save(ctx context.Context, o Order, from int, batch []Alias) error
	// Taken returns those of ibans that are already an alias or an
	// account's IBAN.
	Taken(ctx context.Context, ibans []string) (map[string]bool, error)
	// Alias reads an alias visible to viewerCustomerID.
	Alias(ctx context.Context, viewerCustomerID, id string) (Alias, error)
	// List returns one page of the aliases visible to viewerCustomerID,
	// newest first, and the total.
	List(ctx context.Context, viewerCustomerID string, f Filter) (paging.Page[Alias], error)
	// SetActive saves a's active flag and updatedAt.
	SetActive(ctx context.Context, a Alias) error
	// ByIBAN reads the alias of a normalised IBAN, of any customer.
	ByIBAN(ctx context.Context, iban string) (Alias, error)
}

// Repos are the repositories an alias use case writes through in one unit
// of work.
type Repos interface {
	Aliases() Repository
	Ledger() ledger.Repository
	Jobs() job.Enqueuer
	Idempotency() idempotency.Completer
}

// Transactor runs fn in one unit of work.
type Transactor func(ctx context.Context, fn func(Repos) error) error
