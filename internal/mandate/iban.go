package mandate

import (
	"github.com/bankrail/bankrail/internal/errs"
	"github.com/bankrail/bankrail/internal/iso"
)

// checkIBAN normalises *iban and checks it is a valid GB IBAN.
func checkIBAN(v *errs.Validation, path string, iban *string) {
	*iban = iso.NormalizeIBAN(*iban)
	switch iso.CheckIBAN(*iban) {
	case iso.IBANOK:
		if iso.IBANCountry(*iban) != "GB" {
			v.Add(errs.InvalidValue, path, "%s must be a GB IBAN for a VRP mandate.", path)
		}
	case iso.IBANTooLong:
		v.Add(errs.TooLong, path, "%s must be at most %d characters long.", path, iso.IBANMaxLength)
	case iso.IBANTooShort:
		v.Add(errs.TooShort, path, "%s must be at least %d characters long.", path, iso.IBANMinLength)
	case iso.IBANBadChecksum:
		v.Add(errs.ChecksumFailed, path, "%s has a wrong checksum.", path)
	default:
		v.Add(errs.InvalidFormat, path, "%s is not an IBAN.", path)
	}
}
