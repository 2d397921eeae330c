package money

import (
	"fmt"
	"math"
)

// same checks that m and o can be combined: both valid, one currency.
func (m Money) same(o Money) error {
	switch {
	case !m.Valid() || !o.Valid():
		return ErrInvalid
	case m.code != o.code:
		return fmt.Errorf("%w: %s and %s", ErrCurrencyMismatch, m.code, o.code)
	}
	return nil
}

// Add is m + o. It fails with ErrCurrencyMismatch for two currencies and
// ErrOverflow when the sum leaves the int64 range.
func (m Money) Add(o Money) (Money, error) {
	if err := m.same(o); err != nil {
		return Money{}, err
	}
	s := m.minor + o.minor
	if (o.minor > 0 && s < m.minor) || (o.minor < 0 && s > m.minor) {
		return Money{}, fmt.Errorf("%w: %s + %s", ErrOverflow, m, o)
	}
	m.minor = s
	return m, nil
}

// Sub is m - o, with the errors of Add.
func (m Money) Sub(o Money) (Money, error) {
	if err := m.same(o); err != nil {
		return Money{}, err
	}
	d := m.minor - o.minor
	if (o.minor > 0 && d > m.minor) || (o.minor < 0 && d < m.minor) {
		return Money{}, fmt.Errorf("%w: %s - %s", ErrOverflow, m, o)
	}
	m.minor = d
	return m, nil
}

// Neg is -m. It fails with ErrOverflow for the smallest int64 amount.
func (m Money) Neg() (Money, error) {
	switch {
	case !m.Valid():
		return Money{}, ErrInvalid
	case m.minor == math.MinInt64:
		return Money{}, fmt.Errorf("%w: -(%s)", ErrOverflow, m)
	}
	m.minor = -m.minor
	return m, nil
}

// Cmp compares m and o: -1 if m < o, 0 if equal, +1 if m > o. It fails
// with ErrCurrencyMismatch for two currencies.
func (m Money) Cmp(o Money) (int, error) {
	if err := m.same(o); err != nil {
		return 0, err
	}
	switch {
	case m.minor < o.minor:
		return -1, nil
	case m.minor > o.minor:
		return 1, nil
	}
	return 0, nil
}
