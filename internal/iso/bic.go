package iso

// IsBIC reports whether s is an ISO 9362 business identifier code: four
// letters (institution), a country code, two letters or digits (location) and
// an optional three-character branch, upper case.
func IsBIC(s string) bool {
	if len(s) != 8 && len(s) != 11 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		letter, digit := c >= 'A' && c <= 'Z', c >= '0' && c <= '9'
		if (i < 6 && !letter) || (i >= 6 && !letter && !digit) {
			return false
		}
	}
	return IsCountry(s[4:6])
}
