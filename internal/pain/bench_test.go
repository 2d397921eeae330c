package pain

import (
	"fmt"
	"io"
	"testing"
	"time"
)

// BenchmarkWrite10000 writes a file of 10,000 transfers.
func BenchmarkWrite10000(b *testing.B) {
	m := Message{ID: "BENCH", CreatedAt: time.Now(), Initiator: "bankrail"}
	for i := range 10000 {
		m.Transfers = append(m.Transfers, Instruction{ID: fmt.Sprintf("7c000000-0000-4000-8000-%012d", i), DebtorIBAN: debtorA,
			DebtorName: "Händler GmbH", CreditorName: fmt.Sprintf("Bénéficiaire Nº %d", i), CreditorIBAN: creditorX, Amount: int64(100 + i),
			Currency: "EUR", Remittance: fmt.Sprintf("Rückzahlung Rechnung %d", i), ExecutionDate: "2026-11-27"})
	}
	b.ResetTimer()
	for b.Loop() {
		if _, err := Write(io.Discard, m); err != nil {
			b.Fatal(err)
		}
	}
}
