package httpapi

import (
	"net/http"

	"github.com/bankrail/bankrail/api"
	"github.com/bankrail/bankrail/internal/payment"
)

// payin serves POST /payin (sandbox): incoming funds on a Connect account,
// matched to an expected payment or kept as a MANUAL_CREDIT. 202 with an
// empty body, also for a repeat of an externalPaymentId already taken.
func (s *Server) payin(w http.ResponseWriter, r *http.Request) error {
	var body api.SimulatedIncomingTransaction
	if err := s.decodeJSON(w, r, &body); err != nil {
		return err
	}
	in := payment.PayinInput{ViewerCustomerID: principal(r).CustomerID,
		ExternalPaymentID: body.ExternalPaymentID, PaymentReference: val(body.PaymentReference),
		Amount: body.Amount.Amount, Currency: body.Amount.Currency,
		BeneficiaryIBAN: body.Beneficiary.AccountIdentifiers.IBAN}
	if snd := body.Sender; snd != nil {
		in.SenderName = val(snd.Name)
		if ids := snd.AccountIdentifiers; ids != nil {
			in.SenderIBAN = val(ids.IBAN)
		}
	}
	if _, err := s.Payments.Payin(r.Context(), in); err != nil {
		return err
	}
	w.WriteHeader(http.StatusAccepted)
	return nil
}
