package app

import (
	"testing"

	"github.com/bankrail/bankrail/internal/bank"
	"github.com/bankrail/bankrail/internal/checkout"
	"github.com/bankrail/bankrail/internal/config"
)

// The sandbox reaches every bank through the mock banks; production reaches
// none (no real connector exists yet).
func TestBankConnectorsWiring(t *testing.T) {
	t.Parallel()
	banks := bank.Default().List(bank.Filter{})
	sandbox, err := bankConnectors(config.Sandbox, bank.Default())
	if err != nil {
		t.Fatal(err)
	}
	production, err := bankConnectors(config.Production, bank.Default())
	if err != nil {
		t.Fatal(err)
	}
	if sandbox.Len() != len(banks) || production.Len() != 0 {
		t.Fatalf("sandbox reaches %d of %d banks, production %d", sandbox.Len(), len(banks), production.Len())
	}
	for _, b := range banks {
		if c, _ := sandbox.For(b.ID); c != (checkout.MockBanks{}) {
			t.Errorf("sandbox: %s (%s) is reached by %v", b.Name, b.ID, c)
		}
	}
}
