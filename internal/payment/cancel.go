package payment

import (
	"context"

	"github.com/bankrail/bankrail/internal/errs"
	"github.com/bankrail/bankrail/internal/identity"
)

// CancelledStatus is the status a payment cancelled by its merchant ends
// in: ABANDONED_BY_USER, the one status the table reaches from every
// status before the payer's authorisation (NEW_PAYMENT, BANK_REDIRECT).
// The payment is abandoned now rather than after AbandonAfter, with the
// same FAILED gateway notification (docs/decisions.md, "A real client at
// the legacy base").
const CancelledStatus = StatusAbandonedByUser

// Cancel cancels, for its merchant, a payment of viewerCustomerID (or of a
// customer below it) that the payer has not authorised yet: it moves to
// CancelledStatus with its notification, in one unit of work. Cancelling a
// payment already in CancelledStatus changes nothing and answers it again.
// A payment past that point is RESOURCE_NOT_MODIFIABLE with the reason;
// another customer's is RESOURCE_NOT_FOUND.
func (s *Service) Cancel(ctx context.Context, viewerCustomerID, id string) (Payment, error) {
	if _, err := identity.Authorize(ctx, identity.PaymentCancel); err != nil {
		return Payment{}, err
	}
	id, err := paymentID(id)
	if err != nil {
		return Payment{}, err
	}
	p, err := s.payments.Get(ctx, viewerCustomerID, id)
	if err != nil {
		return Payment{}, err
	}
	if p, err = s.settle(ctx, p); err != nil {
		return Payment{}, err
	}
	if p.Status == CancelledStatus {
		return p, nil
	}
	if err := cancellable(p.Status); err != nil {
		return Payment{}, err
	}
	p, err = s.apply(ctx, p, Event{Outcome: Outcome{CancelledStatus}})
	if errs.Is(err, errs.Conflict) {
		// Another move won (the payer authorised meanwhile): say why from
		// the payment as it is now.
		if now, gerr := s.payments.Get(ctx, viewerCustomerID, id); gerr == nil {
			if cerr := cancellable(now.Status); cerr != nil {
				return Payment{}, cerr
			}
		}
	}
	return p, err
}

// cancellable is nil for a status the merchant may cancel, else the 409
// that says why not.
func cancellable(st Status) error {
	switch {
	case CanMove(st, CancelledStatus):
		return nil
	case st.Initiating():
		return errs.E(errs.NotModifiable, "The payer has already authorised this payment (status %s): it can no longer be cancelled.", st)
	default:
		return errs.E(errs.NotModifiable, "This payment has already ended (status %s): it can no longer be cancelled.", st)
	}
}
