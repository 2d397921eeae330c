package refund

import (
	"errors"
	"strings"
	"testing"

	"github.com/bankrail/bankrail/internal/errs"
)

// What the production rail carries: a EUR refund to the payer's IBAN; a
// currency other than EUR is refused on currency, a payer whose IBAN the
// bank never said on paymentId, each a VALIDATION_FAILURE that says why.
func TestSendable(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name, currency, iban, path, words string
	}{
		{"EUR to the payer's IBAN", "EUR", "DE89370400440532013000", "", ""},
		{"GBP", "GBP", "GB82WEST12345698765432", "currency", "SEPA"},
		{"the payer's IBAN unknown", "EUR", "", "paymentId", "IBAN"},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			err := sendable(c.currency, c.iban)
			if c.path == "" {
				if err != nil {
					t.Fatalf("refused: %v", err)
				}
				return
			}
			e, ok := errors.AsType[*errs.Error](err)
			if !ok || e.Code != errs.ValidationFailure || len(e.Fields) != 1 || e.Fields[0].PropertyPath != c.path ||
				!strings.Contains(e.Fields[0].Message, c.words) {
				t.Fatalf("%#v", err)
			}
		})
	}
}
