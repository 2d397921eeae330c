package xs2a

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/bankrail/bankrail/internal/iso"
)

// FormatAmount is minor units of currency as the standard's exact decimal
// string in the currency's exponent: 1050 EUR is "10.50", 5 EUR "0.05",
// 1000 JPY "1000", 1234 BHD "1.234". A currency bankrail does not know is
// an error: guessing its exponent could send ten times the amount.
func FormatAmount(minor int64, currency string) (Amount, error) {
	c, ok := iso.CurrencyOf(currency)
	if !ok {
		return Amount{}, fmt.Errorf("amount in %q: not a currency bankrail knows", currency)
	}
	if minor < 0 {
		return Amount{}, fmt.Errorf("amount %d %s: a payment's amount is never negative", minor, currency)
	}
	digits := strconv.FormatInt(minor, 10)
	if c.Decimals == 0 {
		return Amount{Currency: currency, Amount: digits}, nil
	}
	for len(digits) <= c.Decimals {
		digits = "0" + digits
	}
	cut := len(digits) - c.Decimals
	return Amount{Currency: currency, Amount: digits[:cut] + "." + digits[cut:]}, nil
}

// ParseAmount reads the standard's decimal amount in minor units of its
// currency; more decimals than the currency's exponent, a sign or anything
// but digits and one point are an error (never rounded).
func ParseAmount(a Amount) (int64, error) {
	c, ok := iso.CurrencyOf(a.Currency)
	if !ok {
		return 0, fmt.Errorf("currency %q: not a currency bankrail knows", a.Currency)
	}
	whole, frac, hasPoint := strings.Cut(a.Amount, ".")
	if whole == "" || !digitsOnly(whole) || !digitsOnly(frac) || (hasPoint && frac == "") || len(frac) > c.Decimals {
		return 0, fmt.Errorf("amount %q %s: not a decimal with at most %d decimals", a.Amount, a.Currency, c.Decimals)
	}
	frac += strings.Repeat("0", c.Decimals-len(frac))
	n, err := strconv.ParseInt(whole+frac, 10, 64)
	if err != nil || len(whole) > 14 {
		return 0, fmt.Errorf("amount %q %s: too large", a.Amount, a.Currency)
	}
	return n, nil
}

func digitsOnly(s string) bool {
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}
