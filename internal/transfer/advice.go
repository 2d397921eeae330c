package transfer

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/bankrail/bankrail/internal/camt"
	"github.com/bankrail/bankrail/internal/ids"
	"github.com/bankrail/bankrail/internal/pain"
)

// adviceMessage is the message of the mock bank's debit advices.
var adviceMessage = camt.Message{Kind: camt.Notification, Version: camt.WrittenVersion}.String()

// Advices applies a camt.054 advice the mock bank wrote, in the unit of
// work r of the transfer's owner, with the code that applies production's
// bank statements (statement.Advices, wired by internal/app: the
// statement importer depends on this package, not the other way round).
// An entry it did not book as written (rejected, or kept as a
// reconciliation exception) is an error.
type Advices interface {
	ApplyAdvice(ctx context.Context, r Repos, name string, body []byte) error
}

// UseAdvices makes a the importer of the mock bank's camt.054 advices.
func (s *Service) UseAdvices(a Advices) { s.advices = a }

// errNoAdvices is the mock bank's error when no importer was wired.
var errNoAdvices = errors.New("mock bank: no importer of camt.054 advices is wired (transfer.Service.UseAdvices)")

// advise books transfer t, which the mock bank accepted in file out, as
// a bank does: with a camt.054 debit advice of its account (the debtor's
// IBAN), kept as an IN file beside the pain.001 and pain.002
// (GET /sandbox/bank-files) and applied by the statement importer in r.
// A transfer the bank carries out (ok) is one debit entry, and the
// importer books it COMPLETED; one it cannot carry out comes back: the
// advice's first entry is the return (a credit with RtrInf naming the
// transfer's EndToEndId), its second the debit, so the importer meets the
// return while the transfer is in flight and fails it with its funds back
// (FAILED), then finds the debit settled by it (the return's remittance
// is the sandbox's reason); the account's bank
// balance and its ledger both end where they began.
func (m MockBank) advise(ctx context.Context, r Repos, t Transfer, out File, ok bool, reason string, now time.Time) error {
	if m.Service.advices == nil {
		return errNoAdvices
	}
	e2e := pain.EndToEndID(t.ID)
	debit := camt.AdviceEntry{AcctSvcrRef: "MD" + e2e, Amount: t.Amount, BookingDate: now, EndToEndID: e2e,
		Reference: t.Remittance, Party: camt.Party{Name: t.CreditorName, IBAN: t.CreditorIBAN}}
	entries := []camt.AdviceEntry{debit}
	if !ok {
		back := debit
		back.AcctSvcrRef, back.Credit, back.Return, back.Reason = "MR"+e2e, true, true, "MS03" // MS03: reason not specified
		if reason != "" {
			back.Reference = "Return: " + reason
		}
		entries = []camt.AdviceEntry{back, debit}
	}
	msgID := "MD" + out.MsgID[2:] // beside the pain.002's MK...: unique as the pain.001's
	a := camt.Advice{MsgID: msgID, Created: now, IBAN: t.DebtorIBAN, Currency: t.Currency, Entries: entries}
	var buf bytes.Buffer
	if err := camt.WriteNotification(&buf, a); err != nil {
		return fmt.Errorf("mock bank: %w", err)
	}
	f := File{ID: ids.New(), MsgID: msgID, Message: adviceMessage, Direction: In, CustomerID: t.CustomerID, // an IN file counts its original's
		Original: out.MsgID, Count: out.Count, Sum: out.Sum, Currency: out.Currency, Body: buf.Bytes(), CreatedAt: now}
	if err := r.Transfers().AddFile(ctx, f); err != nil {
		return err
	}
	if err := m.Service.advices.ApplyAdvice(ctx, r, f.Name(), f.Body); err != nil {
		return fmt.Errorf("mock bank: the debit advice of transfer %s: %w", t.ID, err)
	}
	return nil
}
