package ledger

import (
	"context"
	"time"

	"github.com/bankrail/bankrail/internal/paging"
)

// Repository keeps accounts, transactions and their postings.
// Implementations return errs.NotFound for what does not exist or what the
// viewer may not see, and never (zero, nil).
type Repository interface {
	// CreateAccount inserts a with a zero balance (CONFLICT for a taken id or IBAN).
	CreateAccount(ctx context.Context, a Account) error
	// Account reads an account of viewerCustomerID or of a customer below it.
	Account(ctx context.Context, viewerCustomerID, id string) (Account, error)
	// AccountByIBAN reads the account of an IBAN (normalised: upper case, no spaces).
	AccountByIBAN(ctx context.Context, iban string) (Account, error)
	// ConnectAccount reads customerID's ACTIVE Connect account in currency
	// (the oldest, should there be several).
	ConnectAccount(ctx context.Context, customerID, currency string) (Account, error)
	// ConnectAccounts reads customerID's ACTIVE Connect accounts in
	// currency, oldest first (none: an empty list).
	ConnectAccounts(ctx context.Context, customerID, currency string) ([]Account, error)
	// ListAccounts returns one page of the accounts visible to
	// viewerCustomerID, newest first, and the total.
	ListAccounts(ctx context.Context, viewerCustomerID string, f AccountFilter) (paging.Page[Account], error)

	// Record inserts t with its first entry (see Open). It fails, writing
	// nothing, with InsufficientFunds when a balance would go below zero,
	// and with CONFLICT when t's (account, ExternalID) was taken.
	Record(ctx context.Context, t Transaction, e Entry) error
	// RecordAll records each ts[i] with its first entry es[i], as Record
	// would one after the other, in a few multi-row statements: the
	// balances move once per account by the sum of its entries, so the
	// entries must be such that their order cannot matter (none takes
	// from a balance: credits).
	RecordAll(ctx context.Context, ts []Transaction, es []Entry) error
	// Move saves t (after Settle) and its entry, only while the stored
	// transaction is still in status from (else CONFLICT, nothing written).
	Move(ctx context.Context, t Transaction, from TxStatus, e Entry) error
	// Transaction reads a transaction of an account visible to viewerCustomerID.
	Transaction(ctx context.Context, viewerCustomerID, id string) (Transaction, error)
	// TransactionByExternalID reads the transaction of accountID that
	// recorded the sender's externalID.
	TransactionByExternalID(ctx context.Context, accountID, externalID string) (Transaction, error)
	// ListTransactions returns one page of accountID's transactions (the
	// account must be visible to viewerCustomerID), newest first, and the total.
	ListTransactions(ctx context.Context, viewerCustomerID, accountID string, f TxFilter) (paging.Page[Transaction], error)
	// Entries returns every entry that posts to accountID, oldest first:
	// what its balance is the sum of.
	Entries(ctx context.Context, accountID string) ([]Entry, error)
}

// Page sizes of the lists (as GET /payments).
const (
	DefaultPageLimit = 25
	MaxPageLimit     = 100
)

// AccountFilter narrows GET /accounts. Zero fields match everything.
type AccountFilter struct {
	CustomerID string // only this customer (the viewer or below it)
	Currency   string
	Page       int // from 1
	Limit      int // 1..MaxPageLimit
	// After, when set, starts the page right after this position (the
	// cursor parameter); Page is then the number the cursor carried.
	After *paging.Position
}

// TxFilter narrows GET /accounts/{id}/transactions.
type TxFilter struct {
	Type        TxType
	Status      TxStatus
	CreatedFrom *time.Time // inclusive; nil = unbounded (the zero time is a bound)
	CreatedTo   *time.Time // inclusive; nil = unbounded (the zero time is a bound)
	Page        int
	Limit       int
	// After, when set, starts the page right after this position (the
	// cursor parameter); Page is then the number the cursor carried.
	After *paging.Position
}
