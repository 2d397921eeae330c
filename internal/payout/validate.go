package payout

import (
	"strings"

	"github.com/bankrail/bankrail/internal/errs"
	"github.com/bankrail/bankrail/internal/ids"
	"github.com/bankrail/bankrail/internal/iso"
)

// Field bounds of POST /payouts (as POST /payments).
const (
	MaxNameLength      = 140
	MaxReferenceLength = 140
)

// Input is one POST /payouts.
type Input struct {
	ViewerCustomerID  string
	ClientID          string // the caller's application: it is notified
	IdempotencyKey    string
	AccountID         string
	Amount            int64
	Currency          string
	PaymentReference  string
	InternalReference string
	Type              Type
	Beneficiary       Beneficiary
	Scenario          Scenario
}

// validate checks every field at once and normalises the input.
func (in *Input) validate() error {
	var v errs.Validation
	in.AccountID = strings.ToLower(strings.TrimSpace(in.AccountID))
	if in.AccountID == "" {
		v.Add(errs.ValueRequired, "accountId", "accountId is required: the Connect account the money leaves.")
	} else if !ids.IsUUID(in.AccountID) {
		v.Add(errs.InvalidFormat, "accountId", "accountId must be a uuid.")
	}
	if in.Amount <= 0 {
		v.Add(errs.TooLow, "amount", "amount must be a positive number of minor units.")
	}
	if _, ok := iso.CurrencyOf(in.Currency); !ok {
		v.Add(errs.InvalidValue, "currency", "currency %q is not an ISO 4217 currency code.", in.Currency)
	}
	text(&v, "paymentReference", in.PaymentReference, MaxReferenceLength, true)
	text(&v, "internalReference", in.InternalReference, MaxReferenceLength, false)
	switch in.Type {
	case "":
		in.Type = TypePayout
	case TypePayout, TypeSettlement:
	default:
		v.Add(errs.InvalidValue, "type", "type must be PAYOUT or SETTLEMENT.")
	}
	b := &in.Beneficiary
	text(&v, "beneficiary.name", b.Name, MaxNameLength, true)
	const ids = "beneficiary.accountIdentifiers"
	b.SortCode = strings.NewReplacer("-", "", " ", "").Replace(b.SortCode)
	b.AccountNumber = strings.ReplaceAll(b.AccountNumber, " ", "")
	switch {
	case b.IBAN != "":
		b.IBAN = iso.NormalizeIBAN(b.IBAN)
		switch p := iso.CheckIBAN(b.IBAN); {
		case p == iso.IBANTooLong:
			v.Add(errs.TooLong, ids+".iban", "%s.iban must be at most %d characters long.", ids, iso.IBANMaxLength)
		case p == iso.IBANBadChecksum:
			v.Add(errs.ChecksumFailed, ids+".iban", "%s.iban fails its mod-97 checksum.", ids)
		case p != iso.IBANOK:
			v.Add(errs.InvalidFormat, ids+".iban", "%s.iban is not an IBAN.", ids)
		}
		if b.SortCode != "" || b.AccountNumber != "" {
			v.Add(errs.InvalidValue, ids, "%s takes either iban or sortCode and accountNumber, not both.", ids)
		}
	case b.SortCode == "" && b.AccountNumber == "":
		v.Add(errs.ValueRequired, ids+".iban", "%s.iban (or sortCode and accountNumber) is required.", ids)
	default:
		digits(&v, ids+".sortCode", b.SortCode, 6)
		digits(&v, ids+".accountNumber", b.AccountNumber, 8)
	}
	return v.Err()
}

// text checks a required or optional string field's length.
func text(v *errs.Validation, path, s string, max int, required bool) {
	switch {
	case strings.TrimSpace(s) == "":
		if required {
			v.Add(errs.ValueRequired, path, "%s is required.", path)
		}
	case len([]rune(s)) > max:
		v.Add(errs.TooLong, path, "%s must be at most %d characters long.", path, max)
	}
}

// digits checks a UK sort code (6) or account number (8), both required.
func digits(v *errs.Validation, path, s string, n int) {
	switch {
	case s == "":
		v.Add(errs.ValueRequired, path, "%s is required with a UK account (%d digits).", path, n)
	case len(s) != n || strings.IndexFunc(s, func(r rune) bool { return r < '0' || r > '9' }) >= 0:
		v.Add(errs.InvalidFormat, path, "%s must be exactly %d digits.", path, n)
	}
}
