package httpapi

import (
	"net/http"

	"github.com/bankrail/bankrail/api"
	"github.com/bankrail/bankrail/internal/payment"
)

// reasonSubmittedToBank is paymentInitiationFlow.details.reason of a new
// payment against a mandate: no payer step, it went straight to the bank.
const reasonSubmittedToBank = "SUBMITTED_TO_BANK"

// createMandatePayment serves POST /payments with mandateId: a payment
// against a mandate, 201 with the Global payment record (NEW_PAYMENT,
// mandateId set, no redirect) and Location, like any creation.
func (s *Server) createMandatePayment(w http.ResponseWriter, r *http.Request, in payment.CreateInput) error {
	resp, err := s.Payments.CreateForMandate(r.Context(), in, render(s.mandateRecordOf))
	if err != nil {
		return err
	}
	writeCreated(w, resp)
	return nil
}

// mandateRecordOf renders a new payment against a mandate: the Global
// record with its mandateId, and a paymentInitiationFlow without redirect.
func (s *Server) mandateRecordOf(p payment.Payment) api.Payment {
	rec := s.recordOf(p)
	id := p.MandateID()
	rec.MandateID = &id
	rec.PaymentInitiationFlow.Details.Redirect = nil
	if p.Status == payment.StatusNew {
		rec.PaymentInitiationFlow.Details.Reason = reasonSubmittedToBank
	}
	return rec
}
