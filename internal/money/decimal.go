package money

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// MaxExponent is the most decimals FormatDecimal and ParseDecimal take
// (10^18 still fits an int64).
const MaxExponent = 18

// String is the amount as a decimal and the code: "12.34 EUR", "1000 JPY",
// "-0.05 GBP"; "<invalid money>" for the zero value.
func (m Money) String() string {
	if !m.Valid() {
		return "<invalid money>"
	}
	return FormatDecimal(m.minor, int(m.exp)) + " " + m.code
}

// Decimal is the amount alone as a decimal with exactly the currency's
// decimals ("12.34", "1000"); ParseDecimal reads it back.
func (m Money) Decimal() string { return FormatDecimal(m.minor, int(m.exp)) }

// Format implements fmt.Formatter: %v and %s print String, %q prints it
// quoted, %d prints the minor units.
func (m Money) Format(f fmt.State, verb rune) {
	switch verb {
	case 'v', 's':
		fmt.Fprint(f, m.String())
	case 'q':
		fmt.Fprint(f, strconv.Quote(m.String()))
	case 'd':
		fmt.Fprint(f, m.minor)
	default:
		fmt.Fprintf(f, "%%!%c(money.Money=%s)", verb, m.String())
	}
}

// Parse reads a decimal amount of currency ("12.34", "-0.5", "1000") into
// Money, exactly: at most the currency's decimals (ErrPrecision), no
// exponent, no grouping (ErrSyntax), within int64 (ErrOverflow).
func Parse(amount, currency string) (Money, error) {
	m, err := New(0, currency)
	if err != nil {
		return Money{}, err
	}
	if m.minor, err = ParseDecimal(amount, int(m.exp)); err != nil {
		return Money{}, err
	}
	return m, nil
}

// ParseString reads what String writes: a decimal amount, one space and
// the currency code ("12.34 EUR").
func ParseString(s string) (Money, error) {
	amount, code, ok := strings.Cut(s, " ")
	if !ok {
		return Money{}, fmt.Errorf("%w: %q is not \"<amount> <currency>\"", ErrSyntax, s)
	}
	return Parse(amount, code)
}

// FormatDecimal writes minor units with exp decimals: FormatDecimal(1234,
// 2) is "12.34", FormatDecimal(5, 3) is "0.005", FormatDecimal(7, 0) is
// "7". exp must be within 0..MaxExponent.
func FormatDecimal(minor int64, exp int) string {
	if exp < 0 || exp > MaxExponent {
		panic(fmt.Sprintf("money: exponent %d outside 0..%d", exp, MaxExponent))
	}
	u := uint64(minor)
	if minor < 0 {
		u = -u // also right for math.MinInt64
	}
	digits := strconv.FormatUint(u, 10)
	if exp > 0 {
		if len(digits) <= exp {
			digits = strings.Repeat("0", exp-len(digits)+1) + digits
		}
		digits = digits[:len(digits)-exp] + "." + digits[len(digits)-exp:]
	}
	if minor < 0 {
		return "-" + digits
	}
	return digits
}

// ParseDecimal reads a decimal string into minor units with exp decimals,
// exactly: an optional '-', digits, and optionally '.' followed by 1 to exp
// digits ("12.3" with exp 2 is 1230; stablecoin amounts use exp 6). More
// decimals than exp is ErrPrecision; a result outside int64 is ErrOverflow;
// anything else malformed ("", "1e3", "1,000", ".5", "5.") is ErrSyntax.
func ParseDecimal(s string, exp int) (int64, error) {
	if exp < 0 || exp > MaxExponent {
		return 0, fmt.Errorf("%w: exponent %d outside 0..%d", ErrSyntax, exp, MaxExponent)
	}
	body, neg := strings.CutPrefix(s, "-")
	whole, frac, dot := strings.Cut(body, ".")
	if whole == "" || (dot && frac == "") || !allDigits(whole) || !allDigits(frac) {
		return 0, fmt.Errorf("%w: %q", ErrSyntax, s)
	}
	if len(frac) > exp {
		return 0, fmt.Errorf("%w: %q has %d decimals, at most %d allowed", ErrPrecision, s, len(frac), exp)
	}
	limit := uint64(math.MaxInt64)
	if neg {
		limit++ // |math.MinInt64|
	}
	var u uint64
	for _, c := range whole + frac + strings.Repeat("0", exp-len(frac)) {
		d := uint64(c - '0')
		if u > (limit-d)/10 {
			return 0, fmt.Errorf("%w: %q", ErrOverflow, s)
		}
		u = u*10 + d
	}
	if neg {
		return -int64(u-1) - 1, nil // no overflow at math.MinInt64
	}
	return int64(u), nil
}

func allDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}
