package httpapi

import (
	"time"

	"bankrail/internal/bank"
	"bankrail/internal/iso"
	"bankrail/internal/payment"
)

// paymentRecord is the Global payment record returned by POST /payments.
type paymentRecord struct {
	ID                    string                `json:"id"`
	Currency              string                `json:"currency"`
	Amount                int64                 `json:"amount"`
	PaymentReference      string                `json:"paymentReference"`
	InternalReference     string                `json:"internalReference,omitempty"`
	PaymentSystem         bank.PaymentSystem    `json:"paymentSystem"`
	OpenBankingEU         *openBankingEUView    `json:"openBankingEU,omitempty"`
	OpenBankingUK         *openBankingUKView    `json:"openBankingUK,omitempty"`
	Payer                 *payment.Payer        `json:"payer,omitempty"`
	Sender                *recordSender         `json:"sender"`
	Beneficiary           *payment.Beneficiary  `json:"beneficiary"`
	Device                *payment.Device       `json:"device,omitempty"`
	Status                payment.Status        `json:"status"`
	TransferType          string                `json:"transferType"`
	DisplayInfo           []payment.DisplayInfo `json:"displayInfo"`
	CreatedAt             time.Time             `json:"createdAt"`
	UpdatedAt             time.Time             `json:"updatedAt"`
	MandateID             *string               `json:"mandateId"`
	PaymentInitiationFlow initiationFlow        `json:"paymentInitiationFlow"`
}

type openBankingEUView struct {
	Type                payment.Type                `json:"type"`
	InstitutionID       string                      `json:"institutionId,omitempty"`
	Provider            string                      `json:"provider,omitempty"`
	StatementDescriptor string                      `json:"statementDescriptor,omitempty"`
	ValidityPeriod      *int64                      `json:"validityPeriod,omitempty"`
	AccountIdentifiers  *payment.AccountIdentifiers `json:"accountIdentifiers,omitempty"`
}

type openBankingUKView struct {
	Type          payment.Type `json:"type"`
	InstitutionID string       `json:"institutionId,omitempty"`
	Provider      string       `json:"provider,omitempty"`
}

type recordSender struct {
	Name               string            `json:"name"`
	AccountIdentifiers senderIdentifiers `json:"accountIdentifiers"`
}

type senderIdentifiers struct {
	IBAN string `json:"iban,omitempty"`
}

type initiationFlow struct {
	Status  payment.FlowStatus `json:"status"`
	Details flowDetails        `json:"details"`
}

type flowDetails struct {
	Reason   string       `json:"reason"`
	Redirect flowRedirect `json:"redirect"`
}

type flowRedirect struct {
	URL       string `json:"url"`
	DirectURL string `json:"directUrl"`
}

// flowReason is the reason of paymentInitiationFlow for a status.
func flowReason(s payment.Status) string {
	if s == payment.StatusNew {
		return "AWAITING_USER_REDIRECT"
	}
	return string(s)
}

// recordOf renders the Global payment record.
func (s *Server) recordOf(p payment.Payment) paymentRecord {
	req := p.Request
	rec := paymentRecord{
		ID: p.ID, Currency: req.Currency, Amount: amountOf(p), PaymentReference: p.UniqueReference,
		InternalReference: req.InternalReference, PaymentSystem: req.PaymentSystem, Payer: req.Payer,
		Beneficiary: req.Beneficiary, Device: req.Device, Status: p.Status, TransferType: s.Payments.TransferType(p),
		DisplayInfo: req.DisplayInfo, CreatedAt: p.CreatedAt, UpdatedAt: p.UpdatedAt,
	}
	if rec.DisplayInfo == nil {
		rec.DisplayInfo = []payment.DisplayInfo{}
	}
	provider := ""
	if b, ok := s.Payments.Bank(p); ok {
		provider = b.Name
	}
	scheme := p.Scheme()
	switch {
	case req.OpenBankingEU != nil:
		eu := req.OpenBankingEU
		rec.OpenBankingEU = &openBankingEUView{Type: p.Type(), InstitutionID: scheme.InstitutionID, Provider: provider,
			StatementDescriptor: eu.StatementDescriptor, ValidityPeriod: eu.ValidityPeriod, AccountIdentifiers: eu.AccountIdentifiers}
	case req.OpenBankingUK != nil:
		rec.OpenBankingUK = &openBankingUKView{Type: p.Type(), InstitutionID: scheme.InstitutionID, Provider: provider}
	}
	if p.Sender != nil {
		rec.Sender = &recordSender{Name: p.Sender.Name, AccountIdentifiers: senderIdentifiers{IBAN: p.Sender.IBAN}}
	}
	redirect := s.Payments.RedirectOf(p)
	rec.PaymentInitiationFlow = initiationFlow{Status: p.Status.Flow(), Details: flowDetails{
		Reason: flowReason(p.Status), Redirect: flowRedirect{URL: redirect.URL, DirectURL: redirect.DirectURL}}}
	return rec
}

func amountOf(p payment.Payment) int64 {
	if p.Request.Amount == nil {
		return 0
	}
	return *p.Request.Amount
}

// paymentDetails is the record of GET /payments/{id} and GET /payments.
type paymentDetails struct {
	ID                       string             `json:"id"`
	Active                   bool               `json:"active"`
	CreatedAt                time.Time          `json:"createdAt"`
	UpdatedAt                time.Time          `json:"updatedAt"`
	CustomerID               string             `json:"customerId"`
	Currency                 currencyView       `json:"currency"`
	Amount                   int64              `json:"amount"`
	Type                     payment.Type       `json:"type"`
	PaymentSystem            bank.PaymentSystem `json:"paymentSystem"`
	InternalReference        string             `json:"internalReference"`
	PaymentReference         string             `json:"paymentReference"`
	Account                  accountView        `json:"account"`
	UniqueReference          string             `json:"uniqueReference"`
	Bank                     *bankView          `json:"bank"`
	Status                   payment.Status     `json:"status"`
	StatusUpdates            []statusUpdateView `json:"statusUpdates"`
	Beneficiary              beneficiaryView    `json:"beneficiary"`
	TransferType             string             `json:"transferType"`
	Sender                   detailsSender      `json:"sender"`
	RefundAvailable          bool               `json:"refundAvailable"`
	RefundNotAvailableReason string             `json:"refundNotAvailableReason"`
	RefundNotAvailableCode   string             `json:"refundNotAvailableCode"`
}

type currencyView struct {
	ID      string `json:"id"`
	Name    string `json:"name"`
	Decimal int    `json:"decimal"`
	Active  bool   `json:"active"`
}

type countryView struct {
	ID   string `json:"id"`
	Name string `json:"name"`
}

type accountView struct {
	ID            string       `json:"id"`
	Active        bool         `json:"active"`
	CreatedAt     time.Time    `json:"createdAt"`
	Nickname      string       `json:"nickname"`
	AccountNumber string       `json:"accountNumber"`
	IBAN          string       `json:"iban"`
	SwiftBic      string       `json:"swiftBic"`
	SortCode      string       `json:"sortCode"`
	Currency      currencyView `json:"currency"`
	Country       *countryView `json:"country"`
	Bankname      string       `json:"bankname"`
}

type statusUpdateView struct {
	CreatedAt time.Time      `json:"createdAt"`
	NewStatus payment.Status `json:"newStatus"`
}

type beneficiaryView struct {
	ID                     string               `json:"id"`
	CustomerID             string               `json:"customerId"`
	Name                   string               `json:"name"`
	AccountIdentifications []identificationView `json:"accountIdentifications"`
	Country                *countryView         `json:"country"`
}

type identificationView struct {
	Type  string `json:"type"`
	Value string `json:"value"`
}

type detailsSender struct {
	Name              *string             `json:"name"`
	Email             string              `json:"email,omitempty"`
	IP                string              `json:"ip,omitempty"`
	DeviceFingerprint string              `json:"deviceFingerprint,omitempty"`
	ServiceConnect    *serviceConnectView `json:"serviceConnect"`
}

type serviceConnectView struct {
	AccountName   string `json:"accountName"`
	AccountNumber string `json:"accountNumber"`
	SortCode      string `json:"sortCode"`
}

// bankView is an institution of the registry.
type bankView struct {
	ID              string               `json:"id"`
	Name            string               `json:"name"`
	Country         countryView          `json:"country"`
	OfficialName    string               `json:"officialName"`
	BranchName      string               `json:"branchName"`
	ShortBranchName string               `json:"shortBranchName"`
	Active          bool                 `json:"active"`
	Logo            string               `json:"logo"` // {public-url}/banks/{id}/logo.svg
	Icon            string               `json:"icon"` // {public-url}/banks/{id}/icon.svg
	BIC             string               `json:"bic"`
	PaymentSystems  []bank.PaymentSystem `json:"paymentSystems"`
	SEPAInstant     bool                 `json:"sepaInstant"`
}

// bankView renders a bank; its images are served by bankrail itself.
func (s *Server) bankView(b bank.Bank) bankView {
	images := s.Payments.PublicURL() + "/banks/" + b.ID
	return bankView{ID: b.ID, Name: b.Name, Country: countryOf(b.Country), OfficialName: b.OfficialName,
		BranchName: b.BranchName, ShortBranchName: b.ShortBranchName, Active: true,
		Logo: images + "/logo.svg", Icon: images + "/icon.svg",
		BIC: b.BIC, PaymentSystems: b.Systems, SEPAInstant: b.SEPAInstant}
}

func countryOf(code string) countryView {
	name, _ := iso.CountryName(code)
	return countryView{ID: code, Name: name}
}

func currencyViewOf(code string) currencyView {
	c, ok := iso.CurrencyOf(code)
	return currencyView{ID: code, Name: c.Name, Decimal: c.Decimals, Active: ok}
}

// detailsOf renders the payment details record.
func (s *Server) detailsOf(p payment.Payment) paymentDetails {
	req := p.Request
	acc := payment.ReceivingAccountOf(p, s.Payments.Banks())
	cur := currencyViewOf(req.Currency)
	var country *countryView
	if acc.Country != "" {
		c := countryOf(acc.Country)
		country = &c
	}
	d := paymentDetails{
		ID: p.ID, Active: true, CreatedAt: p.CreatedAt, UpdatedAt: p.UpdatedAt, CustomerID: p.CustomerID,
		Currency: cur, Amount: amountOf(p), Type: p.Type(), PaymentSystem: req.PaymentSystem,
		InternalReference: req.InternalReference, PaymentReference: req.PaymentReference,
		Account: accountView{ID: acc.AccountID, Active: true, CreatedAt: p.CreatedAt, Nickname: acc.Name,
			AccountNumber: acc.Identifiers.AccountNumber, IBAN: acc.Identifiers.IBAN, SwiftBic: acc.Identifiers.SwiftBic,
			SortCode: acc.Identifiers.SortCode, Currency: cur, Country: country},
		UniqueReference: p.UniqueReference, Status: p.Status, TransferType: s.Payments.TransferType(p),
		Beneficiary: beneficiaryView{ID: acc.BeneficiaryID, CustomerID: p.CustomerID, Name: acc.Name,
			AccountIdentifications: []identificationView{}, Country: country},
		StatusUpdates: []statusUpdateView{},
	}
	refund := payment.RefundabilityOf(p)
	d.RefundAvailable, d.RefundNotAvailableCode, d.RefundNotAvailableReason = refund.Available, refund.Code, refund.Reason
	if acc.Bank != nil {
		d.Account.Bankname = acc.Bank.Name
	}
	for _, id := range acc.Identifications {
		d.Beneficiary.AccountIdentifications = append(d.Beneficiary.AccountIdentifications, identificationView{Type: id.Type, Value: id.Value})
	}
	if b, ok := s.Payments.Bank(p); ok {
		v := s.bankView(b)
		d.Bank = &v
	}
	for _, u := range p.History {
		d.StatusUpdates = append(d.StatusUpdates, statusUpdateView{CreatedAt: u.CreatedAt, NewStatus: u.Status})
	}
	if req.Payer != nil {
		d.Sender.Email = req.Payer.Email
	}
	if req.Device != nil {
		d.Sender.IP, d.Sender.DeviceFingerprint = req.Device.IP, req.Device.Fingerprint
	}
	if p.Sender != nil {
		d.Sender.Name = &p.Sender.Name
		if p.Sender.SortCode != "" || p.Sender.AccountNumber != "" {
			d.Sender.ServiceConnect = &serviceConnectView{AccountName: p.Sender.Name,
				AccountNumber: p.Sender.AccountNumber, SortCode: p.Sender.SortCode}
		}
	}
	return d
}
