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

// TestMaximumAmount: the maximum is one amount in major units, so in minor
// units it follows each currency's exponent (JPY 0, EUR 2, BHD 3), on a
// payment and on incoming funds; an unknown currency is held to the most
// lenient currency's maximum.
func TestMaximumAmount(t *testing.T) {
	t.Parallel()
	tooHigh := func(path string) []string { return []string{"TOO_HIGH " + path} }
	for _, tt := range []struct {
		currency string
		max      string // MaxFor(currency), "" for an unknown currency
		limit    int64  // the largest amount allowed, in minor units
	}{
		{"JPY", "10000 JPY", 10_000},
		{"EUR", "10000.00 EUR", 1_000_000},
		{"BHD", "10000.000 BHD", 10_000_000},
		{"XYZ", "", 100_000_000}, // four decimals, as CLF
	} {
		if m, err := testLimits.MaxFor(tt.currency); tt.max != "" && (err != nil || m.String() != tt.max || m.Minor() != tt.limit) {
			t.Errorf("MaxFor(%s) = %v, %v; want %s", tt.currency, m, err, tt.max)
		}
		unknown := []string{}
		if tt.max == "" {
			unknown = []string{"INVALID_VALUE amount.currency"}
		}
		for _, amount := range []int64{tt.limit, tt.limit + 1} {
			in := PayinInput{ExternalPaymentID: "ext-1", Amount: amount, Currency: tt.currency, BeneficiaryIBAN: "DE89370400440532013000"}
			want := unknown
			if amount > tt.limit {
				want = append(tooHigh("amount.amount"), unknown...)
			}
			if got := fieldErrors(t, checkPayin(in, testLimits)); !slices.Equal(got, want) {
				t.Errorf("payin of %d %s: errors %q, want %q", amount, tt.currency, got, want)
			}
		}
	}
	for _, tt := range []struct {
		currency string
		amount   int64
		want     []string
	}{
		{"EUR", 1_000_000, nil},
		{"EUR", 1_000_001, tooHigh("amount")},
		{"EURO", 100_000_000, []string{"INVALID_VALUE currency"}},
		{"EURO", 100_000_001, []string{"INVALID_VALUE currency", "TOO_HIGH amount"}},
	} {
		r := validEU()
		r.Currency, r.Amount = tt.currency, ptr(tt.amount)
		if got := fieldErrors(t, Validate(&r, ChannelHosted, testLimits, bank.Default())); !slices.Equal(got, tt.want) {
			t.Errorf("payment of %d %s: errors %q, want %q", tt.amount, tt.currency, got, tt.want)
		}
	}
}
