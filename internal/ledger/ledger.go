// Package ledger is where money lives: Connect accounts, the transactions
// of the Accounts API, and the double-entry postings behind them. Every
// movement of money is an Entry whose postings sum to zero per currency
// across the customers' accounts and the outside world; balances
// (available, pending, held) are sums of postings, and available never
// goes below zero. The package knows nothing of SQL or HTTP: the store
// persists entries (and may cache the sums), the HTTP adapter renders.
package ledger

import (
	"time"

	"github.com/bankrail/bankrail/internal/money"
)

// AccountType is the kind of an account.
type AccountType string

// Account types.
const (
	// Connected is a Connect account: it receives the merchant's payments.
	Connected AccountType = "CONNECTED_ACCOUNT"
)

// AccountStatus is the state of an account.
type AccountStatus string

// Account statuses.
const (
	AccountActive    AccountStatus = "ACTIVE"
	AccountSuspended AccountStatus = "SUSPENDED"
	AccountClosed    AccountStatus = "CLOSED"
)

// Account is a customer's account in one currency.
type Account struct {
	ID         string
	CustomerID string
	Type       AccountType
	Status     AccountStatus
	Currency   string // ISO 4217
	IBAN       string
	Nickname   string
	Country    string // ISO 3166-1 alpha-2, from the IBAN
	Balance    Balance
	CreatedAt  time.Time
}

// Balance are the sums of an account's postings, in minor units of its
// currency.
type Balance struct {
	Available int64 // completed incoming - completed and in-flight outgoing; never negative
	Pending   int64 // incoming not completed yet
	Held      int64 // outgoing in flight (already out of Available)
}

// Bucket is one part of an account's balance that postings move money
// into and out of. External is the outside world (the payers' and
// beneficiaries' banks): the other side of money that enters or leaves.
type Bucket string

// Buckets.
const (
	Available Bucket = "AVAILABLE"
	Pending   Bucket = "PENDING"
	Held      Bucket = "HELD"
	External  Bucket = "EXTERNAL"
)

// Posting is one line of an entry: amount (signed) into bucket of account
// (AccountID is empty for External).
type Posting struct {
	AccountID string
	Bucket    Bucket
	Amount    money.Money
}

// Entry is what one change of a transaction writes: postings that sum to
// zero per currency.
type Entry struct {
	ID            string
	TransactionID string
	Postings      []Posting
	CreatedAt     time.Time
}

// delta is the sum of the postings of e on (account, bucket).
func (e Entry) delta(account string, b Bucket) int64 {
	var d int64
	for _, p := range e.Postings {
		if p.AccountID == account && p.Bucket == b {
			d += p.Amount.Minor()
		}
	}
	return d
}

// Delta is what e changes on account's balance.
func (e Entry) Delta(account string) Balance {
	return Balance{Available: e.delta(account, Available), Pending: e.delta(account, Pending), Held: e.delta(account, Held)}
}

// Accounts lists the accounts (not External) that e posts to, in order of
// first appearance.
func (e Entry) Accounts() []string {
	var out []string
	seen := map[string]bool{}
	for _, p := range e.Postings {
		if p.Bucket != External && !seen[p.AccountID] {
			seen[p.AccountID] = true
			out = append(out, p.AccountID)
		}
	}
	return out
}

// Add is b + d.
func (b Balance) Add(d Balance) Balance {
	return Balance{Available: b.Available + d.Available, Pending: b.Pending + d.Pending, Held: b.Held + d.Held}
}

// Negative reports whether any part of b is below zero.
func (b Balance) Negative() bool { return b.Available < 0 || b.Pending < 0 || b.Held < 0 }
