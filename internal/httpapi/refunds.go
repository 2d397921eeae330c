package httpapi

import (
	"net/http"
	"strings"

	"github.com/bankrail/bankrail/api"
	"github.com/bankrail/bankrail/internal/config"
	"github.com/bankrail/bankrail/internal/errs"
	"github.com/bankrail/bankrail/internal/refund"
)

// refundRejected is the sandbox scenario of a refund the payer's bank refuses.
const refundRejected = "REFUND_REJECTED"

// requestRefund serves POST /payments/{id}/request-refund: 201 with the
// PENDING refund and Location: /refunds/{id}; a replay under the same
// Idempotency-Key answers the stored body with Idempotent-Replayed: true.
func (s *Server) requestRefund(w http.ResponseWriter, r *http.Request) error {
	key, err := idempotencyKey(r)
	if err != nil {
		return err
	}
	reject := false
	switch v := strings.TrimSpace(r.Header.Get(ScenarioHeader)); {
	case v == "":
	case s.Mode != config.Sandbox:
		return errs.E(errs.InvalidHeader, "%s is only accepted in the sandbox; remove it in production.", ScenarioHeader)
	case strings.EqualFold(v, refundRejected):
		reject = true
	default:
		return errs.E(errs.InvalidHeader, "%s %q is not a refund scenario; use %s.", ScenarioHeader, v, refundRejected)
	}
	var body api.RefundRequest
	if err := s.decodeJSON(w, r, &body); err != nil {
		return err
	}
	resp, err := s.Refunds.Request(r.Context(), refund.Input{ViewerCustomerID: principal(r).CustomerID, PaymentID: r.PathValue("id"),
		IdempotencyKey: key, Amount: body.Amount, ExternalReference: body.ExternalReference, Reject: reject},
		func(f refund.Refund) ([]byte, error) { return encodeJSON(refundView(f)) })
	if err != nil {
		return err
	}
	if resp.Replayed {
		w.Header().Set("Idempotent-Replayed", "true")
	}
	w.Header().Set("Location", "/refunds/"+resp.ResourceID)
	writeJSONBytes(w, http.StatusCreated, resp.Body)
	return nil
}

// getRefund serves GET /refunds/{id}.
func (s *Server) getRefund(w http.ResponseWriter, r *http.Request) error {
	f, err := s.Refunds.Get(r.Context(), principal(r).CustomerID, r.PathValue("id"))
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, refundView(f))
	return nil
}

// listPaymentRefunds serves GET /payments/{id}/refunds.
func (s *Server) listPaymentRefunds(w http.ResponseWriter, r *http.Request) error {
	list, err := s.Refunds.OfPayment(r.Context(), principal(r).CustomerID, r.PathValue("id"))
	if err != nil {
		return err
	}
	out := make([]api.Refund, 0, len(list))
	for _, f := range list {
		out = append(out, refundView(f))
	}
	writeJSON(w, http.StatusOK, out)
	return nil
}

// refundView is the wire form of a refund.
func refundView(f refund.Refund) api.Refund {
	return api.Refund{ID: f.ID, PaymentID: f.PaymentID, AccountID: f.AccountID, Amount: f.Amount, Currency: f.Currency,
		ExternalReference: f.ExternalReference, Status: api.RefundStatus(f.Status), CreatedAt: f.CreatedAt, UpdatedAt: f.UpdatedAt}
}
