package mandate

import (
	"strings"
	"time"

	"github.com/bankrail/bankrail/internal/errs"
	"github.com/bankrail/bankrail/internal/money"
)

// ValidityInput is a validity as the client wrote it (nil: absent).
type ValidityInput struct {
	From *string
	To   *string
}

// PayToInput is payTo as the client wrote it: Given when the object was
// sent, PaymentAmount nil when limits.payment.amount was not.
type PayToInput struct {
	PaymentAmount *int64
}

// AmendInput is the body of POST /mandates/{id}/amendments.
type AmendInput struct {
	Validity *ValidityInput
	PayTo    *PayToInput
}

// Limits of amounts and names.
const (
	MaxNameLength = 140
)

// CheckAmendment applies the contract's four rules to a request to amend m
// at now and returns the changes. In order: a mandate not ACTIVE or
// SUSPENDED is 409 RESOURCE_NOT_MODIFIABLE; then every failing field is
// listed in one 422: neither validity nor payTo is MISSING_FIELD on
// validity, payTo on a mandate other than PayTo is FIELD_NOT_ALLOWED on
// payTo, validity.from on a used mandate is FIELD_NOT_ALLOWED on
// validity.from; timestamps must be written YYYY-MM-DD hh:mm:ss and the
// resulting validity must end after it starts and after now.
func CheckAmendment(m Mandate, in AmendInput, maxMajor int64, now time.Time) (Changes, error) {
	if !m.Status.Amendable() {
		return Changes{}, errs.E(errs.NotModifiable, "A %s mandate cannot be amended: only ACTIVE or SUSPENDED mandates can.", m.Status)
	}
	var v errs.Validation
	var c Changes
	if in.Validity == nil && in.PayTo == nil {
		v.Add(errs.MissingField, "validity", "Give validity, payTo or both: an amendment must change something.")
	}
	if in.PayTo != nil {
		switch {
		case m.Type != PayTo:
			v.Add(errs.FieldNotAllowed, "payTo", "payTo can be amended only on a PAYTO mandate; this one is %s.", m.Type)
		default:
			c.PaymentLimit = checkLimit(&v, "payTo.limits.payment.amount", in.PayTo.PaymentAmount, money.Bound(maxMajor, m.Currency))
		}
	}
	if in.Validity != nil {
		vi := *in.Validity
		if vi.From == nil && vi.To == nil {
			v.Add(errs.MissingField, "validity", "validity must hold from, to or both.")
		}
		if vi.From != nil {
			if m.Used() {
				v.Add(errs.FieldNotAllowed, "validity.from", "validity.from cannot be amended: the mandate has been used for payments.")
			} else if t, ok := parseTimestamp(&v, "validity.from", *vi.From); ok {
				c.ValidityFrom = &t
			}
		}
		if vi.To != nil {
			if t, ok := parseTimestamp(&v, "validity.to", *vi.To); ok {
				c.ValidityTo = &t
			}
		}
		if c.HasValidity() && !v.HasPath("validity.to") {
			// The end is the one asked for, else the mandate's own (a stored
			// mandate's zero To is "no end": no end given can be zero).
			end := c.ValidityTo
			if end == nil && !m.Validity.To.IsZero() {
				end = &m.Validity.To
			}
			checkEnd(&v, c.ApplyTo(m, now).Validity.From, end, now)
		}
	}
	return c, v.Err()
}

// checkEnd refuses a validity that ends before it starts or in the past
// (INVALID_DATE on validity.to). to is nil when the validity has no end:
// absent is nil, never a time that happens to be zero (0001-01-01 00:00:00
// given is an end before every start, not "no end").
func checkEnd(v *errs.Validation, from time.Time, to *time.Time, now time.Time) {
	switch {
	case to == nil:
	case !to.After(from):
		v.Add(errs.InvalidDate, "validity.to", "validity.to must be after validity.from (%s).", FormatTimestamp(from))
	case !to.After(now):
		v.Add(errs.InvalidDate, "validity.to", "validity.to must be in the future (now is %s).", FormatTimestamp(now))
	}
}

// checkLimit checks a payment limit at path: given, at least 1 and at most
// maxAmount (minor units).
func checkLimit(v *errs.Validation, path string, amount *int64, maxAmount int64) *int64 {
	switch {
	case amount == nil:
		v.Add(errs.ValueRequired, path, "%s is required: the most one payment may take, in minor units.", path)
	case *amount < 1:
		v.Add(errs.TooLow, path, "%s must be at least 1.", path)
	case *amount > maxAmount:
		v.Add(errs.TooHigh, path, "%s must be at most %d.", path, maxAmount)
	default:
		return amount
	}
	return nil
}

// CreateInput is the body of POST /mandates (sandbox).
type CreateInput struct {
	Type     string
	Currency *string
	Payer    PayerInput
	Validity *ValidityInput
	PayTo    *PayToInput
}

// PayerInput is the payer as the client wrote it.
type PayerInput struct {
	Name                               string
	IBAN, SortCode, AccountNumber, BSB string
	HasAccountIdentifiers              bool
}

// CheckCreate validates a new mandate's request at now and returns the
// mandate it describes (without ids, token or creator), listing every
// failing field.
func CheckCreate(in CreateInput, maxMajor int64, now time.Time) (Mandate, error) {
	var v errs.Validation
	m := Mandate{Status: Requested, Type: Type(strings.TrimSpace(in.Type)), Validity: Validity{From: now}, CreatedAt: now, UpdatedAt: now}
	switch m.Type {
	case PayTo, VRP:
		m.Currency = m.Type.Currency()
	case "":
		v.Add(errs.ValueRequired, "type", "type is required: PAYTO or VRP.")
	default:
		v.Add(errs.InvalidValue, "type", "type %q is not one of PAYTO, VRP.", in.Type)
	}
	if in.Currency != nil && m.Currency != "" && *in.Currency != m.Currency {
		v.Add(errs.InvalidValue, "currency", "A %s mandate is in %s, not %q.", m.Type, m.Currency, *in.Currency)
	}
	m.Payer = checkPayer(&v, m.Type, in.Payer)
	if in.PayTo != nil && m.Type == VRP {
		v.Add(errs.FieldNotAllowed, "payTo", "payTo is allowed only on a PAYTO mandate.")
	}
	if m.Type == PayTo {
		var amount *int64
		if in.PayTo != nil {
			amount = in.PayTo.PaymentAmount
		}
		if l := checkLimit(&v, "payTo.limits.payment.amount", amount, money.Bound(maxMajor, m.Currency)); l != nil {
			m.PaymentLimit = *l
		}
	}
	if in.Validity != nil {
		if in.Validity.From != nil {
			if t, ok := parseTimestamp(&v, "validity.from", *in.Validity.From); ok {
				m.Validity.From = t
			}
		}
		var end *time.Time
		if in.Validity.To != nil {
			if t, ok := parseTimestamp(&v, "validity.to", *in.Validity.To); ok {
				m.Validity.To, end = t, &t
			}
		}
		if !v.HasPath("validity.from") && !v.HasPath("validity.to") {
			checkEnd(&v, m.Validity.From, end, now)
		}
	}
	return m, v.Err()
}

// checkPayer validates the payer: a name, and the account identifiers of
// the mandate's scheme (VRP: a GB IBAN, or sort code and account number;
// PayTo: BSB and account number).
func checkPayer(v *errs.Validation, t Type, in PayerInput) Payer {
	p := Payer{Name: strings.TrimSpace(in.Name)}
	switch n := len([]rune(p.Name)); {
	case n == 0:
		v.Add(errs.ValueRequired, "payer.name", "payer.name is required.")
	case n > MaxNameLength:
		v.Add(errs.TooLong, "payer.name", "payer.name must be at most %d characters long.", MaxNameLength)
	}
	const base = "payer.accountIdentifiers"
	ai := AccountIdentifiers{IBAN: in.IBAN, SortCode: in.SortCode, AccountNumber: in.AccountNumber, BSB: in.BSB}
	switch t {
	case VRP:
		switch {
		case ai.IBAN != "":
			checkIBAN(v, base+".iban", &ai.IBAN)
		case ai.SortCode != "" || ai.AccountNumber != "":
			digits(v, base+".sortCode", ai.SortCode, 6, 6)
			digits(v, base+".accountNumber", ai.AccountNumber, 8, 8)
		default:
			v.Add(errs.ValueRequired, base, "%s needs iban, or sortCode and accountNumber, for a VRP mandate.", base)
		}
		if ai.BSB != "" {
			v.Add(errs.FieldNotAllowed, base+".bsb", "bsb is for PAYTO mandates.")
		}
	case PayTo:
		if ai.BSB == "" && ai.AccountNumber == "" {
			v.Add(errs.ValueRequired, base, "%s needs bsb and accountNumber for a PAYTO mandate.", base)
		} else {
			digits(v, base+".bsb", ai.BSB, 6, 6)
			digits(v, base+".accountNumber", ai.AccountNumber, 6, 9)
		}
		if ai.IBAN != "" || ai.SortCode != "" {
			v.Add(errs.FieldNotAllowed, base, "iban and sortCode are for VRP mandates.")
		}
	}
	p.AccountIdentifiers = ai
	return p
}

// digits checks that s is between lo and hi digits long.
func digits(v *errs.Validation, path, s string, lo, hi int) {
	switch {
	case s == "":
		v.Add(errs.ValueRequired, path, "%s is required.", path)
	case strings.Trim(s, "0123456789") != "":
		v.Add(errs.InvalidFormat, path, "%s must hold digits only.", path)
	case len(s) < lo:
		v.Add(errs.TooShort, path, "%s must be at least %d digits long.", path, lo)
	case len(s) > hi:
		v.Add(errs.TooLong, path, "%s must be at most %d digits long.", path, hi)
	}
}
