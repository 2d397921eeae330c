// Package iso holds the ISO reference data bankrail validates against:
// ISO 3166-1 alpha-2 countries, ISO 4217 currencies, ISO 13616 IBANs and
// ISO 9362 BICs. It is pure data and functions: no I/O.
package iso

// Currency is one ISO 4217 currency.
type Currency struct {
	Code     string // three upper-case letters, e.g. EUR
	Name     string // English name, e.g. Euro
	Decimals int    // minor units: 2 for EUR, 0 for JPY
}

// MaxDecimals is the most minor-unit digits any currency here has (CLF and
// UYW have 4).
const MaxDecimals = 4

// CurrencyOf returns the currency with that code (upper case only).
func CurrencyOf(code string) (Currency, bool) {
	c, ok := currencies[code]
	return c, ok
}

// CountryName returns the English short name of an alpha-2 country code
// (upper case only).
func CountryName(code string) (string, bool) {
	n, ok := countries[code]
	return n, ok
}

// IsCountry reports whether code is an ISO 3166-1 alpha-2 code.
func IsCountry(code string) bool {
	_, ok := countries[code]
	return ok
}
