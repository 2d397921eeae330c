package httpapi

import (
	"github.com/bankrail/bankrail/api"
	"github.com/bankrail/bankrail/internal/bank"
	"github.com/bankrail/bankrail/internal/iso"
	"github.com/bankrail/bankrail/internal/payment"
)

// flowReason is the reason of paymentInitiationFlow for a status.
func flowReason(s payment.Status) string {
	if s == payment.StatusNew {
		return "AWAITING_USER_REDIRECT"
	}
	return string(s)
}

// recordOf renders the Global payment record.
func (s *Server) recordOf(p payment.Payment) api.Payment {
	req := p.Request
	rec := api.Payment{
		ID: p.ID, Currency: req.Currency, Amount: amountOf(p), PaymentReference: p.UniqueReference,
		InternalReference: opt(req.InternalReference), PaymentSystem: api.PaymentSystem(req.PaymentSystem),
		Payer: payerWire(req.Payer), Beneficiary: beneficiaryWire(req.Beneficiary), Device: deviceWire(req.Device),
		Status: api.PaymentStatus(p.Status), TransferType: api.TransferType(s.Payments.TransferType(p)),
		DisplayInfo: displayInfoWire(req.DisplayInfo), CreatedAt: p.CreatedAt, UpdatedAt: p.UpdatedAt,
	}
	provider := ""
	if b, ok := s.Payments.Bank(p); ok {
		provider = b.Name
	}
	if fill, ok := schemeRecords[p.System()]; ok {
		fill(&rec, p, provider)
	}
	if p.Sender != nil {
		rec.Sender = &api.PaymentSender{Name: p.Sender.Name, AccountIdentifiers: api.IBANIdentifier{IBAN: opt(p.Sender.IBAN)}}
	}
	redirect := s.Payments.RedirectOf(p)
	rec.PaymentInitiationFlow = api.PaymentInitiationFlow{Status: api.FlowStatus(p.Status.Flow()),
		Details: api.PaymentInitiationFlowDetails{Reason: flowReason(p.Status),
			Redirect: &api.PaymentRedirect{URL: redirect.URL, DirectURL: redirect.DirectURL}}}
	return rec
}

// schemeRecords fill the payment record's details object of each payment
// system (the record has one field a system); a payment without its
// system's object in the request has none in the record.
var schemeRecords = map[bank.PaymentSystem]func(rec *api.Payment, p payment.Payment, provider string){
	bank.OpenBankingEU: func(rec *api.Payment, p payment.Payment, provider string) {
		if eu := p.Request.OpenBankingEU; eu != nil {
			rec.OpenBankingEU = &api.PaymentOpenBankingEU{Type: api.PaymentType(p.Type()), InstitutionID: opt(p.Scheme().InstitutionID),
				Provider: opt(provider), ValidityPeriod: eu.ValidityPeriod,
				AccountIdentifiers: ibanWire(eu.AccountIdentifiers)}
		}
	},
	bank.OpenBankingUK: func(rec *api.Payment, p payment.Payment, provider string) {
		if p.Request.OpenBankingUK != nil {
			rec.OpenBankingUK = &api.PaymentOpenBankingUK{Type: api.PaymentType(p.Type()), InstitutionID: opt(p.Scheme().InstitutionID),
				Provider: opt(provider)}
		}
	},
}

func amountOf(p payment.Payment) int64 {
	if p.Request.Amount == nil {
		return 0
	}
	return *p.Request.Amount
}

// bankWire renders a bank as GET /banks lists it; its images are served
// by bankrail itself.
func (s *Server) bankWire(b bank.Bank) api.Bank {
	p := s.payerBankWire(b)
	var systems []api.PaymentSystem
	for _, sys := range b.Systems {
		systems = append(systems, api.PaymentSystem(sys))
	}
	return api.Bank{ID: p.ID, Name: p.Name, Country: p.Country, OfficialName: p.OfficialName,
		BranchName: p.BranchName, ShortBranchName: p.ShortBranchName, Active: p.Active, Logo: p.Logo, Icon: p.Icon,
		BIC: b.BIC, PaymentSystems: systems, SepaInstant: b.SEPAInstant}
}

// payerBankWire renders the payer's bank as the payment details record
// shows it: the contract's fields only.
func (s *Server) payerBankWire(b bank.Bank) api.PayerBank {
	images := s.Payments.PublicURL() + "/banks/" + b.ID
	return api.PayerBank{ID: b.ID, Name: b.Name, Country: countryOf(b.Country), OfficialName: b.OfficialName,
		BranchName: b.BranchName, ShortBranchName: b.ShortBranchName, Active: true,
		Logo: images + "/logo.svg", Icon: images + "/icon.svg"}
}

func countryOf(code string) api.Country {
	name, _ := iso.CountryName(code)
	return api.Country{ID: code, Name: name}
}

func currencyOf(code string) api.Currency {
	c, ok := iso.CurrencyOf(code)
	return api.Currency{ID: code, Name: c.Name, Decimal: int64(c.Decimals), Active: ok}
}

// detailsOf renders the payment details record.
func (s *Server) detailsOf(p payment.Payment) api.PaymentDetails {
	req := p.Request
	acc := payment.ReceivingAccountOf(p, s.Payments.Banks())
	cur := currencyOf(req.Currency)
	var country *api.Country
	if acc.Country != "" {
		c := countryOf(acc.Country)
		country = &c
	}
	d := api.PaymentDetails{
		ID: p.ID, Active: true, CreatedAt: p.CreatedAt, UpdatedAt: p.UpdatedAt, CustomerID: p.CustomerID,
		Currency: cur, Amount: amountOf(p), Type: api.PaymentType(p.Type()), PaymentSystem: api.PaymentSystem(req.PaymentSystem),
		InternalReference: req.InternalReference, PaymentReference: req.PaymentReference,
		Account: api.ReceivingAccount{ID: acc.AccountID, Active: true, CreatedAt: p.CreatedAt, Nickname: acc.Name,
			AccountNumber: acc.Identifiers.AccountNumber, IBAN: acc.Identifiers.IBAN, SwiftBIC: acc.Identifiers.SwiftBic,
			Currency: cur, Country: country},
		UniqueReference: p.UniqueReference, Status: api.PaymentStatus(p.Status), TransferType: api.TransferType(s.Payments.TransferType(p)),
		Beneficiary: api.PaymentDetailsBeneficiary{ID: acc.BeneficiaryID, CustomerID: p.CustomerID,
			AccountIdentifications: []api.AccountIdentification{}, Country: country},
		StatusUpdates: []api.StatusUpdate{},
	}
	refund := payment.RefundabilityOf(p)
	d.RefundAvailable, d.RefundNotAvailableCode, d.RefundNotAvailableReason = refund.Available, refund.Code, refund.Reason
	if acc.Bank != nil {
		d.Account.Bankname = acc.Bank.Name
	}
	if p.Expected() { // the Connect account it is expected on
		d.Account.ID = p.ConnectAccountID
	}
	for _, id := range acc.Identifications {
		d.Beneficiary.AccountIdentifications = append(d.Beneficiary.AccountIdentifications,
			api.AccountIdentification{Type: api.AccountIdentificationType(id.Type), Value: id.Value})
	}
	if b, ok := s.Payments.Bank(p); ok {
		v := s.payerBankWire(b)
		d.Bank = &v
	}
	for _, u := range p.History {
		d.StatusUpdates = append(d.StatusUpdates, api.StatusUpdate{CreatedAt: u.CreatedAt, NewStatus: api.PaymentStatus(u.Status)})
	}
	if req.Payer != nil {
		d.Sender.Email = opt(req.Payer.Email)
	}
	if req.Device != nil {
		d.Sender.IP, d.Sender.DeviceFingerprint = opt(req.Device.IP), opt(req.Device.Fingerprint)
	}
	if p.Sender != nil {
		name := p.Sender.Name
		d.Sender.Name = &name
		if p.Sender.SortCode != "" || p.Sender.AccountNumber != "" {
			d.Sender.ServiceConnect = &api.ServiceConnect{AccountName: p.Sender.Name,
				AccountNumber: p.Sender.AccountNumber, SortCode: p.Sender.SortCode}
		}
	}
	return d
}
