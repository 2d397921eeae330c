package transfer

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/bankrail/bankrail/internal/clock"
	"github.com/bankrail/bankrail/internal/errs"
	"github.com/bankrail/bankrail/internal/identity"
	"github.com/bankrail/bankrail/internal/ids"
	"github.com/bankrail/bankrail/internal/pain"
)

// Summary is what importing a pain.002 did.
type Summary struct {
	File      string `json:"file"`      // the id bankrail gave the report (a bank file, direction IN)
	MsgID     string `json:"msgId"`     // the report's MsgId
	Original  string `json:"original"`  // the MsgId of the pain.001 it answers
	Accepted  int    `json:"accepted"`  // transfers that moved FILED -> ACCEPTED
	Rejected  int    `json:"rejected"`  // transfers that moved to REJECTED (their owner with them)
	Pending   int    `json:"pending"`   // transfers the report leaves without an answer
	Unchanged int    `json:"unchanged"` // transfers answered already (a repeat)
	// Unknown lists the OrgnlEndToEndIds the report names that are not in
	// the original file: nothing is done with them.
	Unknown []string `json:"unknown"`
	// RejectedAfterBooking lists the transfers the report rejects whose
	// debit the bank had booked already (a statement came first): nothing
	// is done with them (they count as unchanged); an operator asks the
	// bank.
	RejectedAfterBooking []string `json:"rejectedAfterBooking"`
	// Duplicate is true when this very report was imported before: nothing
	// changed.
	Duplicate bool `json:"duplicate"`
}

// ImportStatus reads the bank's pain.002 report body and applies it in one
// unit of work, for an operator (identity.BankFilesImport).
func (s *Service) ImportStatus(ctx context.Context, body []byte) (Summary, error) {
	if _, err := identity.Authorize(ctx, identity.BankFilesImport); err != nil {
		return Summary{}, err
	}
	return s.Apply(ctx, body)
}

// Apply reads the pain.002 report body and applies it in one unit of
// work (the CLI and the folder, which act with the database's authority):
// each transfer of the original file gets its status (pain.Report.Of: a
// group RJCT rejects them all); a rejected one is REJECTED and its owner
// with it (its hold back in one ledger entry, its notification), an
// accepted one ACCEPTED, waiting for its debit. The report is stored as an
// IN file; importing it again, or another report that repeats answers,
// changes nothing. A report that is not a pain.002, or answers a file
// bankrail did not write, is a VALIDATION_FAILURE and writes nothing.
func (s *Service) Apply(ctx context.Context, body []byte) (Summary, error) {
	rep, err := pain.Read(bytes.NewReader(body))
	if err != nil {
		return Summary{}, errs.Wrap(errs.ValidationFailure, err, "The file is not a %s payment status report: %v", pain.StatusMessage, err)
	}
	orig, err := s.transfers.FileByMsgID(ctx, Out, "", rep.OriginalMsgID)
	if errs.Is(err, errs.NotFound) {
		return Summary{}, errs.E(errs.ValidationFailure, "The report %s answers the file %s, which bankrail did not write.", rep.MsgID, rep.OriginalMsgID)
	} else if err != nil {
		return Summary{}, err
	}
	var sum Summary
	err = s.inTx(ctx, func(r Repos) error {
		sum = Summary{MsgID: rep.MsgID, Original: rep.OriginalMsgID, Unknown: []string{}, RejectedAfterBooking: []string{}}
		now := clock.Base(s.clock).UTC().Truncate(time.Microsecond) // basetime: a bank file's time is the instance's
		in := File{ID: ids.New(), MsgID: rep.MsgID, Message: pain.StatusMessage, Direction: In, CustomerID: orig.CustomerID,
			Original: orig.MsgID, Count: orig.Count, Sum: orig.Sum, Currency: orig.Currency, Body: body, CreatedAt: now}
		if rep.MsgID == "" {
			in.MsgID = "NOMSGID-" + in.ID
		}
		sum.File = in.ID
		if err := r.Transfers().AddFile(ctx, in); errs.Is(err, errs.Conflict) {
			sum.Duplicate = true
			return nil
		} else if err != nil {
			return err
		}
		return s.apply(ctx, r, orig, rep, &sum, now)
	})
	if err != nil {
		return Summary{}, err
	}
	if sum.Duplicate {
		if f, err := s.transfers.FileByMsgID(ctx, In, orig.CustomerID, rep.MsgID); err == nil {
			sum.File = f.ID
		}
	}
	count := sum.Accepted + sum.Rejected + sum.Pending + sum.Unchanged
	s.log.Info("transfer status report imported", "msgId", rep.MsgID, "original", rep.OriginalMsgID, "transfers", count,
		"accepted", sum.Accepted, "rejected", sum.Rejected, "unknown", len(sum.Unknown), "duplicate", sum.Duplicate)
	return sum, nil
}

// apply gives each transfer of the file orig its status in rep.
func (s *Service) apply(ctx context.Context, r Repos, orig File, rep pain.Report, sum *Summary, now time.Time) error {
	ts, err := r.Transfers().InFile(ctx, orig.ID)
	if err != nil {
		return err
	}
	lines := make([]pain.Instruction, len(ts))
	for i, t := range ts {
		lines[i] = t.instruction()
	}
	blocks, err := pain.PaymentInfoIDs(orig.MsgID, lines)
	if err != nil {
		return fmt.Errorf("the transfers of file %s: %w", orig.MsgID, err)
	}
	listed := make(map[string]pain.Status, len(rep.Transactions))
	byID := make(map[string]bool, len(ts))
	for _, t := range ts {
		byID[t.ID] = true
	}
	for _, tx := range rep.Transactions {
		id, ok := pain.TransactionID(tx.EndToEndID)
		if !ok || !byID[id] {
			sum.Unknown = append(sum.Unknown, tx.EndToEndID)
			continue
		}
		listed[id] = tx.Status
	}
	for _, t := range ts {
		st := rep.Of(blocks[t.ID], listed[t.ID])
		if err := s.answer(ctx, r, t, st, sum, now); err != nil {
			return fmt.Errorf("transfer %s: %w", t.ID, err)
		}
	}
	return nil
}

// answer applies status st to transfer t.
func (s *Service) answer(ctx context.Context, r Repos, t Transfer, st pain.Status, sum *Summary, now time.Time) error {
	outcome, _ := pain.OutcomeOf(st.Code)
	switch {
	case outcome == pain.Pending:
		sum.Pending++
		return nil
	case outcome == pain.Accepted && t.State == Filed:
		sum.Accepted++
		return r.Transfers().Answer(ctx, t.ID, Filed, Accepted, "", now)
	case outcome == pain.Rejected && (t.State == Filed || t.State == Accepted):
		sum.Rejected++
		reason := st.Reason
		if reason == "" {
			reason = "RJCT"
		}
		if err := r.Transfers().Answer(ctx, t.ID, t.State, Rejected, reason, now); err != nil {
			return err
		}
		o, ok := s.owners[t.Kind]
		if !ok {
			return fmt.Errorf("no owner of %s transfers is wired", t.Kind)
		}
		return o.Rejected(ctx, r, t, reason)
	case outcome == pain.Rejected && t.State == Booked:
		// The bank's debit was booked first (camt.054 / camt.053): the
		// money left, the owner is ended; a late rejection cannot undo it.
		s.log.Warn("transfer status report rejects a transfer already booked: unchanged", "transfer", t.ID,
			"kind", t.Kind, "owner", t.OwnerID, "reason", st.Reason, "report", sum.MsgID)
		sum.Unchanged++
		sum.RejectedAfterBooking = append(sum.RejectedAfterBooking, t.ID)
		return nil
	}
	sum.Unchanged++
	return nil
}

// Book books the bank's debit of transfer id: the hook where the bank's
// debit advice (camt.054) or statement (camt.053) that carries the
// transfer's EndToEndId ends it, COMPLETED (ok), or FAILED with reason
// (a return), its owner with it, in the unit of work r of the import. A
// transfer booked already is left as it is (false); a transfer the bank
// rejected cannot be booked (CONFLICT).
func (s *Service) Book(ctx context.Context, r Repos, id string, ok bool, reason string, now time.Time) (bool, error) {
	t, err := r.Transfers().Get(ctx, id)
	if err != nil {
		return false, err
	}
	switch t.State {
	case Booked:
		return false, nil
	case Rejected:
		return false, errs.E(errs.Conflict, "The bank rejected transfer %s; it cannot be booked.", id)
	}
	if err := r.Transfers().Answer(ctx, t.ID, t.State, Booked, reason, now); err != nil {
		return false, err
	}
	o, found := s.owners[t.Kind]
	if !found {
		return false, errors.New("no owner of " + string(t.Kind) + " transfers is wired")
	}
	return true, o.Booked(ctx, r, t, ok, reason)
}

// BookAlone is Book in a unit of work of its own: the sandbox's mock
// bank books its debits so (it completes what it accepted at once), and
// so may a caller that has no statement to import with it.
func (s *Service) BookAlone(ctx context.Context, id string, ok bool, reason string) (bool, error) {
	var booked bool
	err := s.inTx(ctx, func(r Repos) error {
		var err error
		booked, err = s.Book(ctx, r, id, ok, reason, clock.Base(s.clock)) // basetime: the transfer's row; its owner moves on its tenant's clock
		return err
	})
	return booked, err
}
