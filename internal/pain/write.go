package pain

import (
	"bufio"
	"cmp"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/bankrail/bankrail/internal/iso"
	"github.com/bankrail/bankrail/internal/money"
)

// InitiationMessage is the message name of the files Write writes.
const InitiationMessage = "pain.001.001.10"

// Currency is the one currency of the rail these files take: SEPA credit
// transfers are in euros.
const Currency = "EUR"

// Instruction is one credit transfer out of a debtor account.
type Instruction struct {
	ID            string // bankrail's id of the transfer (a uuid): its EndToEndId, see EndToEndID
	DebtorIBAN    string // the account the money leaves (a Connect account)
	DebtorName    string
	CreditorName  string
	CreditorIBAN  string
	Amount        int64  // minor units of Currency
	Currency      string // EUR
	Remittance    string // what the creditor sees (RmtInf/Ustrd), may be empty
	ExecutionDate string // requested execution date, YYYY-MM-DD
}

// Message is one pain.001 file.
type Message struct {
	ID        string // MsgId: unique among the files sent to the bank (at most 35 characters)
	CreatedAt time.Time
	Initiator string // InitgPty/Nm: who sends the file (the provider)
	Transfers []Instruction
}

// Summary is what a written file holds.
type Summary struct {
	Count    int
	Sum      int64 // minor units
	Payments int   // payment information blocks
}

// ErrInvalid wraps every instruction Write refuses.
var ErrInvalid = errors.New("pain: invalid transfer")

// Check reports why in cannot go into a file (nil when it can): a
// currency other than EUR, an amount that is not positive, an IBAN that is
// not one, an id that is not a uuid, a date that is not a date.
func (in Instruction) Check() error {
	switch {
	case in.Currency != Currency:
		return fmt.Errorf("%w %s: currency %q; SEPA credit transfers are in %s", ErrInvalid, in.ID, in.Currency, Currency)
	case in.Amount <= 0 || in.Amount > 99999999999:
		return fmt.Errorf("%w %s: amount %d minor units is not within 0.01..999999999.99", ErrInvalid, in.ID, in.Amount)
	case iso.CheckIBAN(in.DebtorIBAN) != iso.IBANOK:
		return fmt.Errorf("%w %s: debtor IBAN %q", ErrInvalid, in.ID, in.DebtorIBAN)
	case iso.CheckIBAN(in.CreditorIBAN) != iso.IBANOK:
		return fmt.Errorf("%w %s: creditor IBAN %q", ErrInvalid, in.ID, in.CreditorIBAN)
	}
	if _, ok := TransactionID(EndToEndID(in.ID)); !ok {
		return fmt.Errorf("%w %q: the id is not a uuid", ErrInvalid, in.ID)
	}
	if _, err := time.Parse(time.DateOnly, in.ExecutionDate); err != nil {
		return fmt.Errorf("%w %s: execution date %q: %w", ErrInvalid, in.ID, in.ExecutionDate, err)
	}
	return nil
}

// block is one payment information block: the transfers of one debtor
// account on one execution date.
type block struct {
	iban, date string
	transfers  []Instruction
	sum        int64
}

// Write writes m as a pain.001.001.10 document to w: one payment
// information block (PmtInf) per debtor IBAN and execution date, in that
// order, the transfers of each in m's order; NbOfTxs and CtrlSum of the
// file and of each block counted exactly (minor units); names and
// remittance through Name and Text. An instruction Check refuses fails the
// whole file before anything is written.
func Write(w io.Writer, m Message) (Summary, error) {
	if m.ID == "" || len(m.ID) > MaxID || Text(m.ID, MaxID) != m.ID {
		return Summary{}, fmt.Errorf("pain: message id %q is not 1..35 SEPA characters", m.ID)
	}
	if len(m.Transfers) == 0 {
		return Summary{}, errors.New("pain: a file needs at least one transfer")
	}
	blocks, sum, err := group(m.Transfers)
	if err != nil {
		return Summary{}, err
	}
	bw := bufio.NewWriterSize(w, 64<<10)
	x := writer{w: bw}
	x.raw(`<?xml version="1.0" encoding="UTF-8"?>` + "\n")
	x.raw(`<Document xmlns="urn:iso:std:iso:20022:tech:xsd:pain.001.001.10"><CstmrCdtTrfInitn><GrpHdr>`)
	x.el("MsgId", m.ID)
	x.el("CreDtTm", m.CreatedAt.UTC().Format("2006-01-02T15:04:05Z"))
	x.el("NbOfTxs", strconv.Itoa(len(m.Transfers)))
	x.el("CtrlSum", decimal(sum))
	x.raw("<InitgPty>")
	x.el("Nm", Name(m.Initiator))
	x.raw("</InitgPty></GrpHdr>")
	for i, b := range blocks {
		x.writeBlock(m.ID, i+1, b)
	}
	x.raw("</CstmrCdtTrfInitn></Document>\n")
	if x.err == nil {
		x.err = bw.Flush()
	}
	if x.err != nil {
		return Summary{}, fmt.Errorf("pain: write %s: %w", m.ID, x.err)
	}
	return Summary{Count: len(m.Transfers), Sum: sum, Payments: len(blocks)}, nil
}

// group checks every transfer and sorts them into blocks (by debtor IBAN,
// then date); it returns the blocks and the total.
func group(ts []Instruction) ([]*block, int64, error) {
	byKey := make(map[[2]string]*block)
	var blocks []*block
	var sum int64
	seen := make(map[string]bool, len(ts))
	for _, t := range ts {
		if err := t.Check(); err != nil {
			return nil, 0, err
		}
		if seen[t.ID] {
			return nil, 0, fmt.Errorf("%w %s: twice in one file", ErrInvalid, t.ID)
		}
		seen[t.ID] = true
		k := [2]string{t.DebtorIBAN, t.ExecutionDate}
		b := byKey[k]
		if b == nil {
			b = &block{iban: t.DebtorIBAN, date: t.ExecutionDate}
			byKey[k] = b
			blocks = append(blocks, b)
		}
		b.transfers = append(b.transfers, t)
		b.sum += t.Amount
		sum += t.Amount
	}
	slices.SortStableFunc(blocks, func(a, b *block) int {
		return cmp.Or(cmp.Compare(a.iban, b.iban), cmp.Compare(a.date, b.date))
	})
	return blocks, sum, nil
}

// PaymentInfoID is the PmtInfId of the n-th block (from 1) of message
// msgID: the message id and the block's number, cut to 35 characters from
// the left so that the number stays.
func PaymentInfoID(msgID string, n int) string {
	id := msgID + "-" + strconv.Itoa(n)
	if len(id) > MaxID {
		id = id[len(id)-MaxID:]
	}
	return id
}

func (x *writer) writeBlock(msgID string, n int, b *block) {
	x.raw("<PmtInf>")
	x.el("PmtInfId", PaymentInfoID(msgID, n))
	x.raw("<PmtMtd>TRF</PmtMtd><BtchBookg>false</BtchBookg>")
	x.el("NbOfTxs", strconv.Itoa(len(b.transfers)))
	x.el("CtrlSum", decimal(b.sum))
	x.raw("<PmtTpInf><SvcLvl><Cd>SEPA</Cd></SvcLvl></PmtTpInf><ReqdExctnDt>")
	x.el("Dt", b.date)
	x.raw("</ReqdExctnDt><Dbtr>")
	x.el("Nm", Name(b.transfers[0].DebtorName))
	x.raw("</Dbtr><DbtrAcct><Id>")
	x.el("IBAN", b.iban)
	x.raw("</Id></DbtrAcct><DbtrAgt><FinInstnId><Othr><Id>NOTPROVIDED</Id></Othr></FinInstnId></DbtrAgt><ChrgBr>SLEV</ChrgBr>")
	for _, t := range b.transfers {
		x.raw("<CdtTrfTxInf><PmtId>")
		x.el("EndToEndId", EndToEndID(t.ID))
		x.raw(`</PmtId><Amt><InstdAmt Ccy="EUR">`)
		x.raw(decimal(t.Amount))
		x.raw("</InstdAmt></Amt><Cdtr>")
		x.el("Nm", Name(t.CreditorName))
		x.raw("</Cdtr><CdtrAcct><Id>")
		x.el("IBAN", t.CreditorIBAN)
		x.raw("</Id></CdtrAcct>")
		if r := Text(t.Remittance, MaxRemittance); r != "" {
			x.raw("<RmtInf>")
			x.el("Ustrd", r)
			x.raw("</RmtInf>")
		}
		x.raw("</CdtTrfTxInf>")
	}
	x.raw("</PmtInf>")
}

// decimal is minor units of EUR as the file's decimal.
func decimal(minor int64) string { return money.FormatDecimal(minor, 2) }

// writer writes XML text and keeps the first error.
type writer struct {
	w   *bufio.Writer
	err error
}

func (x *writer) raw(s string) {
	if x.err == nil {
		_, x.err = x.w.WriteString(s)
	}
}

// el writes <name>text</name>, text escaped (SEPA text, ids and dates,
// which is all Write writes, need none: the check is the cheap part).
func (x *writer) el(name, text string) {
	x.raw("<")
	x.raw(name)
	x.raw(">")
	if strings.ContainsAny(text, "<>&\"'\r") {
		if x.err == nil {
			x.err = xml.EscapeText(x.w, []byte(text))
		}
	} else {
		x.raw(text)
	}
	x.raw("</")
	x.raw(name)
	x.raw(">")
}

// PaymentInfoIDs maps the id of each of ts to the PmtInfId of the block
// Write puts it in, in a file msgID of exactly ts: what a pain.002 that
// answers a block (not each transaction) names. The transfers must be as
// they were written (Write refused none of them).
func PaymentInfoIDs(msgID string, ts []Instruction) (map[string]string, error) {
	blocks, _, err := group(ts)
	if err != nil {
		return nil, err
	}
	out := make(map[string]string, len(ts))
	for i, b := range blocks {
		for _, t := range b.transfers {
			out[t.ID] = PaymentInfoID(msgID, i+1)
		}
	}
	return out, nil
}
