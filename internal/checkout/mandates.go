package checkout

import (
	"bytes"
	"context"
	"html/template"
	"net/http"
	"strings"

	"github.com/bankrail/bankrail/internal/errs"
	"github.com/bankrail/bankrail/internal/mandate"
)

// Prefixes of the mock bank's mandate pages (sandbox), below /mock-banks/.
const (
	mandatePagesPrefix   = "/mock-banks/mandates/"
	amendmentPagesPrefix = "/mock-banks/amendments/"
)

// MandateService is what the mandate pages call (internal/mandate).
type MandateService interface {
	ForPayer(ctx context.Context, id, token string) (mandate.Mandate, error)
	AnswerAsPayer(ctx context.Context, id, token string, o mandate.Outcome) (mandate.Mandate, error)
	AmendmentForPayer(ctx context.Context, id, token string) (mandate.Amendment, mandate.Mandate, error)
	AnswerAmendmentAsPayer(ctx context.Context, id, token string, approve bool) (mandate.Amendment, error)
}

// mandatePages are the mock bank's pages where a payer authorises a
// mandate (GET and POST /mock-banks/mandates/{id}) and answers an amendment
// (GET and POST /mock-banks/amendments/{id}): rendered on the server, the
// capability token in the link and in the form, no JavaScript.
type mandatePages struct {
	h        *Handler
	mandates MandateService
	mux      *http.ServeMux
}

// WithMandates returns h serving, in the sandbox, the mock bank's mandate
// and amendment pages beside its own (same prefixes, same guards).
func (h *Handler) WithMandates(m MandateService) http.Handler {
	if !h.Sandbox || m == nil {
		return h
	}
	p := &mandatePages{h: h, mandates: m, mux: http.NewServeMux()}
	p.mux.HandleFunc("GET "+mandatePagesPrefix+"{id}", h.page(p.showMandate))
	p.mux.HandleFunc("POST "+mandatePagesPrefix+"{id}", h.page(p.answerMandate))
	p.mux.HandleFunc("GET "+amendmentPagesPrefix+"{id}", h.page(p.showAmendment))
	p.mux.HandleFunc("POST "+amendmentPagesPrefix+"{id}", h.page(p.answerAmendment))
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !strings.HasPrefix(r.URL.Path, mandatePagesPrefix) && !strings.HasPrefix(r.URL.Path, amendmentPagesPrefix) {
			h.ServeHTTP(w, r)
			return
		}
		pageHeaders(w.Header())
		if _, pattern := p.mux.Handler(r); pattern == "" {
			h.renderError(w, r, http.StatusNotFound, "This page does not exist.")
			return
		}
		p.mux.ServeHTTP(w, r)
	})
}

// pageHeaders are the headers of every payer's page: never cached, never
// framed, the token in the address never sent to another site.
func pageHeaders(hd http.Header) {
	hd.Set("Cache-Control", "no-store")
	hd.Set("Referrer-Policy", "same-origin")
	hd.Set("X-Content-Type-Options", "nosniff")
	hd.Set("X-Frame-Options", "DENY")
	hd.Set("Content-Security-Policy", "default-src 'none'; style-src 'self'; img-src 'self' data:; base-uri 'none'; frame-ancestors 'none'")
}

// mandateView is what the mandate bank page reads.
type mandateView struct {
	Page, Title                string
	Sandbox                    bool
	Refresh                    int    // read by the layout (view.Refresh); a mandate page never reloads itself
	Done                       bool   // answered: the outcome, no form
	Kind2                      string // the outcome's style: success, failure, cancel, pending
	Heading, Text              string
	Kind, Payer, Account       string
	Terms                      []term
	Action, Token              string
	ApproveLabel, DeclineLabel string
}

// term is one line of the agreement's terms, with its proposed value when
// an amendment changes it.
type term struct {
	Label, Now, Next string
	Changed          bool
}

// mandateTemplate is the page, with the layout.
var mandateTemplate = template.Must(template.ParseFS(files, "templates/layout.html", "templates/mandate_bank.html"))

// showMandate serves GET /mock-banks/mandates/{id}?token=: the request to
// authorise, or the mandate's state once answered.
func (p *mandatePages) showMandate(w http.ResponseWriter, r *http.Request) error {
	token := r.URL.Query().Get("token")
	m, err := p.mandates.ForPayer(r.Context(), r.PathValue("id"), token)
	if err != nil {
		return err
	}
	p.renderMandate(w, r, m, token)
	return nil
}

// answerMandate serves POST /mock-banks/mandates/{id} (token, answer).
func (p *mandatePages) answerMandate(w http.ResponseWriter, r *http.Request) error {
	o, token, err := answerForm(r)
	if err != nil {
		return err
	}
	outcome := mandate.OutcomeDeclined
	if o {
		outcome = mandate.OutcomeAuthorised
	}
	m, err := p.mandates.AnswerAsPayer(r.Context(), r.PathValue("id"), token, outcome)
	if errs.Is(err, errs.NotModifiable) { // answered already (a second click, the back button): show the state
		m, err = p.mandates.ForPayer(r.Context(), r.PathValue("id"), token)
	}
	if err != nil {
		return err
	}
	p.renderMandate(w, r, m, token)
	return nil
}

// answerForm reads the form of an answer: approve or decline, and the token.
func answerForm(r *http.Request) (approve bool, token string, err error) {
	if err := r.ParseForm(); err != nil {
		return false, "", errs.E(errs.BadRequest, "The form could not be read.")
	}
	switch r.PostForm.Get("answer") {
	case "approve":
		return true, r.PostForm.Get("token"), nil
	case "decline":
		return false, r.PostForm.Get("token"), nil
	}
	return false, "", errs.E(errs.BadRequest, "Choose one of the buttons.")
}

// renderMandate writes the mandate's page.
func (p *mandatePages) renderMandate(w http.ResponseWriter, r *http.Request, m mandate.Mandate, token string) {
	v := termsOf(m, nil)
	v.Page, v.Title, v.Token, v.Action = "mandate", "Authorise a payment agreement", token, mandatePagesPrefix+m.ID
	v.ApproveLabel, v.DeclineLabel = "Authorise the agreement", "Decline"
	switch m.Status {
	case mandate.Requested:
		v.Heading = "Authorise a payment agreement"
		v.Text = "A merchant asks for your authority to take payments from your account under the terms below."
	case mandate.Active:
		v.Done, v.Kind2, v.Heading, v.Text = true, "success", "Agreement authorised", "The merchant may now take payments under these terms."
	case mandate.Declined:
		v.Done, v.Kind2, v.Heading, v.Text = true, "cancel", "Agreement declined", "No payment will be taken under this agreement."
	default:
		v.Done, v.Kind2, v.Heading, v.Text = true, "pending", "This agreement is "+strings.ToLower(string(m.Status)), "There is nothing to answer."
	}
	p.render(w, r, v)
}

// showAmendment serves GET /mock-banks/amendments/{id}?token=: the
// proposed change beside the current terms, or the answer given.
func (p *mandatePages) showAmendment(w http.ResponseWriter, r *http.Request) error {
	token := r.URL.Query().Get("token")
	a, m, err := p.mandates.AmendmentForPayer(r.Context(), r.PathValue("id"), token)
	if err != nil {
		return err
	}
	p.renderAmendment(w, r, a, m, token)
	return nil
}

// answerAmendment serves POST /mock-banks/amendments/{id} (token, answer).
func (p *mandatePages) answerAmendment(w http.ResponseWriter, r *http.Request) error {
	approve, token, err := answerForm(r)
	if err != nil {
		return err
	}
	_, err = p.mandates.AnswerAmendmentAsPayer(r.Context(), r.PathValue("id"), token, approve)
	if err != nil && !errs.Is(err, errs.NotModifiable) { // answered already: show the answer
		return err
	}
	a, m, err := p.mandates.AmendmentForPayer(r.Context(), r.PathValue("id"), token)
	if err != nil {
		return err
	}
	p.renderAmendment(w, r, a, m, token)
	return nil
}

// renderAmendment writes the amendment's page.
func (p *mandatePages) renderAmendment(w http.ResponseWriter, r *http.Request, a mandate.Amendment, m mandate.Mandate, token string) {
	v := termsOf(m, &a)
	v.Page, v.Title, v.Token, v.Action = "amendment", "Approve a change to your agreement", token, amendmentPagesPrefix+a.ID
	v.ApproveLabel, v.DeclineLabel = "Approve the change", "Decline"
	switch a.Status {
	case mandate.AwaitingApproval:
		v.Heading = "Approve a change to your agreement"
		v.Text = "The merchant asks to change the terms of your payment agreement as shown below."
	case mandate.Approved:
		v.Done, v.Kind2, v.Heading, v.Text = true, "success", "Change approved", "Your agreement now has the new terms."
	case mandate.Rejected:
		v.Done, v.Kind2, v.Heading, v.Text = true, "cancel", "Change declined", "Your agreement keeps its terms."
	default:
		v.Done, v.Kind2, v.Heading, v.Text = true, "pending", "This request has expired", "It was not answered in time; your agreement keeps its terms."
	}
	p.render(w, r, v)
}

// termsOf is the view of m's terms, with a's changes when given (and
// still to be answered).
func termsOf(m mandate.Mandate, a *mandate.Amendment) mandateView {
	kind := "PayTo agreement"
	if m.Type == mandate.VRP {
		kind = "Variable recurring payments"
	}
	ai := m.Payer.AccountIdentifiers
	account := ai.IBAN
	switch {
	case ai.BSB != "":
		account = "BSB " + ai.BSB + ", account " + ai.AccountNumber
	case ai.SortCode != "":
		account = "Sort code " + ai.SortCode + ", account " + ai.AccountNumber
	}
	var c mandate.Changes
	if a != nil && a.Open() {
		c = a.Changes
	}
	to := "no end"
	if !m.Validity.To.IsZero() {
		to = mandate.FormatTimestamp(m.Validity.To)
	}
	terms := []term{
		{Label: "Valid from", Now: mandate.FormatTimestamp(m.Validity.From)},
		{Label: "Valid until", Now: to},
	}
	if c.ValidityFrom != nil {
		terms[0].Next, terms[0].Changed = mandate.FormatTimestamp(*c.ValidityFrom), true
	}
	if c.ValidityTo != nil {
		terms[1].Next, terms[1].Changed = mandate.FormatTimestamp(*c.ValidityTo), true
	}
	if m.Type == mandate.PayTo {
		limit := term{Label: "Most per payment", Now: FormatAmount(m.PaymentLimit, m.Currency)}
		if c.PaymentLimit != nil {
			limit.Next, limit.Changed = FormatAmount(*c.PaymentLimit, m.Currency), true
		}
		terms = append(terms, limit)
	}
	return mandateView{Kind: kind, Payer: m.Payer.Name, Account: account, Terms: terms}
}

// render writes the mandate bank page.
func (p *mandatePages) render(w http.ResponseWriter, r *http.Request, v mandateView) {
	v.Sandbox = p.h.Sandbox
	var buf bytes.Buffer
	if err := mandateTemplate.ExecuteTemplate(&buf, "layout", v); err != nil {
		p.h.Log.ErrorContext(r.Context(), "render mandate page", "page", v.Page, "err", err)
		http.Error(w, "Something went wrong on our side.", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(buf.Bytes())
}
