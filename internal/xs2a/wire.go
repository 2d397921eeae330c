// Package xs2a is bankrail's way to banks that speak the Berlin Group
// NextGenPSD2 XS2A interface (version 1.3.11, the official OpenAPI document
// in ../shared/spec/standards/berlin-group-psd2-api-1.3.11.yaml): the wire
// types of a single payment initiation and its status (wire.go), the table
// of the standard's transaction statuses (status.go), an HTTP client
// (client.go), the bank.Connector over it (connector.go) and the durable
// job that reads a payment's status until it is final (poll.go).
//
// It knows nothing of SQL (Store is implemented by internal/store) and
// serves no HTTP: the sandbox's mock ASPSP is internal/xs2a/aspsp.
package xs2a

// Products of the payment initiation service (the {payment-product} of
// the path) bankrail sends.
const (
	ProductSEPA        = "sepa-credit-transfers"
	ProductInstantSEPA = "instant-sepa-credit-transfers"
)

// SCA approaches (the ASPSP-SCA-Approach header): bankrail supports these
// two.
const (
	// SCARedirect: the payer authorises on the bank's page
	// (_links.scaRedirect) and is sent back to TPP-Redirect-URI.
	SCARedirect = "REDIRECT"
	// SCADecoupled: the payer authorises in the bank's app; the TPP reads
	// the status until the bank answers (_links.scaStatus, psuMessage).
	SCADecoupled = "DECOUPLED"
)

// Amount is the standard's amount: a currency and an exact decimal string
// in the currency's exponent ("10.50" EUR, "1000" JPY).
type Amount struct {
	Currency string `json:"currency"`
	Amount   string `json:"amount"`
}

// AccountReference names an account; bankrail sends IBANs only.
type AccountReference struct {
	IBAN     string `json:"iban,omitempty"`
	Currency string `json:"currency,omitempty"`
}

// PaymentInitiation is the JSON body of POST /v1/payments/{product}
// (paymentInitiation_json, the fields of the SCT and SCT Inst cores).
type PaymentInitiation struct {
	EndToEndIdentification            string            `json:"endToEndIdentification,omitempty"`
	DebtorAccount                     *AccountReference `json:"debtorAccount,omitempty"`
	InstructedAmount                  Amount            `json:"instructedAmount"`
	CreditorAccount                   AccountReference  `json:"creditorAccount"`
	CreditorName                      string            `json:"creditorName"`
	RemittanceInformationUnstructured string            `json:"remittanceInformationUnstructured,omitempty"`
}

// Href is a link of _links.
type Href struct {
	Href string `json:"href"`
}

// Links are the _links of an answer that bankrail reads.
type Links struct {
	SCARedirect *Href `json:"scaRedirect,omitempty"`
	Self        *Href `json:"self,omitempty"`
	Status      *Href `json:"status,omitempty"`
	SCAStatus   *Href `json:"scaStatus,omitempty"`
	// StartAuthorisation: the bank waits for the TPP to start the
	// authorisation explicitly (not supported: decoupled.go).
	StartAuthorisation *Href `json:"startAuthorisation,omitempty"`
}

// TPPMessage is one of tppMessages: what the bank tells the TPP.
type TPPMessage struct {
	Category string `json:"category"`
	Code     string `json:"code"`
	Path     string `json:"path,omitempty"`
	Text     string `json:"text,omitempty"`
}

// InitiationResponse is the 201 answer of a payment initiation
// (paymentInitationRequestResponse-201).
type InitiationResponse struct {
	TransactionStatus string       `json:"transactionStatus"`
	PaymentID         string       `json:"paymentId"`
	Links             Links        `json:"_links"`
	PSUMessage        string       `json:"psuMessage,omitempty"`
	TPPMessages       []TPPMessage `json:"tppMessages,omitempty"`
}

// StatusResponse is the 200 answer of GET .../{paymentId}/status
// (paymentInitiationStatusResponse-200_json).
type StatusResponse struct {
	TransactionStatus string       `json:"transactionStatus"`
	FundsAvailable    *bool        `json:"fundsAvailable,omitempty"`
	PSUMessage        string       `json:"psuMessage,omitempty"`
	TPPMessages       []TPPMessage `json:"tppMessages,omitempty"`
}

// PaymentWithStatus is the 200 answer of GET .../{paymentId}
// (paymentInitiationWithStatusResponse): the initiation, the debtor and
// the status.
type PaymentWithStatus struct {
	DebtorAccount                     AccountReference `json:"debtorAccount"`
	DebtorName                        string           `json:"debtorName,omitempty"`
	InstructedAmount                  Amount           `json:"instructedAmount"`
	CreditorAccount                   AccountReference `json:"creditorAccount"`
	CreditorName                      string           `json:"creditorName"`
	RemittanceInformationUnstructured string           `json:"remittanceInformationUnstructured,omitempty"`
	TransactionStatus                 string           `json:"transactionStatus,omitempty"`
}

// SCAStatusResponse is the 200 answer of GET
// .../{paymentId}/authorisations/{authorisationId} (scaStatusResponse).
type SCAStatusResponse struct {
	SCAStatus  string `json:"scaStatus"`
	PSUMessage string `json:"psuMessage,omitempty"`
}

// ErrorResponse is the body of a 4xx or 5xx answer (Error400_NG_PIS and
// kin): tppMessages only.
type ErrorResponse struct {
	TPPMessages []TPPMessage `json:"tppMessages,omitempty"`
}

// Reason is what a bank's messages say, for a payment's reason and the
// logs: the texts (else codes) of messages, joined.
func Reason(ms []TPPMessage) string {
	out := ""
	for _, m := range ms {
		s := m.Text
		if s == "" {
			s = m.Code
		}
		if s == "" {
			continue
		}
		if out != "" {
			out += "; "
		}
		out += s
	}
	return out
}
