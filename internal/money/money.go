// Package money is an amount of one currency: an int64 count of minor
// units (cents, pence; none for JPY) and an ISO 4217 code whose exponent
// comes from internal/iso. There is no floating point anywhere: amounts are
// added, compared, formatted and parsed exactly, and an int64 overflow is
// an error, never a silent wrap.
//
// The zero value Money{} is invalid: it has no currency. Valid reports it,
// String prints "<invalid money>", and arithmetic on it fails with
// ErrInvalid. A zero amount of a currency is made with New(0, "EUR").
package money

import (
	"errors"
	"fmt"

	"github.com/bankrail/bankrail/internal/iso"
)

// Errors of this package; returned errors wrap them with the details (use
// errors.Is).
var (
	// ErrInvalid is the use of the zero value Money{}, which has no currency.
	ErrInvalid = errors.New("money: no currency")
	// ErrUnknownCurrency is a code that is not an ISO 4217 currency with minor units.
	ErrUnknownCurrency = errors.New("money: unknown currency")
	// ErrCurrencyMismatch is arithmetic or a comparison across two currencies.
	ErrCurrencyMismatch = errors.New("money: currencies differ")
	// ErrOverflow is a result outside the int64 range of minor units.
	ErrOverflow = errors.New("money: amount out of range")
	// ErrSyntax is a string that is not a decimal amount.
	ErrSyntax = errors.New("money: not a decimal amount")
	// ErrPrecision is a decimal with more fractional digits than the currency has.
	ErrPrecision = errors.New("money: too many decimal places")
)

// Money is an exact amount of one currency. It is comparable with ==
// (same currency and amount). The zero value is invalid (no currency).
type Money struct {
	minor int64  // amount in minor units
	code  string // ISO 4217 code, "" in the zero value
	exp   int8   // decimals of the currency
}

// New is minor units of currency (an upper-case ISO 4217 code such as
// EUR). It fails with ErrUnknownCurrency for any other code.
func New(minor int64, currency string) (Money, error) {
	c, ok := iso.CurrencyOf(currency)
	if !ok {
		return Money{}, fmt.Errorf("%w: %q", ErrUnknownCurrency, currency)
	}
	return Money{minor: minor, code: c.Code, exp: int8(c.Decimals)}, nil
}

// Must returns m and panics if err is not nil; for constants in tests and
// tables known to be valid.
func Must(m Money, err error) Money {
	if err != nil {
		panic(err)
	}
	return m
}

// Zero is no money of currency: New(0, currency).
func Zero(currency string) (Money, error) { return New(0, currency) }

// Valid reports whether m has a currency (false only for the zero value).
func (m Money) Valid() bool { return m.code != "" }

// Minor is the amount in minor units (12.34 EUR is 1234).
func (m Money) Minor() int64 { return m.minor }

// Currency is the ISO 4217 code ("" for the zero value).
func (m Money) Currency() string { return m.code }

// Exponent is the number of decimals of the currency (2 for EUR, 0 for JPY).
func (m Money) Exponent() int { return int(m.exp) }

// Sign is -1, 0 or +1 as the amount is negative, zero or positive.
func (m Money) Sign() int {
	switch {
	case m.minor < 0:
		return -1
	case m.minor > 0:
		return 1
	}
	return 0
}
