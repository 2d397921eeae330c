package aspsp

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"strings"

	"github.com/google/uuid"

	"github.com/bankrail/bankrail/internal/bank"
	"github.com/bankrail/bankrail/internal/clock"
	"github.com/bankrail/bankrail/internal/errs"
	"github.com/bankrail/bankrail/internal/ids"
	"github.com/bankrail/bankrail/internal/payment"
	"github.com/bankrail/bankrail/internal/xs2a"
)

// Prefix is where the mock banks are served: /xs2a/{bankId}/v1/....
const Prefix = "/xs2a/"

// products are the payment products the mock banks offer.
var products = map[string]bool{xs2a.ProductSEPA: true, xs2a.ProductInstantSEPA: true}

// Bank is the mock ASPSP of every bank of a registry.
type Bank struct {
	Banks *bank.Registry
	Store Store
	Clock clock.Clock
	Log   *slog.Logger
	// PublicURL is where bankrail serves its pages (the SCA page's address).
	PublicURL string
	// Tenant names the tenant whose virtual clock a payment follows, from
	// its TPP-Redirect-URI (bankrail's own checkout: the payment's
	// customer); "" for the base clock.
	Tenant func(ctx context.Context, redirectURI string) string
	// SCAPage is the address of the payer's SCA page of p, when bankrail's
	// checkout serves it (the mock bank page of a bankrail payment); ""
	// for this package's own page (sca.go).
	SCAPage func(p Payment) string
}

// Handler serves /xs2a/{bankId}/v1/... and the SCA page of payments of
// other TPPs (/xs2a/{bankId}/sca/{paymentId}).
func (b *Bank) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("POST /xs2a/{bank}/v1/payments/{product}", b.initiate)
	mux.HandleFunc("GET /xs2a/{bank}/v1/payments/{product}/{id}/status", b.status)
	mux.HandleFunc("GET /xs2a/{bank}/v1/payments/{product}/{id}", b.payment)
	mux.HandleFunc("GET /xs2a/{bank}/v1/payments/{product}/{id}/authorisations/{auth}", b.scaStatus)
	mux.HandleFunc("GET /xs2a/{bank}/sca/{id}", b.showSCA)
	mux.HandleFunc("POST /xs2a/{bank}/sca/{id}", b.answerSCA)
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		b.fail(w, r, http.StatusNotFound, "RESOURCE_UNKNOWN", "This endpoint does not exist at this bank.")
	})
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Del("X-Request-ID") // bankrail's own request id (not a UUID): the bank answers the TPP's
		echoRequestID(w, r)
		mux.ServeHTTP(w, r)
	})
}

// fail writes an error answer with one tppMessage (none for a 5xx: the
// standard has no message codes for them).
func (b *Bank) fail(w http.ResponseWriter, _ *http.Request, status int, code, text string) {
	if status >= 500 {
		w.WriteHeader(status)
		return
	}
	writeJSON(w, status, xs2a.ErrorResponse{TPPMessages: []xs2a.TPPMessage{{Category: "ERROR", Code: code, Text: text}}})
}

// echoRequestID answers the request's X-Request-ID; one that is missing
// or not a UUID gets a new one (the document's answers carry a UUID).
func echoRequestID(w http.ResponseWriter, r *http.Request) {
	id := r.Header.Get("X-Request-ID")
	if _, err := uuid.Parse(id); err != nil {
		id = uuid.NewString()
	}
	w.Header().Set("X-Request-ID", id)
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

// initiate serves POST /xs2a/{bank}/v1/payments/{product}.
func (b *Bank) initiate(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	bk, ok := b.Banks.Get(r.PathValue("bank"))
	product := r.PathValue("product")
	switch {
	case !ok:
		b.fail(w, r, http.StatusNotFound, "RESOURCE_UNKNOWN", "This bank does not exist.")
		return
	case !products[product]:
		b.fail(w, r, http.StatusNotFound, "PRODUCT_UNKNOWN", "This bank does not offer "+product+".")
		return
	}
	decoupled := r.Header.Get("TPP-Redirect-Preferred") == "false"
	reqID, problem := b.checkHeaders(r, decoupled)
	if problem != "" {
		b.fail(w, r, http.StatusBadRequest, "FORMAT_ERROR", problem)
		return
	}
	scenario := r.Header.Get("X-Service-Testing-Scenario")
	if scenario != "" {
		o, ok := payment.ParseOutcome(scenario)
		if !ok {
			b.fail(w, r, http.StatusBadRequest, "FORMAT_ERROR", "X-Service-Testing-Scenario must be one of "+strings.Join(payment.OutcomeNames(), ", ")+".")
			return
		}
		scenario = o.String()
	}
	body, problem := readInitiation(r)
	if problem != "" {
		b.fail(w, r, http.StatusBadRequest, "FORMAT_ERROR", problem)
		return
	}
	p := Payment{ID: ids.New(), BankID: bk.ID, Product: product, RequestID: reqID, Body: body,
		RedirectURI: r.Header.Get("TPP-Redirect-URI"), NokRedirectURI: r.Header.Get("TPP-Nok-Redirect-URI"), Approach: xs2a.SCARedirect}
	if decoupled {
		p.Approach = xs2a.SCADecoupled
	}
	if b.Tenant != nil {
		p.CustomerID = b.Tenant(ctx, p.RedirectURI)
	}
	now, err := clock.For(ctx, b.Clock, p.CustomerID)
	if err != nil {
		b.internal(w, r, err)
		return
	}
	p.CreatedAt = now
	if scenario != "" {
		p.Outcome, p.AnsweredAt = scenario, now
	}
	if p, err = b.Store.CreateMockPayment(ctx, p); err != nil {
		b.internal(w, r, err)
		return
	}
	a := StatusAt(p, now)
	self := b.PublicURL + Prefix + bk.ID + "/v1/payments/" + product + "/" + p.ID
	resp := xs2a.InitiationResponse{TransactionStatus: a.Status, PaymentID: p.ID,
		Links: xs2a.Links{Self: &xs2a.Href{Href: self}, Status: &xs2a.Href{Href: self + "/status"}}}
	if a.Status == "" { // a bank error later: now it only has the initiation
		resp.TransactionStatus = "RCVD"
	}
	switch {
	case a.Status == "RJCT":
	case p.Approach == xs2a.SCADecoupled:
		resp.Links.SCAStatus = &xs2a.Href{Href: self + "/authorisations/" + p.ID}
		resp.PSUMessage = b.appMessage(p)
	default:
		resp.Links.SCARedirect = &xs2a.Href{Href: b.scaPage(p)}
	}
	w.Header().Set("Location", self)
	w.Header().Set("ASPSP-SCA-Approach", p.Approach)
	writeJSON(w, http.StatusCreated, resp)
}

// checkHeaders checks the headers of an initiation and returns its
// X-Request-ID, or what is wrong. A redirect initiation needs
// TPP-Redirect-URI; a decoupled one does not.
func (b *Bank) checkHeaders(r *http.Request, decoupled bool) (string, string) {
	reqID := r.Header.Get("X-Request-ID")
	if _, err := uuid.Parse(reqID); err != nil {
		return "", "X-Request-ID must be a UUID."
	}
	if r.Header.Get("PSU-IP-Address") == "" {
		return "", "PSU-IP-Address is required."
	}
	if u, err := url.Parse(r.Header.Get("TPP-Redirect-URI")); !decoupled && (err != nil || !u.IsAbs()) {
		return "", "TPP-Redirect-URI must be an absolute URI, or TPP-Redirect-Preferred false for the decoupled SCA approach."
	}
	return reqID, ""
}

// readInitiation reads the JSON body of an initiation, or says what is
// wrong with it.
func readInitiation(r *http.Request) (xs2a.PaymentInitiation, string) {
	var body xs2a.PaymentInitiation
	dec := json.NewDecoder(io.LimitReader(r.Body, 64<<10))
	if err := dec.Decode(&body); err != nil {
		return body, "The body is not a JSON payment initiation: " + err.Error()
	}
	if _, err := xs2a.ParseAmount(body.InstructedAmount); err != nil {
		return body, "instructedAmount: " + err.Error()
	}
	if body.CreditorAccount.IBAN == "" || body.CreditorName == "" {
		return body, "creditorAccount.iban and creditorName are required."
	}
	return body, ""
}

// scaPage is the address of p's SCA page.
func (b *Bank) scaPage(p Payment) string {
	if b.SCAPage != nil {
		if a := b.SCAPage(p); a != "" {
			return a
		}
	}
	return b.PublicURL + Prefix + p.BankID + "/sca/" + p.ID
}

// load reads the payment of the request's {bank} and {id}, answering 403
// RESOURCE_UNKNOWN when there is none (as the standard asks) and false.
func (b *Bank) load(w http.ResponseWriter, r *http.Request) (Payment, bool) {
	p, err := b.Store.MockPayment(r.Context(), r.PathValue("bank"), r.PathValue("id"))
	switch {
	case errs.Is(err, errs.NotFound):
		b.fail(w, r, http.StatusForbidden, "RESOURCE_UNKNOWN", "This payment does not exist at this bank.")
		return Payment{}, false
	case err != nil:
		b.internal(w, r, err)
		return Payment{}, false
	case p.Product != r.PathValue("product") && r.PathValue("product") != "":
		b.fail(w, r, http.StatusForbidden, "RESOURCE_UNKNOWN", "This payment is not a payment of this product.")
		return Payment{}, false
	}
	return p, true
}

// answerOf is what the bank says of p now, on p's tenant's clock.
func (b *Bank) answerOf(ctx context.Context, p Payment) (Answer, error) {
	now, err := clock.For(ctx, b.Clock, p.CustomerID)
	if err != nil {
		return Answer{}, err
	}
	return StatusAt(p, now), nil
}

// status serves GET .../{paymentId}/status.
func (b *Bank) status(w http.ResponseWriter, r *http.Request) {
	p, ok := b.load(w, r)
	if !ok {
		return
	}
	a, err := b.answerOf(r.Context(), p)
	if err != nil {
		b.internal(w, r, err)
		return
	}
	if a.HTTPError != 0 {
		b.fail(w, r, a.HTTPError, "", "")
		return
	}
	out := xs2a.StatusResponse{TransactionStatus: a.Status}
	if p.Approach == xs2a.SCADecoupled && a.Status == "RCVD" {
		out.PSUMessage = b.appMessage(p)
	}
	writeJSON(w, http.StatusOK, out)
}

// payment serves GET .../{paymentId}: the initiation with its status and,
// once the payer authorised it, the debtor.
func (b *Bank) payment(w http.ResponseWriter, r *http.Request) {
	p, ok := b.load(w, r)
	if !ok {
		return
	}
	a, err := b.answerOf(r.Context(), p)
	if err != nil {
		b.internal(w, r, err)
		return
	}
	out := xs2a.PaymentWithStatus{DebtorName: p.Holder, InstructedAmount: p.Body.InstructedAmount,
		CreditorAccount: p.Body.CreditorAccount, CreditorName: p.Body.CreditorName,
		RemittanceInformationUnstructured: p.Body.RemittanceInformationUnstructured, TransactionStatus: a.Status}
	if p.Body.DebtorAccount != nil {
		out.DebtorAccount = *p.Body.DebtorAccount
	}
	writeJSON(w, http.StatusOK, out)
}

// internal answers 500 and logs err.
func (b *Bank) internal(w http.ResponseWriter, r *http.Request, err error) {
	b.Log.ErrorContext(r.Context(), "mock ASPSP", "path", r.URL.Path, "err", err)
	b.fail(w, r, http.StatusInternalServerError, "", "")
}

// Answer records the payer's answer at the SCA page of payment id of bank
// bankID: a sandbox outcome (payment.ParseOutcome) and the account holder
// name the bank reports. A payment answered already keeps its answer.
func (b *Bank) Answer(ctx context.Context, bankID, id, outcome, holder string) (Payment, error) {
	o, ok := payment.ParseOutcome(outcome)
	if !ok {
		return Payment{}, errs.E(errs.BadRequest, "Choose one of the buttons.")
	}
	p, err := b.Store.MockPayment(ctx, bankID, id)
	if err != nil {
		return Payment{}, err
	}
	now, err := clock.For(ctx, b.Clock, p.CustomerID)
	if err != nil {
		return Payment{}, err
	}
	return b.Store.AnswerMockPayment(ctx, bankID, id, o.String(), holder, now)
}
