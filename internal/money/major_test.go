package money

import (
	"errors"
	"math"
	"testing"
)

// TestOfMajor: one major-unit amount is as many minor units as each
// currency's exponent says (JPY 0, EUR 2, BHD 3).
func TestOfMajor(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		major    int64
		currency string
		want     string
		minor    int64
		err      error
	}{
		{100_000_000, "JPY", "100000000 JPY", 100_000_000, nil},
		{100_000_000, "EUR", "100000000.00 EUR", 10_000_000_000, nil},
		{100_000_000, "BHD", "100000000.000 BHD", 100_000_000_000, nil},
		{-5, "EUR", "-5.00 EUR", -500, nil},
		{math.MaxInt64 / 100, "EUR", "92233720368547758.00 EUR", math.MaxInt64 / 100 * 100, nil},
		{math.MaxInt64/100 + 1, "EUR", "", 0, ErrOverflow},
		{math.MaxInt64, "JPY", "9223372036854775807 JPY", math.MaxInt64, nil},
		{1, "EURO", "", 0, ErrUnknownCurrency},
	} {
		m, err := OfMajor(tt.major, tt.currency)
		if !errors.Is(err, tt.err) || (err == nil && (m.String() != tt.want || m.Minor() != tt.minor)) {
			t.Errorf("OfMajor(%d, %s) = %v (%d), %v; want %s (%d), %v", tt.major, tt.currency, m, m.Minor(), err, tt.want, tt.minor, tt.err)
		}
	}
}

// TestBound: a bound in an unknown currency counts with the most decimals
// of any currency, and saturates instead of overflowing.
func TestBound(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		major    int64
		currency string
		want     int64
	}{
		{50, "JPY", 50},
		{50, "EUR", 5000},
		{50, "BHD", 50000},
		{50, "CLF", 500000},
		{50, "XYZ", 500000},
		{math.MaxInt64 / 10, "BHD", math.MaxInt64},
	} {
		if got := Bound(tt.major, tt.currency); got != tt.want {
			t.Errorf("Bound(%d, %s) = %d, want %d", tt.major, tt.currency, got, tt.want)
		}
	}
}
