package httpapi

import (
	"net/http"

	"github.com/bankrail/bankrail/api"
	"github.com/bankrail/bankrail/internal/payment"
)

// The legacy API's reads and changes of a payment, at the legacy base, so
// that a client of that API (a payment platform's connector) makes every
// call at one base URL: read, cancel (here) and refund (requestRefund on
// a legacy route). See docs/legacy.md, "Using bankrail with a payment
// platform".

// getLegacyPayment serves GET /legacy/payments/{id}: the payment as the
// legacy API reads it.
func (s *Server) getLegacyPayment(w http.ResponseWriter, r *http.Request) error {
	p, err := s.Payments.Get(r.Context(), principal(r).CustomerID, r.PathValue("id"))
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, legacyPaymentView(p))
	return nil
}

// cancelLegacyPayment serves POST /legacy/payments/{id}/cancel: 200
// {paymentId, status} once the payment is cancelled (payment.Service.Cancel).
func (s *Server) cancelLegacyPayment(w http.ResponseWriter, r *http.Request) error {
	p, err := s.Payments.Cancel(r.Context(), principal(r).CustomerID, r.PathValue("id"))
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, api.LegacyCancelled{PaymentID: p.ID, Status: api.PaymentStatus(p.Status)})
	return nil
}

// legacyPaymentView is the legacy API's record of p.
func legacyPaymentView(p payment.Payment) api.LegacyPayment {
	return api.LegacyPayment{ID: p.ID, Status: api.PaymentStatus(p.Status), MerchantInternalReference: p.Request.InternalReference,
		Amount: p.Amount(), Currency: p.Request.Currency, UniqueReference: p.UniqueReference, CreatedAt: p.CreatedAt, UpdatedAt: p.UpdatedAt}
}
