package ledger

import (
	"context"
	"fmt"
	"slices"
	"time"
)

// The verification of the books: every account's cached balance (each of
// its buckets) equals the sum of its postings, and every entry's postings
// sum to zero per currency. The store reads (streaming SQL aggregates,
// BooksReader); Verify compares and reports.

// AccountSums is one account as the books hold it: its cached balance
// beside the sums of its postings, per bucket.
type AccountSums struct {
	AccountID string
	// Exists is false for an account that postings name but that is not in
	// the books (no cached balance at all).
	Exists bool
	Cached Balance
	// Summed are the sums of the account's postings by bucket: every bucket
	// its postings name (a bucket without postings is absent: zero).
	Summed map[Bucket]Sum
}

// EntrySums is the sum of one entry's postings in one currency.
type EntrySums struct {
	EntryID  string
	Currency string
	Summed   Sum
}

// BooksReader streams the books for Verify. Each method calls fn in turn
// and stops at fn's first error, which it returns.
type BooksReader interface {
	// Accounts calls fn once for every account of the books, and once for
	// every account id that postings name but the books do not hold.
	Accounts(ctx context.Context, fn func(AccountSums) error) error
	// Entries calls fn for every (entry, currency) whose postings may not
	// sum to zero: it may pass balanced ones (Verify checks each), it never
	// leaves out an unbalanced one.
	Entries(ctx context.Context, fn func(EntrySums) error) error
	// Count is the number of entries and of postings.
	Count(ctx context.Context) (entries, postings int64, err error)
}

// Books gives consistent reads of the whole books.
type Books interface {
	// Read calls fn with a reader of one snapshot of the books.
	Read(ctx context.Context, fn func(BooksReader) error) error
}

// VerifyBooks verifies one snapshot of books, stamped at now.
func VerifyBooks(ctx context.Context, books Books, now time.Time) (Report, error) {
	var rep Report
	err := books.Read(ctx, func(r BooksReader) error {
		var err error
		rep, err = Verify(ctx, r, now)
		return err
	})
	return rep, err
}

// BalanceDiscrepancy is a bucket of an account whose cached balance is not
// the sum of its postings.
type BalanceDiscrepancy struct {
	AccountID string `json:"accountId"`
	Bucket    Bucket `json:"bucket"`
	Cached    int64  `json:"cached"`
	// Summed is the sum of the postings; meaningless when Overflow.
	Summed int64 `json:"summed"`
	// Overflow: the postings' sum does not fit in an int64.
	Overflow bool `json:"overflow,omitempty"`
	// NoAccount: postings name an account the books do not hold.
	NoAccount bool `json:"noAccount,omitempty"`
}

// EntryDiscrepancy is an entry whose postings in a currency do not sum to
// zero.
type EntryDiscrepancy struct {
	EntryID  string `json:"entryId"`
	Currency string `json:"currency"`
	// Imbalance is the sum of the postings; meaningless when Overflow.
	Imbalance int64 `json:"imbalance"`
	// Overflow: the postings' sum does not fit in an int64.
	Overflow bool `json:"overflow,omitempty"`
}

// MaxListed is how many discrepancies of each kind a Report lists; it
// counts every one.
const MaxListed = 10_000

// Report is the outcome of a verification.
type Report struct {
	CheckedAt time.Time `json:"checkedAt"`
	Accounts  int64     `json:"accounts"` // accounts checked (those postings name without an account included)
	Entries   int64     `json:"entries"`
	Postings  int64     `json:"postings"`
	// BalanceDiscrepancies and EntryDiscrepancies count every discrepancy;
	// Balances and Imbalanced list the first MaxListed of each.
	BalanceDiscrepancies int64                `json:"balanceDiscrepancies"`
	EntryDiscrepancies   int64                `json:"entryDiscrepancies"`
	Balances             []BalanceDiscrepancy `json:"balances"`
	Imbalanced           []EntryDiscrepancy   `json:"imbalancedEntries"`
}

// Balanced reports whether the books check out.
func (r Report) Balanced() bool { return r.Discrepancies() == 0 }

// Discrepancies is the number of discrepancies found.
func (r Report) Discrepancies() int64 { return r.BalanceDiscrepancies + r.EntryDiscrepancies }

// Verify checks the books that r reads; now stamps the report. An error is
// a failure to read, never a discrepancy (those are in the report).
func Verify(ctx context.Context, r BooksReader, now time.Time) (Report, error) {
	rep := Report{CheckedAt: now, Balances: []BalanceDiscrepancy{}, Imbalanced: []EntryDiscrepancy{}}
	var err error
	if rep.Entries, rep.Postings, err = r.Count(ctx); err != nil {
		return Report{}, fmt.Errorf("count the postings: %w", err)
	}
	err = r.Accounts(ctx, func(a AccountSums) error {
		rep.Accounts++
		for _, d := range checkAccount(a) {
			rep.BalanceDiscrepancies++
			if len(rep.Balances) < MaxListed {
				rep.Balances = append(rep.Balances, d)
			}
		}
		return nil
	})
	if err != nil {
		return Report{}, fmt.Errorf("sum the postings of every account: %w", err)
	}
	err = r.Entries(ctx, func(e EntrySums) error {
		v, ok := e.Summed.Int64()
		if ok && v == 0 {
			return nil
		}
		rep.EntryDiscrepancies++
		if len(rep.Imbalanced) < MaxListed {
			rep.Imbalanced = append(rep.Imbalanced, EntryDiscrepancy{EntryID: e.EntryID, Currency: e.Currency, Imbalance: v, Overflow: !ok})
		}
		return nil
	})
	if err != nil {
		return Report{}, fmt.Errorf("sum the postings of every entry: %w", err)
	}
	return rep, nil
}

// checkAccount compares a's cached buckets with its postings' sums; a
// bucket that has no cache (unknown, or an account not in the books) has
// to sum to zero.
func checkAccount(a AccountSums) []BalanceDiscrepancy {
	cached := map[Bucket]int64{}
	if a.Exists {
		cached = map[Bucket]int64{Available: a.Cached.Available, Pending: a.Cached.Pending, Held: a.Cached.Held}
	}
	buckets := []Bucket{Available, Pending, Held}
	for b := range a.Summed {
		if !slices.Contains(buckets, b) {
			buckets = append(buckets, b)
		}
	}
	slices.Sort(buckets[3:]) // stable order of unknown buckets
	var out []BalanceDiscrepancy
	for _, b := range buckets {
		v, ok := a.Summed[b].Int64()
		if ok && v == cached[b] {
			continue
		}
		out = append(out, BalanceDiscrepancy{AccountID: a.AccountID, Bucket: b, Cached: cached[b], Summed: v,
			Overflow: !ok, NoAccount: !a.Exists})
	}
	return out
}

// String describes d for a log line or a terminal.
func (d BalanceDiscrepancy) String() string {
	summed := fmt.Sprint(d.Summed)
	if d.Overflow {
		summed = "more than an int64 holds (overflow)"
	}
	if d.NoAccount {
		return fmt.Sprintf("account %s is not in the books, but its %s postings sum to %s", d.AccountID, d.Bucket, summed)
	}
	return fmt.Sprintf("account %s %s: cached %d, postings sum to %s", d.AccountID, d.Bucket, d.Cached, summed)
}

// String describes d for a log line or a terminal.
func (d EntryDiscrepancy) String() string {
	if d.Overflow {
		return fmt.Sprintf("entry %s: its %s postings sum to more than an int64 holds (overflow)", d.EntryID, d.Currency)
	}
	return fmt.Sprintf("entry %s: its %s postings sum to %d, not 0", d.EntryID, d.Currency, d.Imbalance)
}
