package ledger

import (
	"errors"
	"fmt"
	"time"

	"github.com/bankrail/bankrail/internal/errs"
	"github.com/bankrail/bankrail/internal/money"
)

// ErrInsufficientFunds is the cause of an entry refused because it would
// take an account's available balance (or another part of it) below zero.
// Use errors.Is; the error returned carries errs.Conflict.
var ErrInsufficientFunds = errors.New("ledger: insufficient funds")

// ErrAppendOnly is the cause of a refused UPDATE or DELETE of postings:
// the database itself keeps them append-only (a bug when it happens).
var ErrAppendOnly = errors.New("ledger: postings are append-only")

// InsufficientFunds is the error of an entry refused on account.
func InsufficientFunds(account string) error {
	return errs.Wrap(errs.Conflict, fmt.Errorf("account %s: %w", account, ErrInsufficientFunds),
		"The account's available balance is too low for this movement.")
}

// Open is the first entry of a new transaction t, in status PROCESSING or
// COMPLETED:
//
//	INCOMING COMPLETED   External -> Available        (funds arrived)
//	INCOMING PROCESSING  External -> Pending          (funds announced)
//	OUTGOING PROCESSING  Available -> Held            (a hold: refund or payout in flight)
//	OUTGOING COMPLETED   Available -> External        (money left at once)
//
// Whoever applies the entry refuses it when a balance would go negative.
func Open(t Transaction, entryID string) (Entry, error) {
	if err := checkAmount(t); err != nil {
		return Entry{}, err
	}
	var from, to Bucket
	switch {
	case t.Operation == Incoming && t.Status == TxCompleted:
		from, to = External, Available
	case t.Operation == Incoming && t.Status == TxProcessing:
		from, to = External, Pending
	case t.Operation == Outgoing && t.Status == TxProcessing:
		from, to = Available, Held
	case t.Operation == Outgoing && t.Status == TxCompleted:
		from, to = Available, External
	default:
		return Entry{}, fmt.Errorf("ledger: a %s transaction cannot open in status %s", t.Operation, t.Status)
	}
	return transfer(t, entryID, from, to, t.CreatedAt), nil
}

// Settle ends a PROCESSING transaction t in status to (COMPLETED, FAILED
// or REJECTED) at time at: it returns the transaction after the move and
// the entry that moves its money.
//
//	INCOMING COMPLETED           Pending -> Available
//	INCOMING FAILED | REJECTED   Pending -> External   (the funds never came)
//	OUTGOING COMPLETED           Held -> External      (the money left)
//	OUTGOING FAILED | REJECTED   Held -> Available     (the money is back)
func Settle(t Transaction, to TxStatus, entryID string, at time.Time) (Transaction, Entry, error) {
	if t.Status != TxProcessing || !to.Final() {
		return Transaction{}, Entry{}, errs.E(errs.NotModifiable, "The transaction is %s; it cannot move to %s.", t.Status, to)
	}
	if err := checkAmount(t); err != nil {
		return Transaction{}, Entry{}, err
	}
	var from, into Bucket
	switch {
	case t.Operation == Incoming && to == TxCompleted:
		from, into = Pending, Available
	case t.Operation == Incoming:
		from, into = Pending, External
	case to == TxCompleted:
		from, into = Held, External
	default:
		from, into = Held, Available
	}
	t.Status, t.UpdatedAt = to, at
	return t, transfer(t, entryID, from, into, at), nil
}

// Reverse is the return of a completed incoming transaction's funds to
// their sender: a new BOUNCE_BACK transaction (id newID) that takes the
// amount out of the available balance at once, and its entry.
func Reverse(orig Transaction, newID, entryID string, at time.Time) (Transaction, Entry, error) {
	if orig.Operation != Incoming || orig.Status != TxCompleted {
		return Transaction{}, Entry{}, errs.E(errs.NotModifiable, "Only completed incoming funds can be returned.")
	}
	t := orig
	t.ID, t.Type, t.Operation, t.Status, t.ExternalID = newID, TypeBounceBack, Outgoing, TxCompleted, ""
	t.CreatedAt, t.UpdatedAt = at, at
	e, err := Open(t, entryID)
	return t, e, err
}

// checkAmount: a transaction moves a positive amount.
func checkAmount(t Transaction) error {
	if !t.Amount.Valid() || t.Amount.Sign() <= 0 {
		return fmt.Errorf("ledger: transaction %s moves %v; the amount must be positive", t.ID, t.Amount)
	}
	return nil
}

// transfer is the entry moving t's amount from one bucket of its account
// (or the outside world) to another.
func transfer(t Transaction, entryID string, from, to Bucket, at time.Time) Entry {
	neg, _ := t.Amount.Neg() // a positive int64 always negates
	acct := func(b Bucket) string {
		if b == External {
			return ""
		}
		return t.AccountID
	}
	return Entry{ID: entryID, TransactionID: t.ID, CreatedAt: at, Postings: []Posting{
		{AccountID: acct(from), Bucket: from, Amount: neg},
		{AccountID: acct(to), Bucket: to, Amount: t.Amount},
	}}
}

// Validate checks the double-entry rule of e: at least two postings, each a
// valid non-zero amount, External postings without an account and the
// others with one, summing to zero in every currency.
func Validate(e Entry) error {
	if len(e.Postings) < 2 {
		return fmt.Errorf("ledger: entry %s has %d postings; double entry needs at least two", e.ID, len(e.Postings))
	}
	sums := map[string]money.Money{}
	for i, p := range e.Postings {
		switch {
		case !p.Amount.Valid() || p.Amount.Sign() == 0:
			return fmt.Errorf("ledger: entry %s posting %d moves %v", e.ID, i, p.Amount)
		case (p.Bucket == External) != (p.AccountID == ""):
			return fmt.Errorf("ledger: entry %s posting %d: bucket %s with account %q", e.ID, i, p.Bucket, p.AccountID)
		case p.Bucket != External && p.Bucket != Available && p.Bucket != Pending && p.Bucket != Held:
			return fmt.Errorf("ledger: entry %s posting %d: unknown bucket %q", e.ID, i, p.Bucket)
		}
		s, ok := sums[p.Amount.Currency()]
		if !ok {
			s = money.Must(money.Zero(p.Amount.Currency()))
		}
		s, err := s.Add(p.Amount)
		if err != nil {
			return fmt.Errorf("ledger: entry %s: %w", e.ID, err)
		}
		sums[p.Amount.Currency()] = s
	}
	for cur, s := range sums {
		if s.Sign() != 0 {
			return fmt.Errorf("ledger: entry %s does not balance: %s postings sum to %v", e.ID, cur, s)
		}
	}
	return nil
}
