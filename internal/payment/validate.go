package payment

import (
	"fmt"
	"net"
	"net/url"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/google/uuid"

	"github.com/bankrail/bankrail/internal/bank"
	"github.com/bankrail/bankrail/internal/errs"
	"github.com/bankrail/bankrail/internal/iso"
	"github.com/bankrail/bankrail/internal/money"
)

// Bounds of the request fields, in characters.
const (
	MaxReferenceLength        = 255 // internalReference, payer.reference
	MaxPaymentReferenceEU     = 140 // SEPA remittance information
	MaxPaymentReferenceUK     = 18  // Faster Payments reference
	MaxNameLength             = 140 // beneficiary and payer names
	MaxEmailLength            = 254
	MaxUserAgentLength        = 1024
	MaxFingerprintLength      = 255
	MaxStatementDescriptor    = 35
	MaxURLLength              = 2048
	MaxQueryStringLength      = 1024
	MaxDisplayInfoItems       = 10
	MaxDisplayInfoKeyLength   = 50
	MaxDisplayInfoValueLength = 255
	MinValidityPeriod         = 60             // seconds
	MaxValidityPeriod         = 30 * 24 * 3600 // seconds
)

// Limits are the configurable bounds of validation.
type Limits struct {
	// MaxMajor is the largest amount in whole major units of its currency
	// (inclusive): each currency's maximum in minor units is this scaled by
	// its exponent (100 JPY, 100.00 EUR, 100.000 BHD).
	MaxMajor int64
}

// MaxFor is the largest amount of a payment in currency (MaxMajor major
// units of it); it fails for an unknown currency.
func (l Limits) MaxFor(currency string) (money.Money, error) {
	return money.OfMajor(l.MaxMajor, currency)
}

// checkMax adds TOO_HIGH on path when minor units of currency are above the
// maximum. With an unknown currency (reported on its own field) the amount
// is checked against the most lenient currency's maximum (money.Bound).
func (l Limits) checkMax(v *errs.Validation, path string, minor int64, currency string) bool {
	max := money.Bound(l.MaxMajor, currency)
	if minor <= max {
		return false
	}
	if _, ok := iso.CurrencyOf(currency); !ok {
		currency = "any currency"
	}
	v.Add(errs.TooHigh, path, "%s must be at most %d (minor units of %s), got %d.", path, max, currency, minor)
	return true
}

// Validate checks a create request for channel ch and returns a
// VALIDATION_FAILURE listing every failing field, or nil. It normalises r in
// place: IBANs lose spaces and are upper-cased, sort codes lose dashes, BICs
// are upper-cased.
func Validate(r *CreateRequest, ch Channel, lim Limits, banks *bank.Registry) error {
	v := &validator{}
	v.currency(r)
	v.amount(r, lim)
	v.text("internalReference", r.InternalReference, MaxReferenceLength)
	v.paymentReference(r)
	v.payer(r.Payer)
	v.device(r.Device)
	v.system(r, ch, banks)
	v.beneficiary(r)
	v.communication(r.Communication)
	v.checkout(r.Checkout)
	v.displayInfo(r.DisplayInfo)
	return v.Err()
}

// validator wraps errs.Validation with the checks shared by several fields.
type validator struct{ errs.Validation }

func (v *validator) required(path, s string) bool {
	if strings.TrimSpace(s) == "" {
		v.Add(errs.ValueRequired, path, "%s is required.", path)
		return false
	}
	return true
}

// text checks a free-text field: at most max characters, no control
// characters.
func (v *validator) text(path, s string, max int) {
	if n := utf8.RuneCountInString(s); n > max {
		v.Add(errs.TooLong, path, "%s must be at most %d characters long, got %d.", path, max, n)
		return
	}
	if strings.IndexFunc(s, unicode.IsControl) >= 0 {
		v.Add(errs.InvalidFormat, path, "%s must not contain control characters.", path)
	}
}

func (v *validator) currency(r *CreateRequest) {
	if !v.required("currency", r.Currency) {
		return
	}
	if _, ok := iso.CurrencyOf(r.Currency); !ok {
		v.Add(errs.InvalidValue, "currency", "currency %q is not an ISO 4217 currency code (e.g. EUR, GBP).", r.Currency)
		return
	}
	if s, ok := SystemOf(r.PaymentSystem); ok && r.Currency != s.Currency {
		v.Add(errs.InvalidValue, "currency", "%s payments are made in %s, not %s.", r.PaymentSystem, s.Currency, r.Currency)
	}
}

func (v *validator) amount(r *CreateRequest, lim Limits) {
	a := r.Amount
	switch {
	case a == nil:
		v.Add(errs.ValueRequired, "amount", "amount is required, in minor units (cents, pence).")
	case *a <= 0:
		v.Add(errs.TooLow, "amount", "amount must be at least 1 (minor units), got %d.", *a)
	default:
		lim.checkMax(&v.Validation, "amount", *a, r.Currency)
	}
}

// paymentReference allows what both schemes carry: letters, digits, space
// and / - ? : ( ) . , ' +; at most the system's MaxPaymentReference
// characters (140 for SEPA, 18 for Faster Payments).
func (v *validator) paymentReference(r *CreateRequest) {
	const path = "paymentReference"
	max := rulesOf(r.PaymentSystem).MaxPaymentReference
	if n := utf8.RuneCountInString(r.PaymentReference); n > max {
		v.Add(errs.TooLong, path, "paymentReference must be at most %d characters long for %s, got %d.", max, r.PaymentSystem, n)
		return
	}
	for _, c := range r.PaymentReference {
		if !(c < utf8.RuneSelf && (c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.ContainsRune(" /-?:().,'+", c))) {
			v.Add(errs.InvalidFormat, path, "paymentReference may hold only letters A-Z, digits, spaces and / - ? : ( ) . , ' +; found %q.", c)
			return
		}
	}
}

func (v *validator) payer(p *Payer) {
	if p == nil {
		return
	}
	v.text("payer.reference", p.Reference, MaxReferenceLength)
	v.text("payer.firstName", p.FirstName, MaxNameLength)
	v.text("payer.lastName", p.LastName, MaxNameLength)
	v.text("payer.organisationName", p.OrganisationName, MaxNameLength)
	if p.Email != "" {
		v.email("payer.email", p.Email)
	}
	if p.AccountIdentifiers != nil && p.AccountIdentifiers.IBAN != "" {
		p.AccountIdentifiers.IBAN = v.iban("payer.accountIdentifiers.iban", p.AccountIdentifiers.IBAN)
	}
}

func (v *validator) email(path, s string) {
	if n := utf8.RuneCountInString(s); n > MaxEmailLength {
		v.Add(errs.TooLong, path, "%s must be at most %d characters long, got %d.", path, MaxEmailLength, n)
		return
	}
	local, domain, ok := strings.Cut(s, "@")
	if !ok || local == "" || strings.Contains(domain, "@") || !strings.Contains(domain, ".") ||
		strings.HasPrefix(domain, ".") || strings.HasSuffix(domain, ".") || strings.ContainsFunc(s, unicode.IsSpace) {
		v.Add(errs.InvalidFormat, path, "%s must be an e-mail address such as name@example.com.", path)
	}
}

func (v *validator) device(d *Device) {
	if d == nil {
		return
	}
	if d.IP != "" && net.ParseIP(d.IP) == nil {
		v.Add(errs.InvalidFormat, "device.ip", "device.ip must be an IPv4 or IPv6 address, got %q.", d.IP)
	}
	v.text("device.userAgent", d.UserAgent, MaxUserAgentLength)
	v.text("device.fingerprint", d.Fingerprint, MaxFingerprintLength)
}

// system checks paymentSystem and its details object: the object of the
// system is required, those of the other systems are not allowed.
func (v *validator) system(r *CreateRequest, ch Channel, banks *bank.Registry) {
	sys, ok := SystemOf(r.PaymentSystem)
	switch {
	case r.PaymentSystem == "":
		v.Add(errs.ValueRequired, "paymentSystem", "paymentSystem is required: %s.", systemNames())
		return
	case !ok:
		v.Add(errs.InvalidValue, "paymentSystem", "paymentSystem %q is not supported: use %s.", r.PaymentSystem, systemNames())
		return
	}
	all := registered()
	for _, s := range all {
		if d := s.Field.get(r); d != nil {
			d.setInstitution(strings.ToLower(d.scheme().InstitutionID))
		}
	}
	for _, s := range all {
		if s.ID != sys.ID && s.Field.get(r) != nil {
			v.Add(errs.FieldNotAllowed, s.Object, "%s is not allowed when paymentSystem is %s.", s.Object, r.PaymentSystem)
		}
	}
	own, d := sys.Object, sys.Field.get(r)
	if d == nil {
		v.Add(errs.ValueRequired, own, "%s is required when paymentSystem is %s.", own, r.PaymentSystem)
		return
	}
	s := d.scheme()
	if s.Type != "" && !validType(s.Type) {
		v.Add(errs.InvalidValue, own+".type", "%s.type %q is not one of BILL, GOODS, PERSON_TO_PERSON, SERVICES, OTHER.", own, s.Type)
	}
	v.institution(own+".institutionId", s.InstitutionID, r.PaymentSystem, ch, banks)
	d.check(v, own)
}

func validType(t Type) bool {
	for _, k := range Types {
		if t == k {
			return true
		}
	}
	return false
}

// institution checks the payer's bank: required on the api channel, a
// uuid, and a bank of the registry that supports the payment system.
func (v *validator) institution(path, id string, sys bank.PaymentSystem, ch Channel, banks *bank.Registry) {
	if id == "" {
		if ch == ChannelAPI {
			v.Add(errs.ValueRequired, path, "%s is required on the api initiation channel: pick a bank from GET /banks.", path)
		}
		return
	}
	if _, err := uuid.Parse(id); err != nil || len(id) != 36 {
		v.Add(errs.InvalidFormat, path, "%s must be a uuid, got %q.", path, id)
		return
	}
	b, ok := banks.Get(id)
	if !ok || !b.Supports(sys) {
		v.Add(errs.InvalidValue, path, "%s %s is not a bank of %s; see GET /banks?paymentSystem=%s.", path, id, sys, sys)
	}
}

// iban checks an IBAN and returns it normalised.
func (v *validator) iban(path, s string) string {
	n := iso.NormalizeIBAN(s)
	switch iso.CheckIBAN(n) {
	case iso.IBANTooLong:
		v.Add(errs.TooLong, path, "%s must be at most %d characters long, got %d.", path, iso.IBANMaxLength, len(n))
	case iso.IBANTooShort:
		v.Add(errs.TooShort, path, "%s must be at least %d characters long, got %d.", path, iso.IBANMinLength, len(n))
	case iso.IBANBadFormat:
		v.Add(errs.InvalidFormat, path, "%s must be an IBAN: a country code, two check digits, then letters and digits.", path)
	case iso.IBANBadLength:
		v.Add(errs.InvalidFormat, path, "%s does not have the length of an IBAN of %s.", path, n[:2])
	case iso.IBANBadChecksum:
		v.Add(errs.ChecksumFailed, path, "%s fails the IBAN mod-97 checksum; check for a typing error.", path)
	}
	return n
}

func (v *validator) beneficiary(r *CreateRequest) {
	b := r.Beneficiary
	if b == nil {
		v.Add(errs.ValueRequired, "beneficiary", "beneficiary is required: the name and account that receive the money.")
		return
	}
	if v.required("beneficiary.name", b.Name) {
		v.text("beneficiary.name", b.Name, MaxNameLength)
	}
	const base = "beneficiary.accountIdentifiers"
	ids := b.AccountIdentifiers
	if ids == nil {
		v.Add(errs.ValueRequired, base, "%s is required: %s.", base, accountNames())
		return
	}
	sortCode := rulesOf(r.PaymentSystem).Account == AccountSortCode
	if ids.IBAN != "" {
		ids.IBAN = v.iban(base+".iban", ids.IBAN)
	} else if !sortCode {
		v.Add(errs.ValueRequired, base+".iban", "%s.iban is required for %s.", base, r.PaymentSystem)
	}
	if ids.SwiftBic != "" {
		ids.SwiftBic = strings.ToUpper(ids.SwiftBic)
		if !iso.IsBIC(ids.SwiftBic) {
			v.Add(errs.InvalidFormat, base+".swiftBic", "%s.swiftBic must be a BIC of 8 or 11 characters, such as DEUTDEFF.", base)
		}
	}
	ids.SortCode = strings.NewReplacer("-", "", " ", "").Replace(ids.SortCode)
	v.digits(base+".sortCode", ids.SortCode, 6, sortCode, r.PaymentSystem)
	ids.AccountNumber = strings.ReplaceAll(ids.AccountNumber, " ", "")
	v.digits(base+".accountNumber", ids.AccountNumber, 8, sortCode, r.PaymentSystem)
}

// digits checks a UK sort code (6) or account number (8), required by
// payment system sys.
func (v *validator) digits(path, s string, n int, required bool, sys bank.PaymentSystem) {
	if s == "" {
		if required {
			v.Add(errs.ValueRequired, path, "%s is required for %s (%d digits).", path, sys, n)
		}
		return
	}
	if len(s) != n || strings.IndexFunc(s, func(r rune) bool { return r < '0' || r > '9' }) >= 0 {
		v.Add(errs.InvalidFormat, path, "%s must be exactly %d digits.", path, n)
	}
}

func (v *validator) communication(c *Communication) {
	if c == nil {
		return
	}
	if c.Notifications != nil {
		v.url("communication.notifications.url", c.Notifications.URL, true)
	}
	if c.Return == nil {
		return
	}
	v.text("communication.return.queryString", c.Return.QueryString, MaxQueryStringLength)
	if u := c.Return.URLs; u != nil {
		for _, e := range []struct {
			name string
			u    *URL
		}{{"unified", u.Unified}, {"success", u.Success}, {"failure", u.Failure}, {"pending", u.Pending}, {"cancel", u.Cancel}} {
			if e.u != nil {
				v.url("communication.return.urls."+e.name+".url", e.u.URL, true)
			}
		}
	}
}

// url checks an absolute http(s) address.
func (v *validator) url(path, s string, required bool) {
	if s == "" {
		if required {
			v.Add(errs.ValueRequired, path, "%s is required.", path)
		}
		return
	}
	if len(s) > MaxURLLength {
		v.Add(errs.TooLong, path, "%s must be at most %d characters long.", path, MaxURLLength)
		return
	}
	u, err := url.Parse(s)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.User != nil ||
		strings.ContainsFunc(s, func(r rune) bool { return unicode.IsSpace(r) || unicode.IsControl(r) }) {
		v.Add(errs.InvalidFormat, path, "%s must be an absolute http or https URL without credentials.", path)
	}
}

func (v *validator) checkout(c *Checkout) {
	if c == nil || c.Hosted == nil || c.Hosted.Countries == nil || c.Hosted.Countries.Available == nil {
		return
	}
	const path = "checkout.hosted.countries.available"
	list := c.Hosted.Countries.Available
	if len(list) == 0 {
		v.Add(errs.TooFew, path, "%s must name at least one country, or be left out to offer every country.", path)
	}
	seen := map[string]bool{}
	for i, cc := range list {
		p := fmt.Sprintf("%s[%d]", path, i)
		switch {
		case !iso.IsCountry(cc):
			v.Add(errs.InvalidValue, p, "%s %q is not an ISO 3166-1 alpha-2 country code (e.g. DE, GB).", p, cc)
		case seen[cc]:
			v.Add(errs.NotUnique, p, "%s %q is listed twice.", p, cc)
		}
		seen[cc] = true
	}
}

func (v *validator) displayInfo(items []DisplayInfo) {
	if len(items) > MaxDisplayInfoItems {
		v.Add(errs.TooMany, "displayInfo", "displayInfo may hold at most %d items, got %d.", MaxDisplayInfoItems, len(items))
		return
	}
	for i, it := range items {
		p := fmt.Sprintf("displayInfo[%d]", i)
		if v.required(p+".key", it.Key) {
			v.text(p+".key", it.Key, MaxDisplayInfoKeyLength)
		}
		if v.required(p+".value", it.Value) {
			v.text(p+".value", it.Value, MaxDisplayInfoValueLength)
		}
	}
}
