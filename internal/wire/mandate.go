package wire

import (
	"github.com/bankrail/bankrail/api"
	"github.com/bankrail/bankrail/internal/mandate"
)

// MandateCreate converts the body of POST /mandates to the domain's input.
func MandateCreate(b api.MandateCreateRequest) mandate.CreateInput {
	ai := b.Payer.AccountIdentifiers
	return mandate.CreateInput{
		Type: b.Type, Currency: b.Currency,
		Payer: mandate.PayerInput{Name: b.Payer.Name, IBAN: Val(ai.IBAN), SortCode: Val(ai.SortCode),
			AccountNumber: Val(ai.AccountNumber), BSB: Val(ai.Bsb)},
		Validity: validityInput(b.Validity), PayTo: payToInput(b.PayTo),
	}
}

// Amendment converts the body of POST /mandates/{id}/amendments.
func Amendment(b api.AmendmentRequest) mandate.AmendInput {
	return mandate.AmendInput{Validity: validityInput(b.Validity), PayTo: payToInput(b.PayTo)}
}

// validityInput is an optional validity as the client wrote it.
func validityInput(v *api.MandateValidityChange) *mandate.ValidityInput {
	if v == nil {
		return nil
	}
	return &mandate.ValidityInput{From: v.From, To: v.To}
}

// payToInput is optional PayTo terms as the client wrote them.
func payToInput(p *api.MandatePayTo) *mandate.PayToInput {
	if p == nil {
		return nil
	}
	in := &mandate.PayToInput{}
	if p.Limits != nil && p.Limits.Payment != nil {
		in.PaymentAmount = p.Limits.Payment.Amount
	}
	return in
}

// PayTo is a payment limit as the wire's PayTo terms.
func PayTo(limit int64) *api.MandatePayTo {
	return &api.MandatePayTo{Limits: &api.MandatePayToLimits{Payment: &api.MandatePayToPaymentLimit{Amount: &limit}}}
}
