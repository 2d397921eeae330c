package payment

import (
	"slices"
	"testing"

	"github.com/bankrail/bankrail/internal/bank"
)

func TestPaymentMoney(t *testing.T) {
	t.Parallel()
	if m := (Payment{Request: validEU()}).Money(); !m.Valid() || m.String() != "10.50 EUR" {
		t.Errorf("EU payment money %v", m)
	}
	for _, r := range []CreateRequest{{Currency: "EUR"}, {Currency: "EURO", Amount: ptr(int64(5))}} {
		if m := (Payment{Request: r}).Money(); m.Valid() {
			t.Errorf("money of %+v = %v, want the invalid zero value", r, m)
		}
	}
}

// TestMaximumAmount: the maximum counts in minor units of the payment's
// currency, and is checked even when the currency is unknown.
func TestMaximumAmount(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		currency string
		amount   int64
		want     []string
	}{
		{"EUR", testLimits.MaxAmount, nil},
		{"EUR", testLimits.MaxAmount + 1, []string{"TOO_HIGH amount"}},
		{"EURO", testLimits.MaxAmount + 1, []string{"INVALID_VALUE currency", "TOO_HIGH amount"}},
	} {
		r := validEU()
		r.Currency, r.Amount = tt.currency, ptr(tt.amount)
		if got := fieldErrors(t, Validate(&r, ChannelHosted, testLimits, bank.Default())); !slices.Equal(got, tt.want) {
			t.Errorf("%d %s: errors %q, want %q", tt.amount, tt.currency, got, tt.want)
		}
	}
	if m, err := testLimits.MaxFor("JPY"); err != nil || m.String() != "1000000 JPY" {
		t.Errorf("MaxFor(JPY) = %v, %v", m, err)
	}
}
