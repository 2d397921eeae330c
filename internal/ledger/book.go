package ledger

import "fmt"

// Book is the ledger in memory: the rules the store applies with SQL
// (Validate, then no balance below zero, all or nothing), kept as the
// reference the property tests and the store's tests compare against.
type Book struct {
	currency map[string]string  // account -> currency
	balances map[string]Balance // account -> sums of its postings
	world    map[string]int64   // currency -> sum of External postings
	entries  []Entry
}

// NewBook is an empty book.
func NewBook() *Book {
	return &Book{currency: map[string]string{}, balances: map[string]Balance{}, world: map[string]int64{}}
}

// Open adds an account of currency with a zero balance.
func (b *Book) Open(account, currency string) { b.currency[account] = currency }

// Balance is account's balance.
func (b *Book) Balance(account string) Balance { return b.balances[account] }

// World is the sum of the External postings of currency.
func (b *Book) World(currency string) int64 { return b.world[currency] }

// Entries are the entries applied, in order.
func (b *Book) Entries() []Entry { return b.entries }

// Apply posts e: it fails, changing nothing, when e breaks double entry,
// names an unknown account or another currency than the account's, or
// takes a balance below zero (InsufficientFunds).
func (b *Book) Apply(e Entry) error {
	if err := Validate(e); err != nil {
		return err
	}
	for _, p := range e.Postings {
		if p.Bucket == External {
			continue
		}
		cur, ok := b.currency[p.AccountID]
		if !ok {
			return fmt.Errorf("ledger: entry %s posts to unknown account %s", e.ID, p.AccountID)
		}
		if cur != p.Amount.Currency() {
			return fmt.Errorf("ledger: entry %s posts %s to the %s account %s", e.ID, p.Amount.Currency(), cur, p.AccountID)
		}
	}
	next := map[string]Balance{}
	for _, a := range e.Accounts() {
		nb := b.balances[a].Add(e.Delta(a))
		if nb.Negative() {
			return InsufficientFunds(a)
		}
		next[a] = nb
	}
	for a, nb := range next {
		b.balances[a] = nb
	}
	for _, p := range e.Postings {
		if p.Bucket == External {
			b.world[p.Amount.Currency()] += p.Amount.Minor()
		}
	}
	b.entries = append(b.entries, e)
	return nil
}

// Replay sums entries into balances per account from nothing: what the
// balances must be, whatever a cache says.
func Replay(entries []Entry) map[string]Balance {
	out := map[string]Balance{}
	for _, e := range entries {
		for _, a := range e.Accounts() {
			out[a] = out[a].Add(e.Delta(a))
		}
	}
	return out
}
