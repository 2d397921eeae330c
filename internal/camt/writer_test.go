package camt_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/bankrail/bankrail/internal/camt"
	"github.com/bankrail/bankrail/internal/camt/camttest"
)

// TestWriteNotificationValidatesAndReadsBack: a credit advice, a debit
// advice and a return written by WriteNotification validate against
// camt.054.001.08.xsd and Read finds the same entries.
func TestWriteNotificationValidatesAndReadsBack(t *testing.T) {
	t.Parallel()
	at := time.Date(2026, 11, 26, 9, 30, 0, 0, time.UTC)
	a := camt.Advice{MsgID: "BR-1", Created: at, IBAN: "DE89 3704 0044 0532 0130 00", Currency: "EUR",
		Entries: []camt.AdviceEntry{
			{AcctSvcrRef: "SBX-1", Amount: 1815, Credit: true, BookingDate: at, Reference: "RF18539007547034",
				Party: camt.Party{Name: "Ana Müller <&>", IBAN: "FR1420041010050500013M02606"}},
			{AcctSvcrRef: "SBX-2", Amount: 700, BookingDate: at, EndToEndID: "payout-1", Party: camt.Party{Name: "Bob Ltd"}},
			{AcctSvcrRef: "SBX-3", Amount: 300, Credit: true, BookingDate: at, EndToEndID: "refund-1", Return: true, Reason: "AC04",
				Reference: strings.Repeat("x", 200)},
		}}
	var buf bytes.Buffer
	if err := camt.WriteNotification(&buf, a); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "advice.xml")
	if err := os.WriteFile(file, buf.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
	camttest.ValidateXML(t, "camt.054.001.08.xsd", file)
	_, c := readFile(t, file)
	if len(c.entries) != 3 || c.reports[0].IBAN != "DE89370400440532013000" {
		t.Fatalf("read back %+v %+v", c.reports, c.entries)
	}
	e := c.entries
	if e[0].Amount != 1815 || !e[0].Credit || e[0].Status != camt.Booked || e[0].AcctSvcrRef != "SBX-1" ||
		e[0].Transactions[0].Party.Name != "Ana Müller <&>" || e[0].Transactions[0].References[0] != "RF18539007547034" {
		t.Fatalf("credit %+v", e[0])
	}
	if e[1].Credit || e[1].Transactions[0].EndToEndID != "payout-1" || e[1].Transactions[0].Party.Name != "Bob Ltd" {
		t.Fatalf("debit %+v", e[1])
	}
	if r := e[2].Transactions[0]; !r.Return || r.Reason != "AC04" || len(r.References[0]) != 140 {
		t.Fatalf("return %+v", r)
	}
}

// TestWriteNotificationRefusesWhatItCannotWrite: a non-positive amount or
// an unknown currency is an error, not a file that does not validate.
func TestWriteNotificationRefusesWhatItCannotWrite(t *testing.T) {
	t.Parallel()
	for _, a := range []camt.Advice{
		{MsgID: "M", IBAN: "DE89370400440532013000", Currency: "XYZ"},
		{MsgID: "M", IBAN: "DE89370400440532013000", Currency: "EUR", Entries: []camt.AdviceEntry{{Amount: 0}}},
	} {
		if err := camt.WriteNotification(&bytes.Buffer{}, a); err == nil {
			t.Fatalf("WriteNotification(%+v) succeeded", a)
		}
	}
}
