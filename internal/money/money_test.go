package money

import (
	"errors"
	"fmt"
	"math"
	"testing"
)

func TestNew(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		minor    int64
		currency string
		exp      int
		err      error
	}{
		{1234, "EUR", 2, nil},
		{1000, "JPY", 0, nil},
		{1, "BHD", 3, nil},
		{-5, "GBP", 2, nil},
		{0, "eur", 0, ErrUnknownCurrency},
		{0, "", 0, ErrUnknownCurrency},
		{0, "XAU", 0, ErrUnknownCurrency},
	} {
		m, err := New(tt.minor, tt.currency)
		if !errors.Is(err, tt.err) {
			t.Errorf("New(%d, %q) error %v, want %v", tt.minor, tt.currency, err, tt.err)
			continue
		}
		if err != nil {
			if m.Valid() {
				t.Errorf("New(%d, %q) failed but returned a valid %v", tt.minor, tt.currency, m)
			}
			continue
		}
		if !m.Valid() || m.Minor() != tt.minor || m.Currency() != tt.currency || m.Exponent() != tt.exp {
			t.Errorf("New(%d, %q) = %d %s exp %d", tt.minor, tt.currency, m.Minor(), m.Currency(), m.Exponent())
		}
	}
}

func TestZeroValueIsInvalid(t *testing.T) {
	t.Parallel()
	var z Money
	eur := Must(New(1, "EUR"))
	if z.Valid() || z.String() != "<invalid money>" {
		t.Fatalf("zero value: valid %v, %q", z.Valid(), z.String())
	}
	if _, err := z.Add(eur); !errors.Is(err, ErrInvalid) {
		t.Errorf("zero + 1 EUR: %v", err)
	}
	if _, err := eur.Sub(z); !errors.Is(err, ErrInvalid) {
		t.Errorf("1 EUR - zero: %v", err)
	}
	if _, err := z.Neg(); !errors.Is(err, ErrInvalid) {
		t.Errorf("-zero: %v", err)
	}
	if _, err := z.Cmp(z); !errors.Is(err, ErrInvalid) {
		t.Errorf("cmp zero: %v", err)
	}
	if zero := Must(Zero("EUR")); !zero.Valid() || zero.Sign() != 0 || zero.String() != "0.00 EUR" {
		t.Errorf("Zero(EUR) = %v", zero)
	}
}

func TestArithmetic(t *testing.T) {
	t.Parallel()
	eur := func(n int64) Money { return Must(New(n, "EUR")) }
	gbp := Must(New(1, "GBP"))
	for _, tt := range []struct {
		name string
		op   func() (Money, error)
		want Money
		err  error
	}{
		{"add", func() (Money, error) { return eur(1050).Add(eur(-50)) }, eur(1000), nil},
		{"sub", func() (Money, error) { return eur(1050).Sub(eur(2000)) }, eur(-950), nil},
		{"neg", func() (Money, error) { return eur(7).Neg() }, eur(-7), nil},
		{"add currencies", func() (Money, error) { return eur(1).Add(gbp) }, Money{}, ErrCurrencyMismatch},
		{"sub currencies", func() (Money, error) { return eur(1).Sub(gbp) }, Money{}, ErrCurrencyMismatch},
		{"add overflow", func() (Money, error) { return eur(math.MaxInt64).Add(eur(1)) }, Money{}, ErrOverflow},
		{"add underflow", func() (Money, error) { return eur(math.MinInt64).Add(eur(-1)) }, Money{}, ErrOverflow},
		{"add to the limit", func() (Money, error) { return eur(math.MaxInt64 - 1).Add(eur(1)) }, eur(math.MaxInt64), nil},
		{"sub overflow", func() (Money, error) { return eur(math.MaxInt64).Sub(eur(-1)) }, Money{}, ErrOverflow},
		{"sub underflow", func() (Money, error) { return eur(math.MinInt64).Sub(eur(1)) }, Money{}, ErrOverflow},
		{"sub to the limit", func() (Money, error) { return eur(-1).Sub(eur(math.MaxInt64)) }, eur(math.MinInt64), nil},
		{"neg overflow", func() (Money, error) { return eur(math.MinInt64).Neg() }, Money{}, ErrOverflow},
		{"neg max", func() (Money, error) { return eur(math.MaxInt64).Neg() }, eur(-math.MaxInt64), nil},
	} {
		got, err := tt.op()
		if !errors.Is(err, tt.err) || got != tt.want {
			t.Errorf("%s = %v, %v; want %v, %v", tt.name, got, err, tt.want, tt.err)
		}
	}
}

func TestCmp(t *testing.T) {
	t.Parallel()
	a, b := Must(New(100, "EUR")), Must(New(200, "EUR"))
	for _, tt := range []struct {
		x, y Money
		want int
	}{{a, b, -1}, {b, a, 1}, {a, a, 0}} {
		if got, err := tt.x.Cmp(tt.y); err != nil || got != tt.want {
			t.Errorf("%v cmp %v = %d, %v; want %d", tt.x, tt.y, got, err, tt.want)
		}
	}
	if _, err := a.Cmp(Must(New(100, "GBP"))); !errors.Is(err, ErrCurrencyMismatch) {
		t.Errorf("EUR cmp GBP: %v", err)
	}
}

func TestFormat(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		minor    int64
		currency string
		want     string
	}{
		{1234, "EUR", "12.34 EUR"},
		{1000, "JPY", "1000 JPY"},
		{5, "EUR", "0.05 EUR"},
		{-5, "GBP", "-0.05 GBP"},
		{0, "EUR", "0.00 EUR"},
		{1, "BHD", "0.001 BHD"},
		{-1234567, "KWD", "-1234.567 KWD"},
		{1, "CLF", "0.0001 CLF"},
		{math.MaxInt64, "EUR", "92233720368547758.07 EUR"},
		{math.MinInt64, "EUR", "-92233720368547758.08 EUR"},
		{math.MinInt64, "JPY", "-9223372036854775808 JPY"},
	} {
		m := Must(New(tt.minor, tt.currency))
		if got := m.String(); got != tt.want {
			t.Errorf("String(%d %s) = %q, want %q", tt.minor, tt.currency, got, tt.want)
		}
		if got := fmt.Sprintf("%v|%s|%d", m, m, m); got != tt.want+"|"+tt.want+"|"+fmt.Sprint(tt.minor) {
			t.Errorf("Sprintf(%d %s) = %q", tt.minor, tt.currency, got)
		}
	}
	if got := fmt.Sprintf("%q %x", Must(New(1, "EUR")), Must(New(1, "EUR"))); got != `"0.01 EUR" %!x(money.Money=0.01 EUR)` {
		t.Errorf("%%q %%x = %s", got)
	}
	if got := FormatDecimal(123, 6); got != "0.000123" {
		t.Errorf("FormatDecimal(123, 6) = %q", got)
	}
}

func TestParse(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		amount, currency string
		want             int64
		err              error
	}{
		{"12.34", "EUR", 1234, nil},
		{"12.3", "EUR", 1230, nil},
		{"12", "EUR", 1200, nil},
		{"0.05", "EUR", 5, nil},
		{"-0.05", "GBP", -5, nil},
		{"007.50", "EUR", 750, nil},
		{"1000", "JPY", 1000, nil},
		{"1.234", "BHD", 1234, nil},
		{"92233720368547758.07", "EUR", math.MaxInt64, nil},
		{"-92233720368547758.08", "EUR", math.MinInt64, nil},
		{"92233720368547758.08", "EUR", 0, ErrOverflow},
		{"-92233720368547758.09", "EUR", 0, ErrOverflow},
		{"99999999999999999999", "JPY", 0, ErrOverflow},
		{"12.345", "EUR", 0, ErrPrecision},
		{"12.0", "JPY", 0, ErrPrecision},
		{"12.30", "EUR", 1230, nil},
		{"", "EUR", 0, ErrSyntax},
		{"-", "EUR", 0, ErrSyntax},
		{".5", "EUR", 0, ErrSyntax},
		{"5.", "EUR", 0, ErrSyntax},
		{"+5", "EUR", 0, ErrSyntax},
		{"1e3", "EUR", 0, ErrSyntax},
		{"1,000", "EUR", 0, ErrSyntax},
		{" 1", "EUR", 0, ErrSyntax},
		{"1.2.3", "EUR", 0, ErrSyntax},
		{"--1", "EUR", 0, ErrSyntax},
		{"١٢", "EUR", 0, ErrSyntax},
		{"1", "EURO", 0, ErrUnknownCurrency},
	} {
		m, err := Parse(tt.amount, tt.currency)
		if !errors.Is(err, tt.err) {
			t.Errorf("Parse(%q, %s) error %v, want %v", tt.amount, tt.currency, err, tt.err)
			continue
		}
		if err == nil && (m.Minor() != tt.want || m.Currency() != tt.currency) {
			t.Errorf("Parse(%q, %s) = %v, want %d minor units", tt.amount, tt.currency, m, tt.want)
		}
	}
	if m, err := ParseString("12.34 EUR"); err != nil || m != Must(New(1234, "EUR")) {
		t.Errorf("ParseString(12.34 EUR) = %v, %v", m, err)
	}
	if _, err := ParseString("12.34EUR"); !errors.Is(err, ErrSyntax) {
		t.Errorf("ParseString(12.34EUR): %v", err)
	}
	if n, err := ParseDecimal("1.5", 6); err != nil || n != 1_500_000 {
		t.Errorf("ParseDecimal(1.5, 6) = %d, %v", n, err)
	}
	if _, err := ParseDecimal("1", 19); !errors.Is(err, ErrSyntax) {
		t.Errorf("ParseDecimal exponent 19: %v", err)
	}
}
