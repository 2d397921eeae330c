package statement

import (
	"context"
	"fmt"

	"github.com/bankrail/bankrail/internal/camt"
	"github.com/bankrail/bankrail/internal/clock"
	"github.com/bankrail/bankrail/internal/errs"
	"github.com/bankrail/bankrail/internal/ledger"
)

// run is one file being applied: the camt.Handler of the second reading.
type run struct {
	im       *Importer
	ctx      context.Context
	sum      Summary
	accounts map[string]*account // by the report's account (IBAN or other id)
	seen     map[string]int      // digests met (Identity)
	batch    []pending
	applied  int // entries applied (or found applied) so far
}

// account is an account of the file: its summary and, when it is known,
// its ledger account.
type account struct {
	index  int // in sum.Accounts
	known  bool
	acct   ledger.Account
	bounce bool
}

// pending is an entry waiting for its batch's unit of work.
type pending struct {
	entry    camt.Entry
	identity string
	iban     string
	acct     ledger.Account
	bounce   bool
	importID string
}

// Report notes the report's account and its closing balance.
func (r *run) Report(rep camt.Report) error {
	name := rep.Account()
	a, ok := r.accounts[name]
	if !ok {
		a = &account{index: len(r.sum.Accounts)}
		r.accounts[name] = a
		r.sum.Accounts = append(r.sum.Accounts, AccountSummary{IBAN: name})
		if rep.IBAN != "" {
			acct, bounce, err := r.im.d.Reads.AccountOf(r.ctx, rep.IBAN)
			switch {
			case err == nil:
				a.known, a.acct, a.bounce = true, acct, bounce
			case !errs.Is(err, errs.NotFound):
				return err
			}
		}
		s := &r.sum.Accounts[a.index]
		s.Known = a.known
		ccy := rep.Currency
		if a.known {
			ccy = a.acct.Currency
		}
		s.Credited.Currency, s.Debited.Currency = ccy, ccy
	}
	if rep.Closing != nil {
		r.sum.Accounts[a.index].ClosingBank = &Amount{Amount: rep.Closing.Amount, Currency: rep.Closing.Currency}
	}
	return nil
}

// Entry counts the entry in its account's sums and queues it when it
// moves money on a known account.
func (r *run) Entry(rep camt.Report, e camt.Entry) error {
	if e.Problem != nil {
		r.reject(e, e.Problem.Error())
		return nil
	}
	a := r.accounts[rep.Account()]
	s := &r.sum.Accounts[a.index]
	if s.Credited.Currency == "" {
		s.Credited.Currency, s.Debited.Currency = e.Currency, e.Currency
	}
	switch {
	case e.Status != camt.Booked:
		r.sum.NotBooked++
		return nil
	case e.Currency != s.Credited.Currency:
		r.reject(e, fmt.Sprintf("the entry is in %s, the account %s in %s", e.Currency, s.IBAN, s.Credited.Currency))
		return nil
	}
	for _, t := range e.Transactions {
		if t.Credit {
			s.Credited.Count++
			s.Credited.Amount += t.Amount
		} else {
			s.Debited.Count++
			s.Debited.Amount += t.Amount
		}
	}
	if !a.known {
		return nil
	}
	if a.acct.Status != ledger.AccountActive {
		r.reject(e, fmt.Sprintf("the Connect account %s is %s", s.IBAN, a.acct.Status))
		return nil
	}
	r.batch = append(r.batch, pending{entry: e, identity: Identity(s.IBAN, e, r.seen), iban: s.IBAN, acct: a.acct, bounce: a.bounce, importID: r.sum.ID})
	if len(r.batch) >= r.im.d.Config.BatchSize {
		return r.flush()
	}
	return nil
}

func (r *run) reject(e camt.Entry, reason string) {
	r.sum.Rejected = append(r.sum.Rejected, Rejection{Entry: e.Name(), Reason: reason})
}

// flush applies the queued entries in one unit of work; when that fails,
// each in its own, so that one entry's fault rejects that entry alone.
func (r *run) flush() error {
	batch := r.batch
	r.batch = r.batch[:0]
	if len(batch) == 0 {
		return nil
	}
	outs, err := r.im.applyBatch(r.ctx, batch)
	if err == nil {
		for _, o := range outs {
			r.add(o)
		}
		r.progress(len(batch))
		return nil
	}
	if len(batch) == 1 && !entryFault(err) {
		return err
	}
	for _, p := range batch {
		var o outcome
		err := r.im.retrying(r.ctx, func(rp Repos) (err error) {
			o, err = r.im.apply(r.ctx, rp, p)
			return err
		})
		switch {
		case err == nil:
			r.add(o)
		case entryFault(err):
			r.reject(p.entry, err.Error())
		default:
			return err
		}
	}
	r.progress(len(batch))
	return nil
}

func (r *run) progress(n int) {
	r.applied += n
	if r.im.d.Progress != nil {
		r.im.d.Progress(r.sum.File, r.applied)
	}
}

// retrying runs fn in a unit of work, again when another one moved what
// it read (CONFLICT), up to three times.
func (im *Importer) retrying(ctx context.Context, fn func(Repos) error) error {
	var err error
	for range 3 {
		if err = im.d.InTx(ctx, fn); !errs.Is(err, errs.Conflict) {
			return err
		}
	}
	return err
}

func (r *run) add(o outcome) {
	s := &r.sum
	if o.duplicate {
		s.Duplicates++
		return
	}
	s.Matched += o.matched
	s.ManualCredits += o.manual
	s.OutgoingConfirmed += o.confirmed
	s.Returned += o.returned
	s.Exceptions += o.exceptions
	if o.repeats > 0 && o.matched+o.manual+o.confirmed+o.returned+o.exceptions == 0 {
		s.Duplicates++
	}
}

// finish adds the ledger's balances and keeps the summary.
func (r *run) finish() (Summary, error) {
	now, err := clock.UnitTime(r.ctx, r.im.d.Clock, "")
	if err != nil {
		return Summary{}, err
	}
	r.sum.ImportedAt = now
	for name, a := range r.accounts {
		if !a.known {
			continue
		}
		acct, _, err := r.im.d.Reads.AccountOf(r.ctx, name)
		if err != nil {
			return Summary{}, err
		}
		s := &r.sum.Accounts[a.index]
		s.ClosingLedger = &Amount{Amount: acct.Balance.Available + acct.Balance.Held, Currency: acct.Currency}
		if s.ClosingBank != nil && s.ClosingBank.Currency == acct.Currency {
			d := s.ClosingBank.Amount - s.ClosingLedger.Amount
			s.Difference = &d
		}
	}
	if err := r.im.d.InTx(r.ctx, func(rp Repos) error { return rp.Statements().SaveImport(r.ctx, r.sum) }); err != nil {
		return Summary{}, err
	}
	return r.sum, nil
}
