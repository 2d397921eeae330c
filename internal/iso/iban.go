package iso

import "strings"

// IBAN limits. ISO 13616 allows 34 characters; the service contract
// accepts up to 36 before answering TOO_LONG.
const (
	IBANMaxLength = 36
	IBANMinLength = 15 // Norway, the shortest in use
)

// ibanLengths are the registered lengths of the IBANs of the countries
// bankrail's banks serve and their neighbours. Other countries are checked
// for format and checksum only.
var ibanLengths = map[string]int{
	"AT": 20, "BE": 16, "BG": 22, "CH": 21, "CY": 28, "CZ": 24, "DE": 22, "DK": 18, "EE": 20,
	"ES": 24, "FI": 18, "FR": 27, "GB": 22, "GR": 27, "HR": 21, "HU": 28, "IE": 22, "IS": 26,
	"IT": 27, "LI": 21, "LT": 20, "LU": 20, "LV": 21, "MC": 27, "MT": 31, "NL": 18, "NO": 15,
	"PL": 28, "PT": 25, "RO": 24, "SE": 24, "SI": 19, "SK": 24, "SM": 27,
}

// IBANProblem is what is wrong with an IBAN.
type IBANProblem int

// Problems of an IBAN, in the order they are checked.
const (
	IBANOK IBANProblem = iota
	IBANTooShort
	IBANTooLong
	IBANBadFormat // not two letters, two digits, then letters and digits; unknown country
	IBANBadLength // not the registered length of its country
	IBANBadChecksum
)

// IBANLength is the registered length of the IBANs of country, when known.
func IBANLength(country string) (int, bool) {
	n, ok := ibanLengths[country]
	return n, ok
}

// NormalizeIBAN removes spaces and upper-cases, as IBANs are often written
// in groups of four.
func NormalizeIBAN(s string) string {
	return strings.ToUpper(strings.ReplaceAll(strings.TrimSpace(s), " ", ""))
}

// CheckIBAN checks a normalised IBAN: length, format, country and the mod-97
// checksum.
func CheckIBAN(iban string) IBANProblem {
	switch {
	case len(iban) > IBANMaxLength:
		return IBANTooLong
	case len(iban) < IBANMinLength:
		return IBANTooShort
	}
	for i := 0; i < len(iban); i++ {
		c := iban[i]
		letter, digit := c >= 'A' && c <= 'Z', c >= '0' && c <= '9'
		if (i < 2 && !letter) || (i >= 2 && i < 4 && !digit) || (!letter && !digit) {
			return IBANBadFormat
		}
	}
	country := iban[:2]
	if !IsCountry(country) {
		return IBANBadFormat
	}
	if n, ok := ibanLengths[country]; ok && n != len(iban) {
		return IBANBadLength
	}
	if ibanMod97(iban) != 1 {
		return IBANBadChecksum
	}
	return IBANOK
}

// ibanMod97 computes the ISO 7064 mod-97 remainder of the rearranged IBAN
// (first four characters moved to the end, letters as 10..35), digit by digit
// so that no big integer is needed. The input holds only A-Z and 0-9.
func ibanMod97(iban string) int {
	r := 0
	add := func(c byte) {
		if c >= 'A' && c <= 'Z' {
			v := int(c-'A') + 10
			r = (r*100 + v) % 97
			return
		}
		r = (r*10 + int(c-'0')) % 97
	}
	for i := 4; i < len(iban); i++ {
		add(iban[i])
	}
	for i := 0; i < 4; i++ {
		add(iban[i])
	}
	return r
}

// IBANCountry returns the country code of a well-formed IBAN.
func IBANCountry(iban string) string {
	if len(iban) < 2 {
		return ""
	}
	return iban[:2]
}

// MakeIBAN builds a valid IBAN from a country code and a BBAN by computing
// the check digits (used for test data and account aliases).
func MakeIBAN(country, bban string) string {
	r := ibanMod97(country + "00" + bban)
	check := 98 - r
	return country + string(rune('0'+check/10)) + string(rune('0'+check%10)) + bban
}
