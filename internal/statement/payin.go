package statement

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"strings"
	"time"

	"github.com/bankrail/bankrail/internal/camt"
	"github.com/bankrail/bankrail/internal/clock"
	"github.com/bankrail/bankrail/internal/errs"
	"github.com/bankrail/bankrail/internal/ids"
	"github.com/bankrail/bankrail/internal/ledger"
	"github.com/bankrail/bankrail/internal/payment"
	"github.com/bankrail/bankrail/internal/transfer"
)

// Payins is the sandbox's mock bank for incoming funds (POST /payin): it
// writes the funds as a camt.054 credit advice, as a real bank would send
// it, keeps it as an IN bank file of the account's customer (listed at
// GET /sandbox/bank-files) and hands it to the importer, so that the
// sandbox books them with the code that books a production bank's
// statements; the file and the credit are written in one unit of work.
type Payins struct {
	Importer *Importer
	Clock    clock.Clock
}

var _ payment.IncomingBank = Payins{}

// payinMessage is the message of the advices Payins writes.
var payinMessage = camt.Message{Kind: camt.Notification, Version: camt.WrittenVersion}.String()

// Incoming writes in (validated by payment.Service.Payin; acct is its
// account) as a camt.054 credit entry whose AcctSvcrRef is its
// externalPaymentId (a digest of it past the 35 characters the field
// holds: the same id makes the same entry, so a repeat changes nothing),
// and applies it in one unit of work with the file kept. A repeat keeps no
// second file. A concurrent payin that took the payment or the id is
// looked at again, as payment.Service.Payin does.
func (p Payins) Incoming(ctx context.Context, acct ledger.Account, in payment.PayinInput) (payment.PayinOutcome, error) {
	now, err := clock.UnitTime(ctx, p.Clock, in.ViewerCustomerID)
	if err != nil {
		return payment.PayinOutcome{}, err
	}
	var out payment.PayinOutcome
	for range 3 {
		err = p.Importer.d.InTx(ctx, func(r Repos) error {
			var err error
			out, err = p.incoming(ctx, r, acct, in, now)
			return err
		})
		if !errs.Is(err, errs.Conflict) {
			break
		}
	}
	return out, err
}

// incoming is Incoming's unit of work r.
func (p Payins) incoming(ctx context.Context, r Repos, acct ledger.Account, in payment.PayinInput, now time.Time) (payment.PayinOutcome, error) {
	ref := in.ExternalPaymentID
	if len(ref) > 35 || strings.TrimSpace(ref) != ref {
		ref = "X" + digest(ref, 34)
	}
	f, err := keepAdvice(ctx, r, acct, ref, in, now)
	if err != nil {
		return payment.PayinOutcome{}, err
	}
	s, err := p.Importer.ApplyWithin(ctx, r, "camt054-"+f.Name(), f.Body)
	if err != nil {
		return payment.PayinOutcome{}, err
	}
	if len(s.Rejected) > 0 {
		return payment.PayinOutcome{}, errs.E(errs.Conflict, "The funds could not be booked: %s.", s.Rejected[0].Reason)
	}
	return payment.PayinOutcome{Repeated: s.Duplicates > 0}, nil
}

// keepAdvice writes the advice of in (its entry's AcctSvcrRef ref) and
// keeps it as a bank file of acct's customer, MsgId PAYIN-ref, in r;
// unless it is a repeat (the account has a transaction of ref: its
// advice is kept already). When the customer's other account got funds
// with the same id, the MsgId is a digest of the account's IBAN and ref.
func keepAdvice(ctx context.Context, r Repos, acct ledger.Account, ref string, in payment.PayinInput, now time.Time) (transfer.File, error) {
	repeat := func() (bool, error) {
		_, err := r.Ledger().TransactionByExternalID(ctx, acct.ID, ref)
		if errs.Is(err, errs.NotFound) {
			return false, nil
		}
		return err == nil, err
	}
	f, err := payinAdvice("PAYIN-"+ref, ref, acct, in, now)
	if err != nil {
		return transfer.File{}, err
	}
	if again, err := repeat(); again || err != nil {
		return f, err
	}
	err = r.Transfers().AddFile(ctx, f)
	if !errs.Is(err, errs.Conflict) {
		return f, err
	}
	// Taken: by a concurrent payin of the same funds (committed
	// meanwhile; a repeat now) or by the customer's other account.
	if again, err := repeat(); again || err != nil {
		return f, err
	}
	if f, err = payinAdvice("PAYIN-"+digest(acct.IBAN+"|"+ref, 29), ref, acct, in, now); err != nil {
		return transfer.File{}, err
	}
	return f, r.Transfers().AddFile(ctx, f)
}

// payinAdvice is the bank file of in on acct: a camt.054 advice with MsgId
// msgID and one credit entry whose AcctSvcrRef is ref.
func payinAdvice(msgID, ref string, acct ledger.Account, in payment.PayinInput, now time.Time) (transfer.File, error) {
	a := camt.Advice{MsgID: msgID, Created: now, IBAN: in.BeneficiaryIBAN, Currency: in.Currency,
		Entries: []camt.AdviceEntry{{AcctSvcrRef: ref, Amount: in.Amount, Credit: true, BookingDate: now,
			Reference: in.PaymentReference, Party: camt.Party{Name: in.SenderName, IBAN: in.SenderIBAN}}}}
	var buf bytes.Buffer
	if err := camt.WriteNotification(&buf, a); err != nil {
		return transfer.File{}, err
	}
	return transfer.File{ID: ids.New(), MsgID: msgID, Message: payinMessage, Direction: transfer.In, CustomerID: acct.CustomerID,
		Count: 1, Sum: in.Amount, Currency: in.Currency, Body: buf.Bytes(), CreatedAt: now}, nil
}

// digest is the first n hex digits of s's SHA-256.
func digest(s string, n int) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])[:n]
}
