package statement

import (
	"bytes"
	"context"
	"fmt"
	"strings"

	"github.com/bankrail/bankrail/internal/camt"
	"github.com/bankrail/bankrail/internal/clock"
	"github.com/bankrail/bankrail/internal/ids"
	"github.com/bankrail/bankrail/internal/pain"
	"github.com/bankrail/bankrail/internal/payment"
	"github.com/bankrail/bankrail/internal/transfer"
)

// Arrive is the sandbox's mock bank sending the funds f of the expected
// payment p, which the unit of work r has just moved to COMPLETED: a
// camt.054 credit advice on p's Connect account, from the payer's account
// (f.Sender) with p's unique reference in RmtInf/Ustrd, kept as an IN bank
// file of p's customer (GET /sandbox/bank-files) and applied by the
// importer in r, so that Service.Credit matches it and moves p to RECEIVED
// as it does a production bank's statement. The entry's AcctSvcrRef and
// the file's MsgId are CR- and p's id without its dashes (35 characters):
// one advice per payment. Its EndToEndId is p's id as bankrail writes them
// (pain.EndToEndID), as the payer's bank reports the end-to-end id of a
// transfer bankrail initiated: the importer matches that id first
// (PayinInput.PaymentID), so the advice pays p and never an older payment
// that waits with the same reference and amount (a merchant's
// paymentReference need not be unique; the concurrent creations of the
// bench soak, all "Soak", took each other's funds and answered 409). An
// entry the importer did not match is an error: the mock bank writes only
// what p expects.
func (p Payins) Arrive(ctx context.Context, r payment.Repos, pay payment.Payment, f payment.Funds) error {
	rs, ok := r.(Repos)
	if !ok {
		return fmt.Errorf("statement: the unit of work %T cannot apply a statement", r)
	}
	acct, err := rs.Ledger().Account(ctx, pay.CustomerID, pay.ConnectAccountID)
	if err != nil {
		return fmt.Errorf("the Connect account of payment %s: %w", pay.ID, err)
	}
	now, err := clock.UnitTime(ctx, p.Clock, pay.CustomerID)
	if err != nil {
		return err
	}
	ref := ArrivalMsgID(pay.ID)
	a := camt.Advice{MsgID: ref, Created: now, IBAN: acct.IBAN, Currency: acct.Currency,
		Entries: []camt.AdviceEntry{{AcctSvcrRef: ref, Amount: pay.Amount(), Credit: true, BookingDate: now,
			EndToEndID: pain.EndToEndID(pay.ID), Reference: pay.UniqueReference, Party: camt.Party{Name: f.Sender.Name, IBAN: f.Sender.IBAN}}}}
	var buf bytes.Buffer
	if err := camt.WriteNotification(&buf, a); err != nil {
		return err
	}
	file := transfer.File{ID: ids.New(), MsgID: ref, Message: payinMessage, Direction: transfer.In, CustomerID: acct.CustomerID,
		Count: 1, Sum: pay.Amount(), Currency: acct.Currency, Body: buf.Bytes(), CreatedAt: now}
	if err := rs.Transfers().AddFile(ctx, file); err != nil {
		return err
	}
	s, err := p.Importer.ApplyWithin(ctx, rs, "camt054-"+file.Name(), file.Body)
	switch {
	case err != nil:
		return err
	case len(s.Rejected) > 0:
		return fmt.Errorf("the mock bank's credit of payment %s was rejected: %s", pay.ID, s.Rejected[0].Reason)
	case s.Matched != 1:
		return fmt.Errorf("the mock bank's credit of payment %s matched no expected payment: %+v", pay.ID, s)
	}
	return nil
}

// ArrivalMsgID is the MsgId (and the entry's AcctSvcrRef) of the mock
// bank's credit advice of payment id's funds.
func ArrivalMsgID(id string) string { return "CR-" + strings.ReplaceAll(id, "-", "") }
