package money

import (
	"errors"
	"math"
	"math/big"
	"testing"

	"pgregory.net/rapid"
)

// currencies drawn by the property tests: every exponent ISO 4217 has.
var propertyCurrencies = []string{"EUR", "JPY", "BHD", "CLF", "GBP", "KRW"}

func anyMoney(t *rapid.T, label, currency string) Money {
	return Must(New(rapid.Int64().Draw(t, label), currency))
}

// TestAddSubProperties: where a+b fits int64 it is exact and (a+b)-b is a
// again; where it does not, Add fails with ErrOverflow instead of wrapping.
// The same for Sub and Neg, checked against math/big.
func TestAddSubProperties(t *testing.T) {
	t.Parallel()
	rapid.Check(t, func(t *rapid.T) {
		cur := rapid.SampledFrom(propertyCurrencies).Draw(t, "currency")
		a, b := anyMoney(t, "a", cur), anyMoney(t, "b", cur)
		fits := func(z *big.Int) bool { return z.IsInt64() }
		sum := new(big.Int).Add(big.NewInt(a.Minor()), big.NewInt(b.Minor()))
		s, err := a.Add(b)
		switch {
		case fits(sum) && (err != nil || s.Minor() != sum.Int64()):
			t.Fatalf("%v + %v = %v, %v; want %s", a, b, s, err, sum)
		case !fits(sum) && !errors.Is(err, ErrOverflow):
			t.Fatalf("%v + %v = %v, %v; want ErrOverflow", a, b, s, err)
		case err == nil:
			if back, err := s.Sub(b); err != nil || back != a {
				t.Fatalf("(%v + %v) - %v = %v, %v; want %v", a, b, b, back, err, a)
			}
		}
		diff := new(big.Int).Sub(big.NewInt(a.Minor()), big.NewInt(b.Minor()))
		d, err := a.Sub(b)
		switch {
		case fits(diff) && (err != nil || d.Minor() != diff.Int64()):
			t.Fatalf("%v - %v = %v, %v; want %s", a, b, d, err, diff)
		case !fits(diff) && !errors.Is(err, ErrOverflow):
			t.Fatalf("%v - %v = %v, %v; want ErrOverflow", a, b, d, err)
		case err == nil:
			if back, err := d.Add(b); err != nil || back != a {
				t.Fatalf("(%v - %v) + %v = %v, %v; want %v", a, b, b, back, err, a)
			}
		}
		n, err := a.Neg()
		if (a.Minor() == math.MinInt64) != errors.Is(err, ErrOverflow) || (err == nil && n.Minor() != -a.Minor()) {
			t.Fatalf("-%v = %v, %v", a, n, err)
		}
	})
}

// TestFormatParseRoundTrip: Parse(Decimal) and ParseString(String) give the
// same Money back, for every amount and exponent.
func TestFormatParseRoundTrip(t *testing.T) {
	t.Parallel()
	rapid.Check(t, func(t *rapid.T) {
		cur := rapid.SampledFrom(propertyCurrencies).Draw(t, "currency")
		m := anyMoney(t, "minor", cur)
		if got, err := Parse(m.Decimal(), cur); err != nil || got != m {
			t.Fatalf("Parse(%q, %s) = %v, %v; want %v", m.Decimal(), cur, got, err, m)
		}
		if got, err := ParseString(m.String()); err != nil || got != m {
			t.Fatalf("ParseString(%q) = %v, %v; want %v", m.String(), got, err, m)
		}
		exp := rapid.IntRange(0, MaxExponent).Draw(t, "exp")
		if got, err := ParseDecimal(FormatDecimal(m.Minor(), exp), exp); err != nil || got != m.Minor() {
			t.Fatalf("ParseDecimal(FormatDecimal(%d, %d)) = %d, %v", m.Minor(), exp, got, err)
		}
	})
}
