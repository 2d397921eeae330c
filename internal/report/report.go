// Package report is bankrail's asynchronous CSV reports: the rules checked
// at creation (the 92-day period, the customer and account of the caller's
// hierarchy, allowEmpty), the statuses, the exact columns of each type, and
// the generation run by a durable job on any instance: rows streamed from the
// store through encoding/csv and gzip into chunks kept in the database, then
// the status flipped to REPORT_AVAILABLE in one transaction with the
// report_available notification. It knows nothing of HTTP or SQL.
package report

import (
	"context"
	"time"

	"github.com/bankrail/bankrail/internal/audit"
	"github.com/bankrail/bankrail/internal/job"
	"github.com/bankrail/bankrail/internal/ledger"
	"github.com/bankrail/bankrail/internal/notify"
	"github.com/bankrail/bankrail/internal/paging"
)

// Type is what a report lists.
type Type string

// Types, by endpoint: /reports/payments, /reports/refund, /reports/payouts,
// /reports/auditlog, /reports/connect/{bankAccountId}.
const (
	Payments Type = "PAYMENTS"
	Refunds  Type = "REFUNDS"
	Payouts  Type = "PAYOUTS"
	AuditLog Type = "AUDIT_LOG"
	Connect  Type = "CONNECT"
)

// Status is where a report is in its life.
type Status string

// Statuses: REPORT_REQUESTED -> REPORT_GENERATING -> REPORT_AVAILABLE | REPORT_FAILED.
const (
	Requested  Status = "REPORT_REQUESTED"
	Generating Status = "REPORT_GENERATING"
	Available  Status = "REPORT_AVAILABLE"
	Failed     Status = "REPORT_FAILED"
)

// MaxPeriod is the longest time between startDate and endDate.
const MaxPeriod = 92 * 24 * time.Hour

// MaxAttempts is how often a report's generation is tried before it is
// REPORT_FAILED.
const MaxAttempts = 5

// Page sizes of GET /reports.
const (
	DefaultPageLimit = 25
	MaxPageLimit     = 100
)

// Params are a report's accepted parameters.
type Params struct {
	Start, End       time.Time // inclusive, on the record's createdAt (or updatedAt: DateFilter)
	CustomerID       string    // only this customer; "" = the creator's hierarchy
	AccountID        string    // only this Connect account (REFUNDS, PAYOUTS)
	AllowEmpty       bool
	IncludeEventFees bool     // REFUNDS: fill eventFee
	TransactionTypes []string // CONNECT: PAYMENT and/or REFUND
	DateFilter       string   // CONNECT: createdAt or updatedAt
	BankAccountID    string   // CONNECT: the account
}

// Report is one requested report.
type Report struct {
	ID          string
	CustomerID  string // the creator's customer: who sees the report (and the customers above it)
	ClientID    string // the application told by report_available
	UserID      string
	Type        Type
	Status      Status
	Params      Params
	Attempt     int   // generation attempts started
	Rows        int64 // data rows of the file (without the header)
	Size        int64 // bytes of the uncompressed file
	Compressed  int64 // bytes kept in the database
	Failure     string
	CreatedAt   time.Time
	GeneratedAt time.Time // zero until AVAILABLE or FAILED
}

// Scope is the data a report covers.
type Scope struct {
	Root       string // the creator's customer, or the customerId asked for
	Exact      bool   // only Root (customerId given), not the customers below it
	From, To   time.Time
	ByUpdated  bool     // filter on updatedAt instead of createdAt
	AccountID  string   // a Connect account
	TxnTypes   []string // CONNECT
	EventFees  bool
	ReportType Type
}

// ScopeOf is the data r covers.
func ScopeOf(r Report) Scope {
	s := Scope{Root: r.CustomerID, From: r.Params.Start, To: r.Params.End, AccountID: r.Params.AccountID,
		TxnTypes: r.Params.TransactionTypes, EventFees: r.Params.IncludeEventFees, ReportType: r.Type,
		ByUpdated: r.Params.DateFilter == "updatedAt"}
	if r.Type == Connect {
		s.AccountID = r.Params.BankAccountID
	}
	if r.Params.CustomerID != "" {
		s.Root, s.Exact = r.Params.CustomerID, true
	}
	return s
}

// ListFilter narrows GET /reports.
type ListFilter struct {
	CustomerID  string // only reports created by this customer (the caller's or below it)
	Page, Limit int
	// After, when set, starts the page right after this position (the
	// cursor parameter); Page is then the number the cursor carried.
	After *paging.Position
}

// Repository keeps reports and their files (the store implements it).
type Repository interface {
	Create(ctx context.Context, r Report) error
	// Get returns the report id if viewer may see it (its creator is viewer
	// or below it); otherwise RESOURCE_NOT_FOUND.
	Get(ctx context.Context, viewer, id string) (Report, error)
	// List returns a page of the reports viewer may see, newest first, and
	// how many there are.
	List(ctx context.Context, viewer string, f ListFilter) (paging.Page[Report], error)
	// Start moves a report that is REQUESTED or GENERATING (a crashed
	// attempt) to GENERATING, counts the attempt and forgets the chunks of
	// earlier attempts; it returns the report as it is now. A report that
	// is AVAILABLE or FAILED is returned unchanged.
	Start(ctx context.Context, id string, at time.Time) (Report, error)
	// WriteChunk keeps the seq-th piece of attempt's compressed file.
	WriteChunk(ctx context.Context, id string, attempt, seq int, data []byte) error
	// Finish ends attempt: status AVAILABLE (with the file's counts) or
	// FAILED, only while the report is GENERATING under that attempt
	// (otherwise CONFLICT: a newer attempt took over).
	Finish(ctx context.Context, r Report) error
	// Chunk returns the seq-th piece of attempt's compressed file;
	// RESOURCE_NOT_FOUND after the last.
	Chunk(ctx context.Context, id string, attempt, seq int) ([]byte, error)
}

// Repos are the repositories of a report's unit of work.
type Repos interface {
	Reports() Repository
	Jobs() job.Enqueuer
	Outbox() notify.Outbox
}

// Transactor runs fn in one unit of work.
type Transactor func(ctx context.Context, fn func(Repos) error) error

// PaymentRow is one payment of a PAYMENTS report, as stored.
type PaymentRow struct {
	ID                string
	CreatedAt         time.Time
	UpdatedAt         time.Time
	CustomerID        string
	Status            string
	Amount            int64
	Currency          string
	PaymentReference  string
	InternalReference string
	PaymentSystem     string
	InstitutionID     string
}

// RefundRow is one refund of a REFUNDS report, as stored.
type RefundRow struct {
	ID                string
	PaymentID         string
	AccountID         string
	CreatedAt         time.Time
	UpdatedAt         time.Time
	Status            string
	Amount            int64
	Currency          string
	ExternalReference string
}

// PayoutRow is one payout of a PAYOUTS report, as stored.
type PayoutRow struct {
	ID               string
	AccountID        string
	CreatedAt        time.Time
	UpdatedAt        time.Time
	Status           string
	Amount           int64
	Currency         string
	PaymentReference string
	BeneficiaryName  string
	BeneficiaryIBAN  string // empty for a UK account (sort code and account number)
}

// ConnectRow is one transaction of a Connect account in a CONNECT report.
type ConnectRow = ledger.Transaction

// AuditRow is one entry of an AUDIT_LOG report.
type AuditRow = audit.Entry

// Data reads what reports list, streaming: fn is called once per row in
// order; the store holds no more than a row at a time.
type Data interface {
	Payments(ctx context.Context, s Scope, fn func(PaymentRow) error) error
	AnyPayment(ctx context.Context, s Scope) (bool, error)
	// Refunds streams the refunds of the scope (of AccountID alone when set).
	Refunds(ctx context.Context, s Scope, fn func(RefundRow) error) error
	// Payouts streams the payouts of the scope (of AccountID alone when set).
	Payouts(ctx context.Context, s Scope, fn func(PayoutRow) error) error
	// ConnectTransactions streams the transactions of the Connect account
	// AccountID in the scope whose ledger type is one of LedgerTypes(s.TxnTypes).
	ConnectTransactions(ctx context.Context, s Scope, fn func(ConnectRow) error) error
	AnyConnectTransaction(ctx context.Context, s Scope) (bool, error)
	AuditLog(ctx context.Context, s Scope, fn func(AuditRow) error) error
	AnyAudit(ctx context.Context, s Scope) (bool, error)
}

// Hierarchy answers whether a customer is another's or below it, and
// which top-level customer (tenant) a customer belongs to.
type Hierarchy interface {
	IsDescendant(ctx context.Context, ancestor, descendant string) (bool, error)
	// TenantOf returns the top-level customer of customerID: its
	// generation job is due on that tenant's (sandbox) clock.
	TenantOf(ctx context.Context, customerID string) (string, error)
}

// Accounts finds Connect accounts (the ledger's). Visible reports whether
// the account exists and belongs to viewer or a customer below it.
type Accounts interface {
	Visible(ctx context.Context, viewer, accountID string) (bool, error)
}
