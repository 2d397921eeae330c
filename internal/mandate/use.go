package mandate

import (
	"context"

	"github.com/bankrail/bankrail/internal/clock"
	"github.com/bankrail/bankrail/internal/errs"
	"github.com/bankrail/bankrail/internal/ids"
)

// PaymentUse is a payment about to be taken against a mandate (POST
// /payments with mandateId): the fields the mandate's rules read.
type PaymentUse struct {
	MandateID     string
	Amount        int64
	Currency      string // "" when the request left it out: the mandate's
	PaymentSystem string // "" when the request left it out: the mandate's
}

// Use checks a payment against a mandate of viewerCustomerID and records
// its use, inside the caller's unit of work r (the payment's), with the
// mandate locked, so that a payment and an amendment of the same mandate
// run one after the other and never both win. It is 422 VALIDATION_FAILURE
// (every failing field): a mandate the viewer cannot see, not ACTIVE or
// outside its validity is INVALID_VALUE on mandateId; another currency or
// payment system is INVALID_VALUE on currency or paymentSystem; above a
// PayTo mandate's payment limit is TOO_HIGH on amount. While an amendment
// of validity.from awaits the payer on an unused mandate it is 409
// CONFLICT: the payment would make that amendment break the used-mandate
// rule. The first use sets usedAt and records EventUsed. It returns the mandate as used.
func (s *Service) Use(ctx context.Context, r Repos, viewerCustomerID string, u PaymentUse) (Mandate, error) {
	var v errs.Validation
	if !ids.IsUUID(u.MandateID) {
		v.Add(errs.InvalidFormat, "mandateId", "mandateId must be a uuid.")
		return Mandate{}, v.Err()
	}
	if _, err := r.Mandates().Get(ctx, viewerCustomerID, u.MandateID); errs.Is(err, errs.NotFound) {
		v.Add(errs.InvalidValue, "mandateId", "There is no mandate %s of yours.", u.MandateID)
		return Mandate{}, v.Err()
	} else if err != nil {
		return Mandate{}, err
	}
	m, err := r.Mandates().Lock(ctx, u.MandateID)
	if err != nil {
		return Mandate{}, err
	}
	now, err := clock.UnitTime(ctx, s.clock, m.CustomerID)
	if err != nil {
		return Mandate{}, err
	}
	switch {
	case m.Status != Active:
		v.Add(errs.InvalidValue, "mandateId", "The mandate is %s: payments are taken only against an ACTIVE mandate.", m.Status)
	case m.ExpiryDue(now) || !m.Validity.Covers(now):
		v.Add(errs.InvalidValue, "mandateId", "The mandate is valid from %s%s; now is %s.", FormatTimestamp(m.Validity.From), until(m.Validity), FormatTimestamp(now))
	}
	if u.Currency != "" && u.Currency != m.Currency {
		v.Add(errs.InvalidValue, "currency", "The mandate is in %s, not %s.", m.Currency, u.Currency)
	}
	if u.PaymentSystem != "" && u.PaymentSystem != m.Type.PaymentSystem() {
		v.Add(errs.InvalidValue, "paymentSystem", "A %s mandate's payments go by %s.", m.Type, m.Type.PaymentSystem())
	}
	if m.Type == PayTo && u.Amount > m.PaymentLimit {
		v.Add(errs.TooHigh, "amount", "amount must be at most the mandate's payment limit, %d.", m.PaymentLimit)
	}
	if err := v.Err(); err != nil {
		return Mandate{}, err
	}
	if m.Used() {
		return m, nil
	}
	open, err := r.Amendments().OpenOf(ctx, m.ID)
	switch {
	case err == nil && open.Changes.ValidityFrom != nil:
		return Mandate{}, errs.E(errs.Conflict, "The mandate's first payment must wait: amendment %s of validity.from awaits the payer's answer (recall it to pay now).", open.ID)
	case err != nil && !errs.Is(err, errs.NotFound):
		return Mandate{}, err
	}
	m.UsedAt, m.UpdatedAt = now, now
	if err := r.Mandates().Save(ctx, m, EventUsed); err != nil {
		return Mandate{}, err
	}
	m.Version++
	return m, nil
}

// until says when a validity ends, for messages.
func until(v Validity) string {
	if v.To.IsZero() {
		return ""
	}
	return " until " + FormatTimestamp(v.To)
}

// UseInTx runs Use in a unit of work of its own (for callers whose payment
// is written in another; tests).
func (s *Service) UseInTx(ctx context.Context, viewerCustomerID string, u PaymentUse) (Mandate, error) {
	var out Mandate
	err := s.inTx(ctx, func(r Repos) error {
		var err error
		out, err = s.Use(ctx, r, viewerCustomerID, u)
		return err
	})
	if err != nil {
		return Mandate{}, err
	}
	return out, nil
}
