package ledger

import "math"

// SplitBase is the base of the two parts a Sum keeps: an amount a is
// a/SplitBase (truncated) in High and a%SplitBase (the sign of a) in Low.
// Each part of one amount is below 2³² in magnitude, so sums of the parts
// of fewer than 2³¹ amounts never overflow an int64, in Go or in SQL: the
// store sums the two parts with SQL aggregates on both engines and the
// verification combines them here, where an overflow is seen.
const SplitBase = 1 << 32

// Sum is an exact sum of int64 amounts, High·SplitBase + Low, whose value
// may not fit in an int64 (Int64 says).
type Sum struct {
	High, Low int64
}

// Add is s plus amount.
func (s Sum) Add(amount int64) Sum {
	return Sum{High: s.High + amount/SplitBase, Low: s.Low + amount%SplitBase}
}

// Int64 is the value of s; ok is false when it does not fit in an int64
// (the amounts overflow: a finding, never a wrapped number).
func (s Sum) Int64() (v int64, ok bool) {
	// Carry Low into High, then give both parts the same sign: the value
	// is High·SplitBase + Low with |Low| < SplitBase, and fits exactly when
	// High·SplitBase does and adding Low does not overflow.
	high, low := s.High+s.Low/SplitBase, s.Low%SplitBase
	switch {
	case high > 0 && low < 0:
		high, low = high-1, low+SplitBase
	case high < 0 && low > 0:
		high, low = high+1, low-SplitBase
	}
	if high > math.MaxInt64/SplitBase || high < math.MinInt64/SplitBase {
		return 0, false
	}
	h := high * SplitBase // fits: checked above
	v = h + low
	if (low > 0 && v < h) || (low < 0 && v > h) {
		return 0, false
	}
	return v, true
}

// IsZero reports whether s is exactly zero.
func (s Sum) IsZero() bool {
	v, ok := s.Int64()
	return ok && v == 0
}
