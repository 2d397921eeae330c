package pain

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/bankrail/bankrail/internal/pain/xsdcheck"
)

// The example files of docs/banking.md are what Write and WriteStatus
// write, and validate: BANKRAIL_UPDATE_EXAMPLES=1 writes them again.
func TestDocsExamplesValidate(t *testing.T) {
	t.Parallel()
	at := time.Date(2026, 11, 27, 15, 0, 0, 0, time.UTC)
	m := Message{ID: "BR01a21d3bc5ab7586a93b6a111fc03a70", CreatedAt: at, Initiator: "Example Payments GmbH", Transfers: []Instruction{
		{ID: "01a21d3b-c581-71d1-9242-1b1cb3d37863", DebtorIBAN: debtorA, DebtorName: "Connect account Müller Möbel", CreditorName: "Zoë Dupont",
			CreditorIBAN: creditorX, Amount: 1234, Currency: "EUR", Remittance: "Payout – invoice Nº 42", ExecutionDate: "2026-11-27"},
		{ID: "01a21d3b-d101-7a2e-8c11-5f0e2a9b7d10", DebtorIBAN: debtorA, DebtorName: "Connect account Müller Möbel", CreditorName: "Jürgen Weiß",
			CreditorIBAN: debtorB, Amount: 2599, Currency: "EUR", Remittance: "Refund of order 7781", ExecutionDate: "2026-11-27"},
	}}
	var out bytes.Buffer
	if _, err := Write(&out, m); err != nil {
		t.Fatal(err)
	}
	blocks, err := PaymentInfoIDs(m.ID, m.Transfers)
	if err != nil {
		t.Fatal(err)
	}
	var status bytes.Buffer
	err = WriteStatus(&status, Answer{ID: "BANK-STS-20261127-0001", CreatedAt: at.Add(time.Hour), OriginalMsgID: m.ID,
		Group: Status{Code: "PART"}, Transactions: []Transaction{
			{PaymentInfoID: blocks[m.Transfers[0].ID], EndToEndID: EndToEndID(m.Transfers[0].ID), Status: Status{Code: "ACCP"}},
			{PaymentInfoID: blocks[m.Transfers[1].ID], EndToEndID: EndToEndID(m.Transfers[1].ID), Status: Status{Code: "RJCT", Reason: "AC04: account closed"}},
		}})
	if err != nil {
		t.Fatal(err)
	}
	files := map[string][]byte{"pain.001.001.10-example.xml": out.Bytes(), "pain.002.001.11-example.xml": status.Bytes()}
	for name, body := range files {
		path := filepath.Join("..", "..", "docs", "banking", name)
		if os.Getenv("BANKRAIL_UPDATE_EXAMPLES") == "1" {
			if err := os.WriteFile(path, body, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		got, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, body) {
			t.Errorf("%s is not what bankrail writes now: BANKRAIL_UPDATE_EXAMPLES=1 go test -run TestDocsExamplesValidate ./internal/pain", path)
		}
		xsdcheck.Validate(t, name[:len("pain.001.001.10")]+".xsd", got)
	}
}
