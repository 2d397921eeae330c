// Package statement applies the bank's account statements (camt.053) and
// debit/credit advices (camt.054), read by internal/camt, to the Connect
// accounts: credits go through the same matching as POST /payin, debits
// complete the payouts and refunds bankrail sent (matched by EndToEndId),
// returned transfers give their funds back, and a debit bankrail did not
// initiate becomes a reconciliation exception an operator resolves. Each
// entry is applied once (its identity, see Identity) in one unit of work
// with everything it causes; a file's outcome is a Summary, kept. It knows
// nothing of HTTP or SQL.
package statement

import (
	"context"
	"time"

	"github.com/bankrail/bankrail/internal/ledger"
	"github.com/bankrail/bankrail/internal/paging"
	"github.com/bankrail/bankrail/internal/payment"
	"github.com/bankrail/bankrail/internal/payout"
	"github.com/bankrail/bankrail/internal/refund"
	"github.com/bankrail/bankrail/internal/transfer"
)

// Summary is what importing one file did (the shape; the JSON of
// `statements import --json`, POST /statements and GET /statements).
type Summary struct {
	ID         string    `json:"id"`
	File       string    `json:"file"`
	SHA256     string    `json:"sha256"`
	Message    string    `json:"message"` // e.g. camt.053.001.02
	MessageID  string    `json:"messageId"`
	ImportedAt time.Time `json:"importedAt"`
	// Accounts has one object per account IBAN of the file, in the order
	// of their first report.
	Accounts          []AccountSummary `json:"accounts"`
	Matched           int              `json:"matched"`           // credits that paid an expected payment
	ManualCredits     int              `json:"manualCredits"`     // credits that matched none (MANUAL_CREDIT)
	OutgoingConfirmed int              `json:"outgoingConfirmed"` // debits that completed a payout or refund
	Returned          int              `json:"returned"`          // returned transfers whose funds came back
	Exceptions        int              `json:"exceptions"`        // debits kept for an operator
	Duplicates        int              `json:"duplicates"`        // entries imported before: nothing changed
	NotBooked         int              `json:"notBooked"`         // pending (PDNG) and information (INFO) entries: nothing moves
	Rejected          []Rejection      `json:"rejected"`
}

// AccountSummary is one account of a file.
type AccountSummary struct {
	IBAN     string `json:"iban"`
	Known    bool   `json:"known"` // a Connect account (or an alias of one)
	Credited Sum    `json:"credited"`
	Debited  Sum    `json:"debited"`
	// ClosingBank is the statement's closing booked balance (CLBD), if it
	// gives one; ClosingLedger the ledger's balance of the account after
	// the import (available + held: what is still at the bank), for a
	// known account; Difference is bank minus ledger when both are known.
	ClosingBank   *Amount `json:"closingBank,omitempty"`
	ClosingLedger *Amount `json:"closingLedger,omitempty"`
	Difference    *int64  `json:"difference,omitempty"`
}

// Sum counts booked transactions (each transaction of a batch) and adds
// their amounts, in minor units.
type Sum struct {
	Count    int    `json:"count"`
	Amount   int64  `json:"amount"`
	Currency string `json:"currency"`
}

// Amount is a signed amount in minor units.
type Amount struct {
	Amount   int64  `json:"amount"`
	Currency string `json:"currency"`
}

// Rejection is an entry that was not applied, and why.
type Rejection struct {
	Entry  string `json:"entry"`
	Reason string `json:"reason"`
}

// ExceptionStatus is where an exception stands.
type ExceptionStatus string

// Exception statuses.
const (
	ExceptionOpen     ExceptionStatus = "OPEN"
	ExceptionResolved ExceptionStatus = "RESOLVED"
)

// Exception is a booked transaction bankrail does not recognise as its
// own (a debit it did not initiate: a bank fee, a manual transfer, an
// unknown return), kept for an operator. It moves no money in the ledger:
// the statement's closing balance shows it until it is resolved.
type Exception struct {
	ID          string          `json:"id"`
	ImportID    string          `json:"importId"`
	Entry       string          `json:"entry"` // the entry's name in its file
	EntryKey    string          `json:"entryKey"`
	IBAN        string          `json:"iban"`
	AccountID   string          `json:"accountId"`
	Credit      bool            `json:"credit"`
	Amount      int64           `json:"amount"`
	Currency    string          `json:"currency"`
	EndToEndID  string          `json:"endToEndId"`
	Reference   string          `json:"reference"`
	Party       string          `json:"counterparty"`
	BookingDate string          `json:"bookingDate"`
	Reason      string          `json:"reason"`
	Status      ExceptionStatus `json:"status"`
	Resolution  string          `json:"resolution"`
	ResolvedBy  string          `json:"resolvedBy"`
	CreatedAt   time.Time       `json:"createdAt"`
	ResolvedAt  *time.Time      `json:"resolvedAt,omitempty"`
}

// Claim is the record that an entry was applied: its identity's key,
// written in the unit of work that applies it.
type Claim struct {
	Key      string // the digest of the identity (see Identity)
	Identity string // the identity, readable
	IBAN     string
	ImportID string
	At       time.Time
}

// Repository keeps applied entries, exceptions and import summaries.
// Implementations return errs.NotFound for what does not exist, never
// (zero, nil).
type Repository interface {
	// Claim records c, or reports false (writing nothing) when its key was
	// claimed before: the entry was applied already.
	Claim(ctx context.Context, c Claim) (bool, error)
	// ClaimAll claims cs (in key order) at once, in as few statements as
	// it can, and reports which it claimed: a key claimed before, or
	// earlier in cs, is not.
	ClaimAll(ctx context.Context, cs []Claim) ([]bool, error)
	// Booked reads the transactions of accountID whose external id is one
	// of externalIDs (none: an empty list).
	Booked(ctx context.Context, accountID string, externalIDs []string) ([]ledger.Transaction, error)
	// Expected reads the payments expected on accountID, in one of
	// statuses, whose uniqueReference or id is one of refs: every
	// candidate of payment.Repository.MatchExpected for those references.
	Expected(ctx context.Context, accountID string, refs []string, statuses []payment.Status) ([]payment.Payment, error)
	// AccountOf reads the account of iban: the Connect account with that
	// IBAN, or the account of an alias with it (bounce: the alias is
	// inactive, its funds go back).
	AccountOf(ctx context.Context, iban string) (acct ledger.Account, bounce bool, err error)
	// AddException inserts e.
	AddException(ctx context.Context, e Exception) error
	// Exceptions lists exceptions, newest first, limit of them after the
	// first offset, or after the position after when it is set (offset
	// unused); only those in status when it is not empty. Total counts
	// them all; Next is the position of the page's last when more follow.
	Exceptions(ctx context.Context, status ExceptionStatus, after *paging.Position, offset, limit int) (paging.Page[Exception], error)
	// Resolve marks the OPEN exception id RESOLVED with a note, by whom,
	// at (RESOURCE_NOT_MODIFIABLE when it is resolved already).
	Resolve(ctx context.Context, id, note, by string, at time.Time) (Exception, error)
	// SaveImport keeps a file's summary.
	SaveImport(ctx context.Context, s Summary) error
	// Imports lists the kept summaries, newest first, limit of them after
	// the first offset, or after the position after when it is set
	// (offset unused). Total counts them all; Next is the position of the
	// page's last when more follow.
	Imports(ctx context.Context, after *paging.Position, offset, limit int) (paging.Page[Summary], error)
}

// Repos are the repositories an entry is applied through in one unit of
// work: the payment's (credits), the payout's and the refund's (debits).
type Repos interface {
	payment.Repos
	payout.Repos
	refund.Repos
	transfer.Repos // the sandbox's bank files (Payins)
	Statements() Repository
}

// Transactor runs fn in one unit of work.
type Transactor func(ctx context.Context, fn func(Repos) error) error

// Crediter books incoming funds on an account (payment.Service.Credit).
type Crediter interface {
	Credit(ctx context.Context, r payment.Repos, acct ledger.Account, bounce bool, in payment.PayinInput, now time.Time) (payment.PayinOutcome, error)
}

// PayoutBooker ends a payout as the bank reports it (payout.Service.Booked).
type PayoutBooker interface {
	Booked(ctx context.Context, r payout.Repos, tx ledger.Transaction, returned bool, now time.Time) error
}

// TransferBooker books the bank's debit of a transfer bankrail filed
// (transfer.Service.Book): the transfer row and its owner end together,
// in the unit of work r of the entry.
type TransferBooker interface {
	Book(ctx context.Context, r transfer.Repos, id string, ok bool, reason string, now time.Time) (bool, error)
}

// RefundBooker ends a refund as the bank reports it (refund.Service.Booked).
type RefundBooker interface {
	Booked(ctx context.Context, r refund.Repos, tx ledger.Transaction, returned bool) error
}
