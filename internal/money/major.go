package money

import (
	"fmt"
	"math"

	"github.com/bankrail/bankrail/internal/iso"
)

// OfMajor is major whole units of currency (5 EUR is 500 minor units, 5
// JPY is 5, 5 BHD is 5000). It fails with ErrUnknownCurrency for an unknown
// code and ErrOverflow when the minor units do not fit in an int64.
func OfMajor(major int64, currency string) (Money, error) {
	m, err := New(0, currency)
	if err != nil {
		return Money{}, err
	}
	if m.minor, err = MajorToMinor(major, m.Exponent()); err != nil {
		return Money{}, fmt.Errorf("%d %s: %w", major, currency, err)
	}
	return m, nil
}

// MajorToMinor is major whole units in the minor units of a currency with
// exp decimals, or ErrOverflow.
func MajorToMinor(major int64, exp int) (int64, error) {
	minor := major
	for range exp {
		if minor > math.MaxInt64/10 || minor < math.MinInt64/10 {
			return 0, fmt.Errorf("%w: %d with %d decimals", ErrOverflow, major, exp)
		}
		minor *= 10
	}
	return minor, nil
}

// Bound is a maximum of major whole units of currency in its minor units:
// OfMajor's amount, except that an unknown currency counts with
// iso.MaxDecimals, the most any currency has (so the bound is never tighter
// than a real currency's), and a result beyond int64 is math.MaxInt64.
func Bound(major int64, currency string) int64 {
	exp := iso.MaxDecimals
	if c, ok := iso.CurrencyOf(currency); ok {
		exp = c.Decimals
	}
	minor, err := MajorToMinor(major, exp)
	if err != nil {
		return math.MaxInt64
	}
	return minor
}
