package camt_test

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/bankrail/bankrail/internal/camt"
	"github.com/bankrail/bankrail/internal/camt/camttest"
)

// collect is a Handler that keeps what Read hands it.
type collect struct {
	reports []camt.Report
	entries []camt.Entry
}

func (c *collect) Report(r camt.Report) error { c.reports = append(c.reports, r); return nil }
func (c *collect) Entry(_ camt.Report, e camt.Entry) error {
	c.entries = append(c.entries, e)
	return nil
}

func readFile(t *testing.T, path string) (camt.Message, *collect) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = f.Close() })
	c := &collect{}
	m, err := camt.Read(f, c)
	if err != nil {
		t.Fatalf("Read %s: %v", path, err)
	}
	return m, c
}

// TestReadEveryVersion reads the same movements written in each version
// .02 to .08 of both messages (testdata/gen.sh) and finds the same
// entries, transactions, references and balances in each; the versions
// with an official schema in shared validate against it.
func TestReadEveryVersion(t *testing.T) {
	t.Parallel()
	for _, kind := range []struct {
		name string
		code int
	}{{"statement", 53}, {"notification", 54}} {
		for v := camt.MinVersion; v <= camt.MaxVersion; v++ {
			file := filepath.Join("testdata", fmt.Sprintf("%s-%02d.xml", kind.name, v))
			t.Run(filepath.Base(file), func(t *testing.T) {
				t.Parallel()
				m, c := readFile(t, file)
				if want := fmt.Sprintf("camt.%03d.001.%02d", kind.code, v); m.String() != want || m.ID != fmt.Sprintf("MSG-%03d-%02d", kind.code, v) {
					t.Fatalf("message %s (id %q), want %s", m, m.ID, want)
				}
				checkFixture(t, kind.code, c)
				if v == 2 || v == 4 || v == 8 {
					camttest.ValidateXML(t, fmt.Sprintf("camt.%03d.001.%02d.xsd", kind.code, v), file)
				}
			})
		}
	}
}

func checkFixture(t *testing.T, kind int, c *collect) {
	t.Helper()
	if len(c.reports) != 2 || c.reports[0].IBAN != "DE89370400440532013000" || c.reports[1].IBAN != "GB82WEST12345698765432" {
		t.Fatalf("reports %+v", c.reports)
	}
	if kind == 53 {
		if cl := c.reports[0].Closing; cl == nil || cl.Amount != 12965 || cl.Currency != "EUR" {
			t.Fatalf("closing balance %+v, want 129.65 EUR", cl)
		}
	} else if c.reports[0].Closing != nil {
		t.Fatalf("a notification has no balance: %+v", c.reports[0].Closing)
	}
	if len(c.entries) != 6 {
		t.Fatalf("%d entries, want 6", len(c.entries))
	}
	for _, e := range c.entries {
		if e.Problem != nil {
			t.Fatalf("entry %d: %v", e.Index, e.Problem)
		}
	}
	e := c.entries
	if e[0].Amount != 1815 || !e[0].Credit || e[0].Status != camt.Booked || e[0].AcctSvcrRef != "BANK-1" ||
		len(e[0].Transactions) != 1 || e[0].Transactions[0].EndToEndID != "" ||
		!reflect.DeepEqual(e[0].Transactions[0].References, []string{"RF18539007547034"}) ||
		e[0].Transactions[0].Party != (camt.Party{Name: "Ana Müller", IBAN: "FR1420041010050500013M02606"}) {
		t.Fatalf("entry 1 %+v", e[0])
	}
	if e[1].Ref != "N-2" || e[1].BookingDate != "2026-11-26T10:15:00" || len(e[1].Transactions) != 2 ||
		e[1].Transactions[0].Amount != 1000 || e[1].Transactions[1].Amount != 550 ||
		!reflect.DeepEqual(e[1].Transactions[1].References, []string{"order 2", "second line"}) ||
		e[1].Transactions[0].EndToEndID != "E2E-A" {
		t.Fatalf("batch entry %+v", e[1])
	}
	if e[2].Credit || e[2].Transactions[0].EndToEndID != "payout-1" || e[2].Transactions[0].Party.Name != "Bob Ltd" {
		t.Fatalf("debit %+v", e[2])
	}
	if r := e[3].Transactions[0]; !r.Return || r.Reason != "AC04" || r.EndToEndID != "refund-1" || !r.Credit {
		t.Fatalf("return %+v", r)
	}
	if e[4].Status != camt.Pending || e[5].Status != camt.Information || e[5].Amount != 200 {
		t.Fatalf("pending / information entries %+v %+v", e[4], e[5])
	}
}

// TestReadRefusesOtherMessages: a file of another message or version, or
// no statement at all, is refused with an error that names what it is and
// what is read.
func TestReadRefusesOtherMessages(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ name, doc, want string }{
		{"pain.001", `<Document xmlns="urn:iso:std:iso:20022:tech:xsd:pain.001.001.10"><CstmrCdtTrfInitn/></Document>`, "pain.001.001.10"},
		{"camt.053.001.09", `<Document xmlns="urn:iso:std:iso:20022:tech:xsd:camt.053.001.09"><BkToCstmrStmt/></Document>`, "camt.053.001.09 (a version not read)"},
		{"camt.052", `<Document xmlns="urn:iso:std:iso:20022:tech:xsd:camt.052.001.02"><BkToCstmrAcctRpt/></Document>`, "camt.052.001.02"},
		{"wrong root", `<Document xmlns="urn:iso:std:iso:20022:tech:xsd:camt.053.001.02"><BkToCstmrDbtCdtNtfctn/></Document>`, "whose message element is BkToCstmrDbtCdtNtfctn"},
		{"no namespace", `<Document><BkToCstmrStmt/></Document>`, `namespace ""`},
		{"html", `<html><body/></html>`, "root html"},
		{"empty", ``, "empty"},
		{"malformed", `<Document xmlns="urn:iso:std:iso:20022:tech:xsd:camt.053.001.02"><BkToCstmrStmt><GrpHdr></BkToCstmrStmt>`, "not well-formed XML (line 1)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			_, err := camt.Read(strings.NewReader(tc.doc), &collect{})
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want one containing %q", err, tc.want)
			}
			if !strings.Contains(err.Error(), "not well-formed") && !strings.Contains(err.Error(), "camt.054.001.02 to camt.054.001.08") {
				t.Fatalf("error %v does not list what is supported", err)
			}
		})
	}
}

// entryDoc is a camt.053.001.02 statement of one entry whose Ntry holds
// body.
func entryDoc(body string) string {
	return `<?xml version="1.0"?><Document xmlns="urn:iso:std:iso:20022:tech:xsd:camt.053.001.02"><BkToCstmrStmt>
<GrpHdr><MsgId>M</MsgId></GrpHdr><Stmt><Id>S</Id><Acct><Id><IBAN>DE89370400440532013000</IBAN></Id></Acct>
<Ntry><AcctSvcrRef>R1</AcctSvcrRef>` + body + `</Ntry></Stmt></BkToCstmrStmt></Document>`
}

// TestReadBadEntries: an entry that cannot be booked exactly is handed on
// with a Problem naming the entry and what is wrong, never rounded; the
// read goes on.
func TestReadBadEntries(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ name, body, want string }{
		{"too many decimals", `<Amt Ccy="EUR">8.855</Amt><CdtDbtInd>CRDT</CdtDbtInd><Sts>BOOK</Sts>`, "entry 1 (AcctSvcrRef R1): the amount 8.855 EUR has more decimals than EUR's 2 minor digits"},
		{"yen decimals", `<Amt Ccy="JPY">5.5</Amt><CdtDbtInd>CRDT</CdtDbtInd><Sts>BOOK</Sts>`, "JPY's 0 minor digits"},
		{"negative", `<Amt Ccy="EUR">-5.00</Amt><CdtDbtInd>CRDT</CdtDbtInd><Sts>BOOK</Sts>`, "is negative"},
		{"zero", `<Amt Ccy="EUR">0.00</Amt><CdtDbtInd>CRDT</CdtDbtInd><Sts>BOOK</Sts>`, "is not positive"},
		{"missing amount", `<CdtDbtInd>CRDT</CdtDbtInd><Sts>BOOK</Sts>`, "no currency"},
		{"empty amount", `<Amt Ccy="EUR"></Amt><CdtDbtInd>CRDT</CdtDbtInd><Sts>BOOK</Sts>`, "the amount is missing"},
		{"unknown currency", `<Amt Ccy="XYZ">5.00</Amt><CdtDbtInd>CRDT</CdtDbtInd><Sts>BOOK</Sts>`, `the currency "XYZ" is not an ISO 4217 currency`},
		{"garbage amount", `<Amt Ccy="EUR">1,000.00</Amt><CdtDbtInd>CRDT</CdtDbtInd><Sts>BOOK</Sts>`, "is not a decimal amount"},
		{"no indicator", `<Amt Ccy="EUR">5.00</Amt><Sts>BOOK</Sts>`, "CdtDbtInd"},
		{"no status", `<Amt Ccy="EUR">5.00</Amt><CdtDbtInd>CRDT</CdtDbtInd>`, "no status"},
		{"batch without amounts", `<Amt Ccy="EUR">5.00</Amt><CdtDbtInd>CRDT</CdtDbtInd><Sts>BOOK</Sts><NtryDtls><TxDtls/><TxDtls/></NtryDtls>`, "transaction 1 of the batch has no amount"},
		{"batch that does not add up", `<Amt Ccy="EUR">5.00</Amt><CdtDbtInd>CRDT</CdtDbtInd><Sts>BOOK</Sts><NtryDtls><TxDtls><AmtDtls><TxAmt><Amt Ccy="EUR">2.00</Amt></TxAmt></AmtDtls></TxDtls><TxDtls><AmtDtls><TxAmt><Amt Ccy="EUR">2.00</Amt></TxAmt></AmtDtls></TxDtls></NtryDtls>`, "add up to 4.00 EUR, the entry's amount is 5.00 EUR"},
		{"bad transaction amount", `<Amt Ccy="EUR">5.00</Amt><CdtDbtInd>CRDT</CdtDbtInd><Sts>BOOK</Sts><NtryDtls><TxDtls><Amt Ccy="EUR">5.001</Amt></TxDtls></NtryDtls>`, "transaction 1: the amount 5.001 EUR"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			c := &collect{}
			if _, err := camt.Read(strings.NewReader(entryDoc(tc.body)), c); err != nil {
				t.Fatal(err)
			}
			if len(c.entries) != 1 || c.entries[0].Problem == nil || !strings.Contains(c.entries[0].Problem.Error(), tc.want) {
				t.Fatalf("entries %+v, want a problem containing %q", c.entries, tc.want)
			}
			if !strings.HasPrefix(c.entries[0].Problem.Error(), "entry 1") || c.entries[0].Transactions != nil {
				t.Fatalf("problem %v does not name the entry, or the entry kept transactions", c.entries[0].Problem)
			}
		})
	}
}

// TestReadLiberally: what banks send besides the textbook: an IBAN with
// spaces, Latin-1, "18.150", a status in lower case.
func TestReadLiberally(t *testing.T) {
	t.Parallel()
	doc := "<?xml version=\"1.0\" encoding=\"ISO-8859-1\"?>" + strings.Replace(entryDoc(
		`<Amt Ccy="EUR">18.150</Amt><CdtDbtInd>crdt</CdtDbtInd><Sts>book</Sts><NtryDtls><TxDtls><RltdPties><Dbtr><Nm>J`+"\xfc"+`rgen</Nm></Dbtr></RltdPties></TxDtls></NtryDtls>`),
		"<?xml version=\"1.0\"?>", "", 1)
	doc = strings.Replace(doc, "DE89370400440532013000", "de89 3704 0044 0532 0130 00", 1)
	c := &collect{}
	if _, err := camt.Read(strings.NewReader(doc), c); err != nil {
		t.Fatal(err)
	}
	e := c.entries[0]
	if e.Problem != nil || e.Amount != 1815 || !e.Credit || e.Status != camt.Booked || e.Transactions[0].Party.Name != "Jürgen" || c.reports[0].IBAN != "DE89370400440532013000" {
		t.Fatalf("entry %+v report %+v", e, c.reports[0])
	}
}

// TestDocumentationExamplesValidate: the example files of docs/banking.md
// validate against their official schema and read without a problem.
func TestDocumentationExamplesValidate(t *testing.T) {
	t.Parallel()
	for file, schema := range map[string]string{
		"camt053-statement.xml": "camt.053.001.08.xsd",
		"camt054-advice.xml":    "camt.054.001.08.xsd",
	} {
		path := filepath.Join("..", "..", "docs", "examples", file)
		_, c := readFile(t, path)
		for _, e := range c.entries {
			if e.Problem != nil {
				t.Errorf("%s: %v", file, e.Problem)
			}
		}
		camttest.ValidateXML(t, schema, path)
	}
}

// TestBuilderOutputValidates: what camttest.Write builds for the tests
// validates against the schemas of .02, .04 and .08.
func TestBuilderOutputValidates(t *testing.T) {
	t.Parallel()
	closing := int64(-500)
	stmt := camttest.Stmt{IBAN: "DE89370400440532013000", Closing: &closing, Entries: []camttest.Entry{
		{AcctSvcrRef: "A", NtryRef: "N", Minor: 1500, Credit: true, Txs: []camttest.Tx{{Minor: 1000, Ustrd: []string{"a"}, StrdRef: "RF18", Name: "N", IBAN: "FR1420041010050500013M02606"}, {Minor: 500, EndToEndID: "E"}}},
		{Minor: 300, Txs: []camttest.Tx{{EndToEndID: "X", Return: true, Reason: "AC04", Name: "C"}}},
		{Minor: 1, Credit: true, Status: "PDNG"},
	}}
	for _, kind := range []int{53, 54} {
		for _, v := range []int{2, 4, 8} {
			path := filepath.Join(t.TempDir(), fmt.Sprintf("%d-%d.xml", kind, v))
			if err := os.WriteFile(path, []byte(camttest.String(kind, v, "M", stmt)), 0o600); err != nil {
				t.Fatal(err)
			}
			camttest.ValidateXML(t, fmt.Sprintf("camt.%03d.001.%02d.xsd", kind, v), path)
		}
	}
}
