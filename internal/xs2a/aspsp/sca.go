package aspsp

import (
	"html/template"
	"net/http"
	"net/url"

	"github.com/bankrail/bankrail/internal/errs"
	"github.com/bankrail/bankrail/internal/payment"
	"github.com/bankrail/bankrail/internal/xs2a"
)

// scaTemplate is the SCA page of a payment another TPP initiated (a
// developer's own NextGenPSD2 client): the mock bank's buttons, without
// bankrail's checkout around it.
var scaTemplate = template.Must(template.New("sca").Parse(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><link rel="icon" href="data:,">
<title>{{.Bank}} - authorise a payment</title></head>
<body data-page="xs2a-sca"><main><h1>{{.Bank}}</h1>
<p>Pay {{.Amount}} {{.Currency}} to {{.Creditor}} ({{.IBAN}}).</p>
<form method="post">
<label for="holder">Account holder</label> <input id="holder" name="holder" value="SANDBOX ACCOUNT HOLDER">
{{range .Outcomes}}<button name="outcome" value="{{.}}">{{.}}</button> {{end}}
</form></main></body></html>`))

// scaOutcomes are the buttons of the page.
var scaOutcomes = []string{"COMPLETED", "REFUSED_BY_BANK", "CANCELLED_BY_USER", "ERROR_AT_BANK", "DELAYED_AT_BANK>COMPLETED",
	"DELAYED_AT_BANK>REFUSED_BY_BANK"}

// showSCA serves GET /xs2a/{bank}/sca/{id}.
func (b *Bank) showSCA(w http.ResponseWriter, r *http.Request) {
	p, err := b.Store.MockPayment(r.Context(), r.PathValue("bank"), r.PathValue("id"))
	if err != nil {
		http.Error(w, "This payment does not exist at this bank.", http.StatusNotFound)
		return
	}
	bk, _ := b.Banks.Get(p.BankID)
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	_ = scaTemplate.Execute(w, map[string]any{"Bank": bk.Name, "Amount": p.Body.InstructedAmount.Amount,
		"Currency": p.Body.InstructedAmount.Currency, "Creditor": p.Body.CreditorName, "IBAN": p.Body.CreditorAccount.IBAN,
		"Outcomes": scaOutcomes})
}

// answerSCA serves POST /xs2a/{bank}/sca/{id} (outcome, holder): the
// answer is recorded and the payer goes back to the TPP, at
// TPP-Redirect-URI, or TPP-Nok-Redirect-URI when the payment failed.
func (b *Bank) answerSCA(w http.ResponseWriter, r *http.Request) {
	if err := r.ParseForm(); err != nil {
		http.Error(w, "The form could not be read.", http.StatusBadRequest)
		return
	}
	p, err := b.Answer(r.Context(), r.PathValue("bank"), r.PathValue("id"), r.PostForm.Get("outcome"), r.PostForm.Get("holder"))
	switch {
	case errs.Is(err, errs.NotFound):
		http.Error(w, "This payment does not exist at this bank.", http.StatusNotFound)
		return
	case errs.Is(err, errs.BadRequest):
		http.Error(w, "Choose one of the buttons.", http.StatusBadRequest)
		return
	case err != nil:
		b.Log.ErrorContext(r.Context(), "mock ASPSP: answer at the SCA page", "err", err)
		http.Error(w, "Something went wrong at the bank.", http.StatusInternalServerError)
		return
	}
	if p.Approach == xs2a.SCADecoupled {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		_, _ = w.Write([]byte(answeredInApp))
		return
	}
	target := p.RedirectURI
	if o, _ := payment.ParseOutcome(p.Outcome); len(o) > 0 && o[len(o)-1].Flow() != payment.FlowFinished && p.NokRedirectURI != "" &&
		o[0] != payment.StatusDelayedAtBank {
		target = p.NokRedirectURI
	}
	if u, err := url.Parse(target); err != nil || !u.IsAbs() {
		http.Error(w, "The TPP gave no address to go back to.", http.StatusBadRequest)
		return
	}
	http.Redirect(w, r, target, http.StatusSeeOther)
}
