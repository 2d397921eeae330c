package pain

import (
	"bytes"
	"encoding/xml"
	"errors"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/bankrail/bankrail/internal/pain/xsdcheck"
)

const (
	debtorA   = "DE89370400440532013000"
	debtorB   = "DE02120300000000202051"
	creditorX = "FR1420041010050500013M02606"
)

func instruction(id, debtor, date string, amount int64) Instruction {
	return Instruction{ID: id, DebtorIBAN: debtor, DebtorName: "Händler GmbH & Co. KG", CreditorName: "Zoë Ærøskøbing " + strings.Repeat("x", 80),
		CreditorIBAN: creditorX, Amount: amount, Currency: "EUR", Remittance: "Rückerstattung №42 " + strings.Repeat("y", 200), ExecutionDate: date}
}

// parsed is what the tests read back of a written file.
type parsed struct {
	NbOfTxs string `xml:"CstmrCdtTrfInitn>GrpHdr>NbOfTxs"`
	CtrlSum string `xml:"CstmrCdtTrfInitn>GrpHdr>CtrlSum"`
	PmtInf  []struct {
		ID      string `xml:"PmtInfId"`
		NbOfTxs string `xml:"NbOfTxs"`
		CtrlSum string `xml:"CtrlSum"`
		IBAN    string `xml:"DbtrAcct>Id>IBAN"`
		Date    string `xml:"ReqdExctnDt>Dt"`
		Tx      []struct {
			E2E   string `xml:"PmtId>EndToEndId"`
			Amt   string `xml:"Amt>InstdAmt"`
			Nm    string `xml:"Cdtr>Nm"`
			Ustrd string `xml:"RmtInf>Ustrd"`
		} `xml:"CdtTrfTxInf"`
	} `xml:"CstmrCdtTrfInitn>PmtInf"`
}

func TestWriteGroupsByDebtorAndDateAndValidates(t *testing.T) {
	t.Parallel()
	m := Message{ID: "BR-20261127-0001", CreatedAt: time.Date(2026, 11, 27, 10, 0, 0, 0, time.UTC), Initiator: "bankrail Provider",
		Transfers: []Instruction{
			instruction("00000000-0000-4000-8000-000000000001", debtorB, "2026-11-27", 1),
			instruction("00000000-0000-4000-8000-000000000002", debtorA, "2026-11-28", 99999999999),
			instruction("00000000-0000-4000-8000-000000000003", debtorA, "2026-11-27", 1050),
			instruction("00000000-0000-4000-8000-000000000004", debtorB, "2026-11-27", 10),
		}}
	var buf bytes.Buffer
	sum, err := Write(&buf, m)
	if err != nil {
		t.Fatal(err)
	}
	if sum != (Summary{Count: 4, Sum: 99999999999 + 1050 + 11, Payments: 3}) {
		t.Errorf("summary %+v", sum)
	}
	xsdcheck.Validate(t, "pain.001.001.10.xsd", buf.Bytes())
	var p parsed
	if err := xml.Unmarshal(buf.Bytes(), &p); err != nil {
		t.Fatal(err)
	}
	if p.NbOfTxs != "4" || p.CtrlSum != "1000000010.60" {
		t.Errorf("group header NbOfTxs %s CtrlSum %s, want 4 and 1000000010.60", p.NbOfTxs, p.CtrlSum)
	}
	want := []struct{ iban, date, n, sum string }{
		{debtorB, "2026-11-27", "2", "0.11"}, {debtorA, "2026-11-27", "1", "10.50"}, {debtorA, "2026-11-28", "1", "999999999.99"},
	}
	if len(p.PmtInf) != len(want) {
		t.Fatalf("%d payment blocks, want %d", len(p.PmtInf), len(want))
	}
	for i, w := range want {
		b := p.PmtInf[i]
		if b.IBAN != w.iban || b.Date != w.date || b.NbOfTxs != w.n || b.CtrlSum != w.sum || strconv.Itoa(len(b.Tx)) != w.n {
			t.Errorf("block %d: %s %s %s %s, want %+v", i, b.IBAN, b.Date, b.NbOfTxs, b.CtrlSum, w)
		}
	}
	tx := p.PmtInf[0].Tx[0]
	if tx.E2E != "00000000000040008000000000000001" || tx.Amt != "0.01" {
		t.Errorf("first transfer of DE02...: %+v", tx)
	}
	if len(tx.Nm) > MaxName || !strings.HasPrefix(tx.Nm, "Zoe AEroskobing") || len(tx.Ustrd) > MaxRemittance || !strings.HasPrefix(tx.Ustrd, "Ruckerstattung No42") {
		t.Errorf("name %q (%d), remittance %q (%d)", tx.Nm, len(tx.Nm), tx.Ustrd, len(tx.Ustrd))
	}
}

func TestWriteRefuses(t *testing.T) {
	t.Parallel()
	ok := instruction("00000000-0000-4000-8000-000000000001", debtorA, "2026-11-27", 100)
	with := func(f func(*Instruction)) Instruction { i := ok; f(&i); return i }
	tests := []struct {
		name string
		m    Message
		want string
	}{
		{"no transfers", Message{ID: "M1"}, "at least one"},
		{"no id", Message{Transfers: []Instruction{ok}}, "message id"},
		{"id too long", Message{ID: strings.Repeat("M", 36), Transfers: []Instruction{ok}}, "message id"},
		{"pounds", Message{ID: "M1", Transfers: []Instruction{with(func(i *Instruction) { i.Currency = "GBP" })}}, `currency "GBP"`},
		{"zero", Message{ID: "M1", Transfers: []Instruction{with(func(i *Instruction) { i.Amount = 0 })}}, "amount 0"},
		{"bad creditor", Message{ID: "M1", Transfers: []Instruction{with(func(i *Instruction) { i.CreditorIBAN = "DE00123" })}}, "creditor IBAN"},
		{"no creditor", Message{ID: "M1", Transfers: []Instruction{with(func(i *Instruction) { i.CreditorIBAN = "" })}}, "creditor IBAN"},
		{"not a uuid", Message{ID: "M1", Transfers: []Instruction{with(func(i *Instruction) { i.ID = "r-1" })}}, "not a uuid"},
		{"bad date", Message{ID: "M1", Transfers: []Instruction{with(func(i *Instruction) { i.ExecutionDate = "27.11.2026" })}}, "execution date"},
		{"twice", Message{ID: "M1", Transfers: []Instruction{ok, ok}}, "twice"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			var buf bytes.Buffer
			_, err := Write(&buf, tc.m)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("Write: %v, want an error with %q", err, tc.want)
			}
			if buf.Len() != 0 {
				t.Errorf("a refused file wrote %d bytes", buf.Len())
			}
		})
	}
	_, err := Write(&bytes.Buffer{}, Message{ID: "M1", Transfers: []Instruction{with(func(i *Instruction) { i.Currency = "GBP" })}})
	if !errors.Is(err, ErrInvalid) {
		t.Errorf("a refused instruction is not ErrInvalid: %v", err)
	}
}
