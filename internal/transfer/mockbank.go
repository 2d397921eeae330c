package transfer

import (
	"bytes"
	"context"
	"fmt"
	"time"

	"github.com/bankrail/bankrail/internal/clock"
	"github.com/bankrail/bankrail/internal/errs"
	"github.com/bankrail/bankrail/internal/ids"
	"github.com/bankrail/bankrail/internal/pain"
)

// MockOutcome is what the sandbox's mock bank does with a transfer (the
// owner decides it by the sandbox's rules: magic amounts, scenarios).
type MockOutcome string

// Outcomes of the mock bank.
const (
	MockBook   MockOutcome = "BOOK"   // accepted (pain.002 ACCP), then its debit booked: COMPLETED / CONFIRMED
	MockFail   MockOutcome = "FAIL"   // accepted, then not carried out (a return): FAILED
	MockReject MockOutcome = "REJECT" // rejected in the pain.002 (RJCT): REJECTED
)

// MockBank is the sandbox's bank for transfers: it takes a transfer as a
// pain.001 file of its own (the customer's, listed at GET
// /sandbox/bank-files), answers it with a pain.002 that the same code as
// production's applies, and books the debit of what it accepted. All of it
// happens in the unit of work of the transfer's owner, so the sandbox's
// payouts and refunds end as at once as they always did.
//
// What it accepted it books with a camt.054 debit advice (advice.go),
// applied by the statement importer as production's bank statements are
// (Service.UseAdvices).
type MockBank struct{ Service *Service }

// Exchange sends t through the mock bank with outcome o (reason is the
// bank's reason for a rejection or a failure), in the owner's unit of
// work r. A transfer the mock bank has seen before is left as it is (the
// owner's job ran again).
func (m MockBank) Exchange(ctx context.Context, r Repos, t Transfer, o MockOutcome, reason string) error {
	s := m.Service
	if _, err := r.Transfers().Get(ctx, t.ID); err == nil {
		return nil
	} else if !errs.Is(err, errs.NotFound) {
		return err
	}
	if err := Queue(ctx, r, t); err != nil {
		return err
	}
	out, err := s.export(ctx, r, t.CustomerID)
	if err != nil {
		return fmt.Errorf("mock bank: %w", err)
	}
	now := out.CreatedAt
	answer := pain.Answer{ID: "MK" + out.MsgID[2:], CreatedAt: now, OriginalMsgID: out.MsgID}
	t.ExecutionDate = out.CreatedAt.Format(time.DateOnly) // as the export filed it
	blocks, err := pain.PaymentInfoIDs(out.MsgID, []pain.Instruction{t.instruction()})
	if err != nil {
		return err
	}
	st := pain.Status{Code: "ACCP"}
	if o == MockReject {
		st = pain.Status{Code: "RJCT", Reason: "AC04: " + reason}
	}
	answer.Transactions = []pain.Transaction{{PaymentInfoID: blocks[t.ID], EndToEndID: pain.EndToEndID(t.ID), Status: st}}
	var buf bytes.Buffer
	if err := pain.WriteStatus(&buf, answer); err != nil {
		return err
	}
	in := File{ID: ids.New(), MsgID: answer.ID, Message: pain.StatusMessage, Direction: In, CustomerID: t.CustomerID,
		Original: out.MsgID, Count: out.Count, Sum: out.Sum, Currency: out.Currency, Body: buf.Bytes(), CreatedAt: now}
	if err := r.Transfers().AddFile(ctx, in); err != nil {
		return err
	}
	rep, err := pain.Read(bytes.NewReader(in.Body))
	if err != nil {
		return err
	}
	var sum Summary
	if err := s.apply(ctx, r, out, rep, &sum, now); err != nil {
		return err
	}
	if o == MockReject {
		return nil
	}
	return m.advise(ctx, r, t, out, o == MockBook, reason, now)
}

// export writes the queued transfers of customerID (or every customer's,
// when empty) into a new pain.001 file in unit of work r.
func (s *Service) export(ctx context.Context, r Repos, customerID string) (File, error) {
	now := clock.Base(s.clock) // basetime: a file spans customers (tenants); its time is the instance's
	f := File{ID: ids.New(), Message: pain.InitiationMessage, Direction: Out, CustomerID: customerID,
		Currency: pain.Currency, CreatedAt: now.UTC().Truncate(time.Microsecond)}
	f.MsgID = "BR" + f.ID[:8] + f.ID[9:13] + f.ID[14:18] + f.ID[19:23] + f.ID[24:] // 34 characters, unique as the id
	claimed, err := r.Transfers().Claim(ctx, f.ID, customerID, s.cfg.MaxPerFile, f.CreatedAt.Format(time.DateOnly), f.CreatedAt)
	if err != nil {
		return File{}, err
	}
	if len(claimed) == 0 {
		return File{}, ErrNoFile
	}
	m := pain.Message{ID: f.MsgID, CreatedAt: f.CreatedAt, Initiator: s.cfg.Initiator, Transfers: make([]pain.Instruction, len(claimed))}
	for i, t := range claimed {
		m.Transfers[i] = t.instruction()
		if m.Transfers[i].DebtorName == "" {
			m.Transfers[i].DebtorName = s.cfg.Initiator // the provider holds the Connect accounts
		}
	}
	var buf bytes.Buffer
	buf.Grow(len(claimed) * 700)
	sum, err := pain.Write(&buf, m)
	if err != nil {
		return File{}, fmt.Errorf("write the transfer file: %w", err)
	}
	f.Count, f.Sum, f.Body = sum.Count, sum.Sum, buf.Bytes()
	if err := r.Transfers().AddFile(ctx, f); err != nil {
		return File{}, err
	}
	return f, nil
}
