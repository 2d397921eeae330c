package httpapi

import (
	"testing"

	"github.com/bankrail/bankrail/internal/payment"
)

// Every registered payment system has its details object in the record.
func TestEverySystemHasARecord(t *testing.T) {
	t.Parallel()
	for _, s := range payment.Systems() {
		if _, ok := schemeRecords[s.ID]; !ok {
			t.Errorf("payment system %s has no entry in schemeRecords", s.ID)
		}
	}
}
