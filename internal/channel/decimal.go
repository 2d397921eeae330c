package channel

import (
	"fmt"
	"math/big"
	"strings"
)

// TokenScale is the number of fractional digits of token amounts.
const TokenScale = 6

// MaxAmount is the largest deposit, in micro units: 99999999.999999.
const MaxAmount Amount = 99_999_999_999_999

// Amount is a token amount in micro units (10^-6 of a token): exact, never
// floating point.
type Amount int64

// ErrAmountFormat and ErrAmountRange are ParseAmount's failures.
var (
	ErrAmountFormat = fmt.Errorf("amount must be a decimal number with at most %d fractional digits, such as \"12.5\"", TokenScale)
	ErrAmountRange  = fmt.Errorf("amount must be more than 0 and at most 99999999.999999")
)

// ParseAmount reads a positive decimal string with at most 6 fractional
// digits ("12", "0.000001", "99999999.999999").
func ParseAmount(s string) (Amount, error) {
	whole, frac, dot := strings.Cut(s, ".")
	if whole == "" || !digits(whole) || (dot && (frac == "" || !digits(frac))) {
		return 0, ErrAmountFormat
	}
	if len(frac) > TokenScale {
		return 0, ErrAmountFormat
	}
	n, ok := new(big.Int).SetString(whole+frac+strings.Repeat("0", TokenScale-len(frac)), 10)
	if !ok {
		return 0, ErrAmountFormat
	}
	if n.Sign() <= 0 || n.Cmp(big.NewInt(int64(MaxAmount))) > 0 {
		return 0, ErrAmountRange
	}
	return Amount(n.Int64()), nil
}

func digits(s string) bool {
	for _, c := range s {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// String is the amount with exactly 6 fractional digits ("0.000001").
func (a Amount) String() string {
	s := fmt.Sprintf("%0*d", TokenScale+1, int64(a))
	return s[:len(s)-TokenScale] + "." + s[len(s)-TokenScale:]
}

// Convert is a in fiat minor units (exponent exp: 2 for EUR) at rate, a
// decimal string of fiat per token: a × rate × 10^exp, rounded half-even.
// The arithmetic is on integers (math/big): exact for every amount.
func Convert(a Amount, rate string, exp int) (int64, error) {
	whole, frac, _ := strings.Cut(rate, ".")
	r, ok := new(big.Int).SetString(whole+frac, 10)
	if !ok || whole == "" || !digits(whole) || !digits(frac) || r.Sign() <= 0 {
		return 0, fmt.Errorf("channel: rate %q is not a positive decimal", rate)
	}
	// a micro-tokens × r / 10^len(frac) fiat per token = a×r / 10^(6+len(frac)) fiat
	num := new(big.Int).Mul(big.NewInt(int64(a)), r)
	num.Mul(num, pow10(exp))
	den := pow10(TokenScale + len(frac))
	q, rem := new(big.Int).QuoRem(num, den, new(big.Int))
	switch c := new(big.Int).Mul(rem, big.NewInt(2)).Cmp(den); {
	case c > 0, c == 0 && q.Bit(0) == 1:
		q.Add(q, big.NewInt(1))
	}
	if !q.IsInt64() {
		return 0, fmt.Errorf("channel: %s at %s does not fit", a, rate)
	}
	return q.Int64(), nil
}

func pow10(n int) *big.Int { return new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(n)), nil) }

// sandboxRates are the sandbox's fixed rates, fiat per token.
var sandboxRates = map[Token]map[string]string{
	USDC: {"USD": "1", "EUR": "0.921834", "GBP": "0.787412"},
	EURC: {"EUR": "1", "USD": "1.084792", "GBP": "0.854163"},
}

// SandboxRate is the sandbox's rate of token in fiat currency.
func SandboxRate(t Token, currency string) (Rate, bool) {
	v, ok := sandboxRates[t][currency]
	return Rate{Value: v, Pair: string(t) + "/" + currency}, ok
}
