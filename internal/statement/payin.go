package statement

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"

	"github.com/bankrail/bankrail/internal/camt"
	"github.com/bankrail/bankrail/internal/clock"
	"github.com/bankrail/bankrail/internal/errs"
	"github.com/bankrail/bankrail/internal/payment"
)

// Payins is the sandbox's mock bank for incoming funds (POST /payin): it
// writes the funds as a camt.054 credit advice, as a real bank would send
// it, and hands the file to the importer, so that the sandbox books them
// with the code that books a production bank's statements.
type Payins struct {
	Importer *Importer
	Clock    clock.Clock
	// Keep, when set, is given every advice written (for the list of the
	// files the mock bank exchanged).
	Keep func(ctx context.Context, name string, xml []byte)
}

var _ payment.IncomingBank = Payins{}

// Incoming writes in (validated by payment.Service.Payin) as a camt.054
// credit entry whose AcctSvcrRef is its externalPaymentId (a digest of it
// past the 35 characters the field holds: the same id makes the same
// entry, so a repeat changes nothing), and imports it.
func (p Payins) Incoming(ctx context.Context, in payment.PayinInput) (payment.PayinOutcome, error) {
	now, err := clock.UnitTime(ctx, p.Clock, in.ViewerCustomerID)
	if err != nil {
		return payment.PayinOutcome{}, err
	}
	ref := in.ExternalPaymentID
	if len(ref) > 35 || strings.TrimSpace(ref) != ref {
		sum := sha256.Sum256([]byte(ref))
		ref = "X" + hex.EncodeToString(sum[:17])
	}
	msgID := "PAYIN-" + ref
	a := camt.Advice{MsgID: msgID, Created: now, IBAN: in.BeneficiaryIBAN, Currency: in.Currency,
		Entries: []camt.AdviceEntry{{AcctSvcrRef: ref, Amount: in.Amount, Credit: true, BookingDate: now,
			Reference: in.PaymentReference, Party: camt.Party{Name: in.SenderName, IBAN: in.SenderIBAN}}}}
	var buf bytes.Buffer
	if err := camt.WriteNotification(&buf, a); err != nil {
		return payment.PayinOutcome{}, err
	}
	name := fmt.Sprintf("camt054-%s.xml", msgID)
	if p.Keep != nil {
		p.Keep(ctx, name, buf.Bytes())
	}
	s, err := p.Importer.Apply(ctx, name, bytes.NewReader(buf.Bytes()))
	if err != nil {
		return payment.PayinOutcome{}, err
	}
	if len(s.Rejected) > 0 {
		return payment.PayinOutcome{}, errs.E(errs.Conflict, "The funds could not be booked: %s.", s.Rejected[0].Reason)
	}
	return payment.PayinOutcome{Repeated: s.Duplicates > 0}, nil
}
