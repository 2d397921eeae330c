package ledger

import (
	"context"
	"log/slog"

	"github.com/bankrail/bankrail/internal/clock"
)

// VerifyObserver is told the outcome of every periodic verification (the
// metrics, internal/metrics).
type VerifyObserver interface {
	// BooksVerified records a verification that read the whole books.
	BooksVerified(r Report)
	// BooksVerificationFailed records a verification that could not read them.
	BooksVerificationFailed()
}

// loggedDiscrepancies is how many discrepancies of each kind a run logs
// one by one (every one is counted; bankrail ledger verify lists them).
const loggedDiscrepancies = 100

// Checker verifies the books on each call of Run: the periodic job.
type Checker struct {
	books    Books
	clock    clock.Clock
	log      *slog.Logger
	observer VerifyObserver
}

// NewChecker returns the periodic verification of books; observer may be nil.
func NewChecker(books Books, clk clock.Clock, log *slog.Logger, observer VerifyObserver) *Checker {
	return &Checker{books: books, clock: clk, log: log, observer: observer}
}

// Run verifies the books once: the report goes to the observer, and books
// that do not balance are logged at ERROR, each discrepancy with its
// account and bucket or its entry.
func (c *Checker) Run(ctx context.Context) error {
	// basetime: the books are the instance's, no tenant's; the time only stamps the report
	r, err := VerifyBooks(ctx, c.books, c.clock.Now())
	if err != nil {
		if c.observer != nil && ctx.Err() == nil {
			c.observer.BooksVerificationFailed()
		}
		return err
	}
	if c.observer != nil {
		c.observer.BooksVerified(r)
	}
	LogReport(c.log, r)
	return nil
}

// LogReport logs r: one INFO line when the books balance; else one ERROR
// line with the counts and one ERROR line per discrepancy (the first
// hundred of each kind).
func LogReport(log *slog.Logger, r Report) {
	if r.Balanced() {
		log.Info("the books balance", "accounts", r.Accounts, "entries", r.Entries, "postings", r.Postings)
		return
	}
	log.Error("the books do not balance", "discrepancies", r.Discrepancies(), "balances", r.BalanceDiscrepancies,
		"entries", r.EntryDiscrepancies, "accounts_checked", r.Accounts, "entries_checked", r.Entries)
	for _, d := range r.Balances[:min(len(r.Balances), loggedDiscrepancies)] {
		log.Error("ledger discrepancy: cached balance is not the sum of the postings", "account", d.AccountID, "bucket", d.Bucket,
			"cached", d.Cached, "summed", d.Summed, "overflow", d.Overflow, "no_account", d.NoAccount)
	}
	for _, d := range r.Imbalanced[:min(len(r.Imbalanced), loggedDiscrepancies)] {
		log.Error("ledger discrepancy: entry does not sum to zero", "entry", d.EntryID, "currency", d.Currency,
			"imbalance", d.Imbalance, "overflow", d.Overflow)
	}
}
