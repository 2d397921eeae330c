package pain

import (
	"bytes"
	"errors"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/bankrail/bankrail/internal/pain/xsdcheck"
)

func readFixture(t *testing.T, name string) Report {
	t.Helper()
	b, err := os.ReadFile("testdata/" + name)
	if err != nil {
		t.Fatal(err)
	}
	xsdcheck.Validate(t, "pain.002.001.11.xsd", b)
	r, err := Read(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func TestReadTransactionAndBlockStatuses(t *testing.T) {
	t.Parallel()
	r := readFixture(t, "pain002-mixed.xml")
	if r.MsgID != "BANK-STS-1" || r.OriginalMsgID != "BR-20261127-0001" || r.OriginalName != InitiationMessage || r.Group.Code != "PART" {
		t.Fatalf("header %+v", r)
	}
	if len(r.Transactions) != 2 {
		t.Fatalf("%d transactions, want 2", len(r.Transactions))
	}
	acc, rej := r.Transactions[0], r.Transactions[1]
	if got := r.Of(acc.PaymentInfoID, acc.Status); got.Code != "ACCP" {
		t.Errorf("accepted transfer: %+v", got)
	}
	if got := r.Of(rej.PaymentInfoID, rej.Status); got.Code != "RJCT" || got.Reason != "AC04: Account closed" {
		t.Errorf("rejected transfer: %+v", got)
	}
	// A transfer of the rejected block that the report does not list.
	if got := r.Of("BR-20261127-0001-2", Status{}); got.Code != "RJCT" || got.Reason != "AM04" {
		t.Errorf("transfer of the rejected block: %+v", got)
	}
	if o, known := OutcomeOf("PART"); o != Pending || !known {
		t.Errorf("PART is %s", o)
	}
}

func TestReadGroupRejectionRejectsAll(t *testing.T) {
	t.Parallel()
	r := readFixture(t, "pain002-group-rejected.xml")
	tx := r.Transactions[0]
	got := r.Of(tx.PaymentInfoID, tx.Status)
	if o, _ := OutcomeOf(got.Code); o != Rejected || got.Reason != "FF01: Invalid file format" {
		t.Errorf("a transfer listed ACCP in a rejected group: %+v", got)
	}
}

func TestStatusCodes(t *testing.T) {
	t.Parallel()
	for code, want := range map[string]Outcome{"RJCT": Rejected, "ACCP": Accepted, "ACSC": Accepted, "ACTC": Accepted, "ACSP": Accepted,
		"ACWC": Accepted, "PDNG": Pending, "RCVD": Pending} {
		if got, known := OutcomeOf(code); got != want || !known {
			t.Errorf("OutcomeOf(%s) = %s, %v; want %s", code, got, known, want)
		}
	}
	if got, known := OutcomeOf("XXXX"); got != Pending || known {
		t.Errorf("an unknown code is %s, %v", got, known)
	}
}

func TestWriteStatusRoundTrip(t *testing.T) {
	t.Parallel()
	a := Answer{ID: "MOCK-1", CreatedAt: time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC), OriginalMsgID: "BR-1",
		Group: Status{Code: "PART"}, Transactions: []Transaction{
			{PaymentInfoID: "BR-1-1", EndToEndID: "e1", Status: Status{Code: "ACCP"}},
			{PaymentInfoID: "BR-1-2", EndToEndID: "e2", Status: Status{Code: "RJCT", Reason: "AC04: the payer's bank refused it"}},
		}}
	var buf bytes.Buffer
	if err := WriteStatus(&buf, a); err != nil {
		t.Fatal(err)
	}
	xsdcheck.Validate(t, "pain.002.001.11.xsd", buf.Bytes())
	r, err := Read(&buf)
	if err != nil {
		t.Fatal(err)
	}
	if r.OriginalMsgID != "BR-1" || len(r.Transactions) != 2 || r.Transactions[1].Reason != "AC04: the payer's bank refused it" {
		t.Errorf("read back %+v", r)
	}
}

func TestReadRefusesOtherDocuments(t *testing.T) {
	t.Parallel()
	tests := map[string]string{
		"camt":      `<Document xmlns="urn:iso:std:iso:20022:tech:xsd:camt.053.001.02"><BkToCstmrStmt/></Document>`,
		"pain.001":  `<Document xmlns="urn:iso:std:iso:20022:tech:xsd:pain.001.001.10"/>`,
		"empty":     ``,
		"no orig":   `<Document xmlns="urn:iso:std:iso:20022:tech:xsd:pain.002.001.11"><CstmrPmtStsRpt/></Document>`,
		"malformed": `<Document xmlns="urn:iso:std:iso:20022:tech:xsd:pain.002.001.11"><CstmrPmtStsRpt>`,
	}
	for name, doc := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			_, err := Read(strings.NewReader(doc))
			if err == nil {
				t.Fatal("read")
			}
			if name != "malformed" && !errors.Is(err, ErrNotStatusReport) {
				t.Errorf("not ErrNotStatusReport: %v", err)
			}
		})
	}
}
