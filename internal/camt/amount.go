package camt

import (
	"errors"
	"fmt"
	"strings"

	"github.com/bankrail/bankrail/internal/iso"
	"github.com/bankrail/bankrail/internal/money"
)

// parseAmount reads a camt amount (ActiveOrHistoricCurrencyAndAmount:
// up to 18 digits, at most 5 decimals) into positive minor units of
// currency, exactly: trailing zeros past the currency's decimals are fine
// ("18.150" EUR is 1815), a digit that its minor units cannot hold is an
// error ("8.855" EUR), never a rounding. A negative, empty or malformed
// amount and an unknown currency are errors too.
func parseAmount(text, currency string) (int64, error) {
	text = strings.TrimSpace(text)
	c, ok := iso.CurrencyOf(currency)
	switch {
	case currency == "":
		return 0, errors.New("the amount has no currency (attribute Ccy)")
	case !ok:
		return 0, fmt.Errorf("the currency %q is not an ISO 4217 currency", currency)
	case text == "":
		return 0, errors.New("the amount is missing")
	case strings.HasPrefix(text, "-"):
		return 0, fmt.Errorf("the amount %s %s is negative (the direction is CdtDbtInd's)", text, currency)
	}
	s := strings.TrimPrefix(text, "+")
	if whole, frac, dot := strings.Cut(s, "."); dot && len(frac) > c.Decimals {
		kept := strings.TrimRight(frac[c.Decimals:], "0")
		if kept != "" {
			return 0, fmt.Errorf("the amount %s %s has more decimals than %s's %d minor digits: it cannot be booked exactly", text, currency, currency, c.Decimals)
		}
		s = whole
		if c.Decimals > 0 {
			s += "." + frac[:c.Decimals]
		}
	}
	minor, err := money.ParseDecimal(s, c.Decimals)
	if err != nil {
		return 0, fmt.Errorf("the amount %q %s is not a decimal amount: %w", text, currency, err)
	}
	if minor <= 0 {
		return 0, fmt.Errorf("the amount %s %s is not positive", text, currency)
	}
	return minor, nil
}

// parseSigned reads a balance: its amount and its CdtDbtInd (DBIT makes it
// negative).
func parseSigned(text, currency string, debit bool) (int64, error) {
	if strings.TrimSpace(strings.Trim(text, "0.")) == "" && text != "" { // a zero balance
		if _, ok := iso.CurrencyOf(currency); !ok {
			return 0, fmt.Errorf("the currency %q is not an ISO 4217 currency", currency)
		}
		return 0, nil
	}
	v, err := parseAmount(text, currency)
	if debit {
		v = -v
	}
	return v, err
}

// formatMinor writes minor units of currency as a decimal amount and its
// code, e.g. "18.15 EUR".
func formatMinor(minor int64, currency string) string {
	return decimal(minor, currency) + " " + currency
}

// decimal writes minor units of currency as a decimal amount ("18.15").
func decimal(minor int64, currency string) string {
	c, _ := iso.CurrencyOf(currency)
	return money.FormatDecimal(minor, c.Decimals)
}
