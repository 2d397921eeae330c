package statement

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/bankrail/bankrail/internal/camt"
	"github.com/bankrail/bankrail/internal/clock"
	"github.com/bankrail/bankrail/internal/errs"
	"github.com/bankrail/bankrail/internal/ids"
	"github.com/bankrail/bankrail/internal/ledger"
	"github.com/bankrail/bankrail/internal/pain"
	"github.com/bankrail/bankrail/internal/payment"
)

// outcome is what applying one entry did.
type outcome struct {
	duplicate                                                 bool
	matched, manual, confirmed, returned, exceptions, repeats int
}

// apply applies entry p inside unit r: its claim first (an entry claimed
// before changes nothing), then each of its transactions.
func (im *Importer) apply(ctx context.Context, r Repos, p pending) (outcome, error) {
	now, err := clock.UnitTime(ctx, im.d.Clock, p.acct.CustomerID)
	if err != nil {
		return outcome{}, err
	}
	if claims(p.entry) {
		ok, err := r.Statements().Claim(ctx, Claim{Key: key(p.identity), Identity: p.identity, IBAN: p.iban, ImportID: p.importID, At: now})
		if err != nil || !ok {
			return outcome{duplicate: !ok}, err
		}
	}
	return im.applyClaimed(ctx, r, p, now)
}

// claims reports whether entry e is claimed (a row of its identity,
// Repository.Claim) when it is applied. An entry whose every transaction
// is incoming funds that name no outgoing transfer (a credit, no return,
// an EndToEndId that is no bankrail id: outgoing cannot find one) is not:
// each of its transactions is booked by Crediter.Credit as a ledger
// transaction under its external id (externalID, derived from the same
// identity), unique on its account, and Credit finds it there when the
// entry comes again (Repeated: a duplicate, as a claim would have said).
// A claim would be a second record of the same fact, one more row and
// index entry an entry (docs/decisions.md, "Incoming funds are claimed by
// their ledger transaction").
func claims(e camt.Entry) bool {
	if len(e.Transactions) == 0 {
		return true
	}
	for _, t := range e.Transactions {
		if !t.Credit || t.Return || ids.IsUUID(dashed(strings.TrimSpace(t.EndToEndID))) {
			return true
		}
	}
	return false
}

// applyClaimed applies each transaction of entry p, claimed in unit r.
func (im *Importer) applyClaimed(ctx context.Context, r Repos, p pending, now time.Time) (outcome, error) {
	var o outcome
	var err error
	for n, t := range p.entry.Transactions {
		if t.Credit {
			err = im.credit(ctx, r, p, n, t, now, &o)
		} else {
			err = im.debit(ctx, r, p, t, now, &o)
		}
		if err != nil {
			return outcome{}, fmt.Errorf("%s: %w", p.entry.Name(), err)
		}
	}
	return o, nil
}

// credit books incoming transaction t: the return of a transfer bankrail
// sent (its EndToEndId names it), or funds matched as POST /payin's.
func (im *Importer) credit(ctx context.Context, r Repos, p pending, n int, t camt.Transaction, now time.Time, o *outcome) error {
	if t.EndToEndID != "" {
		if err := settleFirst(ctx, r); err != nil {
			return err
		}
		tx, found, err := outgoing(ctx, r, p.acct, t.EndToEndID)
		if err != nil {
			return err
		}
		if found {
			return im.returned(ctx, r, p, n, t, tx, now, o)
		}
	}
	if t.Return {
		if err := settleFirst(ctx, r); err != nil {
			return err
		}
		return exception(ctx, r, p, t, now, o, "a returned transfer whose EndToEndId names no payout or refund of this account")
	}
	in := payinOf(p, n, t)
	out, err := im.d.Credit.Credit(ctx, r, p.acct, p.bounce, in, now)
	switch {
	case err != nil:
		return err
	case out.Repeated: // booked before under its external id (POST /payin, another IBAN of the account)
		o.repeats++
	case out.PaymentID != "":
		o.matched++
	default:
		o.manual++
	}
	return nil
}

// payinOf is transaction n of p as incoming funds: its references in
// order (structured first, then the unstructured lines, then the
// end-to-end id), its sender; an end-to-end id that is a bankrail id
// (pain.EndToEndID) is also the PaymentID matched first.
func payinOf(p pending, n int, t camt.Transaction) payment.PayinInput {
	refs := append(append([]string(nil), t.References...), t.EndToEndID)
	in := payment.PayinInput{ExternalPaymentID: externalID(p.identity, p.entry, n), Amount: t.Amount, Currency: t.Currency,
		SenderName: cut(t.Party.Name, payment.MaxNameLength), SenderIBAN: t.Party.IBAN, BeneficiaryIBAN: p.iban}
	if id, ok := pain.TransactionID(t.EndToEndID); ok { // bankrail's own id: the payment it names first
		in.PaymentID = id
	}
	for i, ref := range refs {
		if ref = strings.TrimSpace(ref); ref == "" {
			continue
		}
		if in.PaymentReference == "" {
			in.PaymentReference = cut(ref, payment.MaxReferenceLength)
		} else if i > 0 {
			in.References = append(in.References, ref)
		}
	}
	return in
}

// returned books the return of outgoing transaction tx: still in flight,
// it fails (payout FAILED, refund REJECTED) and its hold comes back;
// completed already (the bank debited it before), its funds are credited
// back as a MANUAL_CREDIT that names it; failed or rejected already,
// nothing moves. A return of another amount is an exception.
func (im *Importer) returned(ctx context.Context, r Repos, p pending, n int, t camt.Transaction, tx ledger.Transaction, now time.Time, o *outcome) error {
	if tx.Amount.Minor() != t.Amount {
		return exception(ctx, r, p, t, now, o, fmt.Sprintf("returns %s %s of %s %d, whose amount is %d", tx.Type, tx.ID, tx.Amount.Currency(), t.Amount, tx.Amount.Minor()))
	}
	o.returned++
	switch tx.Status {
	case ledger.TxProcessing:
		return im.book(ctx, r, tx, true, now)
	case ledger.TxCompleted:
		in := payinOf(p, n, t)
		in.PaymentReference, in.References = "return of "+tx.ID, nil
		_, err := im.d.Credit.Credit(ctx, r, p.acct, false, in, now)
		return err
	}
	return nil
}

// debit books outgoing transaction t: the bank's debit of a payout or
// refund bankrail sent (by EndToEndId) completes it; anything else is an
// exception.
func (im *Importer) debit(ctx context.Context, r Repos, p pending, t camt.Transaction, now time.Time, o *outcome) error {
	if err := settleFirst(ctx, r); err != nil {
		return err
	}
	if t.EndToEndID == "" {
		return exception(ctx, r, p, t, now, o, "a debit without an EndToEndId: bankrail did not initiate it")
	}
	tx, found, err := outgoing(ctx, r, p.acct, t.EndToEndID)
	switch {
	case err != nil:
		return err
	case !found:
		return exception(ctx, r, p, t, now, o, "no payout or refund of this account has the EndToEndId "+t.EndToEndID)
	case tx.Amount.Minor() != t.Amount:
		return exception(ctx, r, p, t, now, o, fmt.Sprintf("%s %s is of %d, the debit of %d", tx.Type, tx.ID, tx.Amount.Minor(), t.Amount))
	}
	o.confirmed++
	if tx.Status != ledger.TxProcessing {
		return nil // completed before, or its return came first: the money is where it belongs
	}
	return im.book(ctx, r, tx, false, now)
}

// book ends payout or refund tx as the bank reports it, in the entry's
// unit of work r. A transaction that left as a transfer file (it has a
// transfer row, the same id) is booked through the transfers
// (TransferBooker): the row moves to BOOKED and its owner ends with it,
// so a later pain.002 cannot contradict the debit. One without a row (a
// payout or refund decided before the transfers existed, or by a sandbox
// path without a file) is ended by its owner directly, as before. A
// return ends either FAILED with its funds back (docs/decisions.md,
// "One booking of the bank's debits").
func (im *Importer) book(ctx context.Context, r Repos, tx ledger.Transaction, returned bool, now time.Time) error {
	if im.d.Transfers != nil {
		switch _, err := r.Transfers().Get(ctx, tx.ID); {
		case err == nil:
			reason := ""
			if returned {
				reason = "returned: the bank's statement reports the transfer back"
			}
			_, err = im.d.Transfers.Book(ctx, r, tx.ID, !returned, reason, now)
			return err
		case !errs.Is(err, errs.NotFound):
			return err
		}
	}
	if tx.Type == ledger.TypeRefund {
		return im.d.Refunds.Booked(ctx, r, tx, returned)
	}
	return im.d.Payouts.Booked(ctx, r, tx, returned, now)
}

// outgoing finds the payout or refund of acct that endToEndID names: its
// ledger transaction's id (or a refund's id), with or without the dashes
// of a UUID (an EndToEndId holds 35 characters, a UUID 36).
func outgoing(ctx context.Context, r Repos, acct ledger.Account, endToEndID string) (ledger.Transaction, bool, error) {
	id := dashed(endToEndID)
	tx, err := r.Ledger().Transaction(ctx, acct.CustomerID, id)
	if errs.Is(err, errs.NotFound) {
		f, ferr := r.Refunds().Get(ctx, acct.CustomerID, id)
		if ferr == nil {
			tx, err = r.Ledger().Transaction(ctx, acct.CustomerID, f.TransactionID)
		} else if !errs.Is(ferr, errs.NotFound) {
			return ledger.Transaction{}, false, ferr
		}
	}
	switch {
	case errs.Is(err, errs.NotFound):
		return ledger.Transaction{}, false, nil
	case err != nil:
		return ledger.Transaction{}, false, err
	}
	ok := tx.AccountID == acct.ID && tx.Operation == ledger.Outgoing && (tx.Type == ledger.TypePayout || tx.Type == ledger.TypeRefund)
	return tx, ok, nil
}

// dashed writes 32 hex digits as a UUID; anything else as it is.
func dashed(s string) string {
	if len(s) != 32 || strings.Trim(strings.ToLower(s), "0123456789abcdef") != "" {
		return s
	}
	s = strings.ToLower(s)
	return s[:8] + "-" + s[8:12] + "-" + s[12:16] + "-" + s[16:20] + "-" + s[20:]
}

// exception keeps transaction t of p for an operator.
func exception(ctx context.Context, r Repos, p pending, t camt.Transaction, now time.Time, o *outcome, reason string) error {
	o.exceptions++
	e := Exception{ID: ids.New(), ImportID: p.importID, Entry: p.entry.Name(), EntryKey: key(p.identity), IBAN: p.iban, AccountID: p.acct.ID,
		Credit: t.Credit, Amount: t.Amount, Currency: t.Currency, EndToEndID: t.EndToEndID, Reference: strings.Join(t.References, " / "),
		Party: strings.TrimSpace(t.Party.Name + " " + t.Party.IBAN), BookingDate: p.entry.BookingDate, Reason: reason,
		Status: ExceptionOpen, CreatedAt: now}
	return r.Statements().AddException(ctx, e)
}

// cut shortens s to at most n characters.
func cut(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n])
	}
	return s
}
