package payment

import "github.com/bankrail/bankrail/internal/bank"

// View is what the payment details record (GET /payments/{id}, GET
// /payments) reads of a payment's request beyond the fields every payment
// has as columns (currency, amount, references, payment system,
// institution): the store keeps it in columns of its own, so that a read
// decodes no request (issue 16, item 2).
type View struct {
	Type              Type // of the scheme object; "" when the request has none
	PayerEmail        string
	DeviceIP          string
	DeviceFingerprint string
	BeneficiaryName   string
	Account           AccountIdentifiers // the beneficiary's
}

// ViewOf returns the view of p and whether it is whole: the request
// rebuilt from it (ViewRequest) answers every question the details record
// asks as p's own request does. A payment system whose details object
// cannot be rebuilt is not (the store then keeps only the request, which
// a read decodes as before).
func ViewOf(p Payment) (View, bool) {
	r := &p.Request
	v := viewOfRequest(r)
	back := v.Request(r.Currency, p.Amount(), r.InternalReference, r.PaymentReference, r.PaymentSystem, r.Scheme().InstitutionID)
	return v, back.Scheme() == r.Scheme() && viewOfRequest(&back) == v
}

// viewOfRequest reads the view's fields from r.
func viewOfRequest(r *CreateRequest) View {
	v := View{Type: r.Scheme().Type, Account: r.Identifiers()}
	if r.Payer != nil {
		v.PayerEmail = r.Payer.Email
	}
	if r.Device != nil {
		v.DeviceIP, v.DeviceFingerprint = r.Device.IP, r.Device.Fingerprint
	}
	if r.Beneficiary != nil {
		v.BeneficiaryName = r.Beneficiary.Name
	}
	return v
}

// typed is a details object whose type can be set (every registered
// system's).
type typed interface{ setType(Type) }

func (d *OpenBankingEU) setType(t Type) { d.Type = t }
func (d *OpenBankingUK) setType(t Type) { d.Type = t }

// Request rebuilds, from the columns of a payment and its view, the part of
// its request the details record reads: nothing else is set (no
// communication, checkout, display info, payer name, ...). It is for
// rendering a read, never for a change.
func (v View) Request(currency string, amount int64, internalRef, paymentRef string, system bank.PaymentSystem, institution string) CreateRequest {
	r := CreateRequest{Currency: currency, Amount: &amount, InternalReference: internalRef, PaymentReference: paymentRef,
		PaymentSystem: system}
	if v.PayerEmail != "" {
		r.Payer = &Payer{Email: v.PayerEmail}
	}
	if v.DeviceIP != "" || v.DeviceFingerprint != "" {
		r.Device = &Device{IP: v.DeviceIP, Fingerprint: v.DeviceFingerprint}
	}
	if v.BeneficiaryName != "" || v.Account != (AccountIdentifiers{}) {
		acct := v.Account
		r.Beneficiary = &Beneficiary{Name: v.BeneficiaryName, AccountIdentifiers: &acct}
	}
	if v.Type != "" || institution != "" {
		if s, ok := SystemOf(system); ok {
			d := s.Field.own(&r)
			d.setInstitution(institution)
			if t, ok := d.(typed); ok {
				t.setType(v.Type)
			}
		}
	}
	return r
}
