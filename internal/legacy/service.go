package legacy

import (
	"context"

	"github.com/bankrail/bankrail/internal/identity"
	"github.com/bankrail/bankrail/internal/payment"
)

// Service creates payments from legacy and embedded checkout requests
// through the payment service: the same validation, idempotency, records,
// notifications and checkout as a Global payment.
type Service struct {
	payments *payment.Service
}

// NewService returns a legacy service over the payments core.
func NewService(payments *payment.Service) *Service { return &Service{payments: payments} }

// Create maps src (Map) and creates the payment on the hosted channel with
// the rest of in (creator, idempotency key, operation, scenario). Failures
// are reported with src's field names: the mapping's own and the Global
// validator's together.
func (s *Service) Create(ctx context.Context, in payment.CreateInput, src Source, render payment.Renderer) (payment.Response, error) {
	if _, err := identity.Authorize(ctx, identity.PaymentCreate); err != nil {
		return payment.Response{}, err
	}
	req, m, err := Map(src)
	if err != nil {
		return payment.Response{}, err
	}
	if m.Failed() {
		return payment.Response{}, m.Translate(s.payments.Check(req, payment.ChannelHosted))
	}
	in.Channel, in.Request, in.Operation = payment.ChannelHosted, req, in.Operation+src.scope()
	resp, err := s.payments.Create(ctx, in, render)
	return resp, m.Translate(err)
}

// CheckoutURL is the legacy checkoutUrl of p: the hosted checkout with a
// link token that expires after payment.LinkTTL.
func (s *Service) CheckoutURL(p payment.Payment) string {
	return s.payments.CheckoutURL(p, s.payments.NewLink(p, payment.LinkCheckout, ""))
}

// DropinToken is the token of an embedded checkout of p: a link token
// bound to the merchant's origin when src names one.
func (s *Service) DropinToken(p payment.Payment, src *Dropin) string {
	origin, _ := payment.CanonicalOrigin(src.Origin)
	return payment.LinkToken(p, s.payments.NewLink(p, payment.LinkEmbedded, origin))
}
