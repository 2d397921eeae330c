package aspsp

import (
	"net/http"

	"github.com/bankrail/bankrail/internal/xs2a"
)

// DecoupledBank is the sandbox's mock bank whose payments bankrail's
// connector initiates with the decoupled SCA approach (Saimaa Pankki,
// Finland): the payer confirms in the bank's "app", the page at
// /xs2a/{bankId}/sca/{paymentId} that the psuMessage names. Any mock bank
// offers decoupled SCA to a TPP that sends TPP-Redirect-Preferred: false.
const DecoupledBank = "ba4c0246-0000-4000-8000-000000000001"

// appMessage is the psuMessage of a decoupled payment: confirm in the
// app, and, the sandbox having no app, where its page is.
func (b *Bank) appMessage(p Payment) string {
	name := "your bank"
	if bk, ok := b.Banks.Get(p.BankID); ok {
		name = bk.Name
	}
	return "Please confirm the payment in the " + name + " app. Sandbox: the app is the page " +
		b.PublicURL + Prefix + p.BankID + "/sca/" + p.ID
}

// scaStatus serves GET .../{paymentId}/authorisations/{authorisationId},
// the _links.scaStatus of a decoupled payment (its authorisation id is the
// payment's id): received until the payer answers in the app, then
// finalised, or failed when the payer refused or cancelled.
func (b *Bank) scaStatus(w http.ResponseWriter, r *http.Request) {
	p, ok := b.load(w, r)
	if !ok {
		return
	}
	if r.PathValue("auth") != p.ID || p.Approach != xs2a.SCADecoupled {
		b.fail(w, r, http.StatusForbidden, "RESOURCE_UNKNOWN", "This authorisation does not exist.")
		return
	}
	a, err := b.answerOf(r.Context(), p)
	if err != nil {
		b.internal(w, r, err)
		return
	}
	out := xs2a.SCAStatusResponse{SCAStatus: "received", PSUMessage: b.appMessage(p)}
	switch {
	case p.Outcome == "":
	case a.Status == "RJCT" || a.Status == "CANC":
		out = xs2a.SCAStatusResponse{SCAStatus: "failed"}
	default:
		out = xs2a.SCAStatusResponse{SCAStatus: "finalised"}
	}
	writeJSON(w, http.StatusOK, out)
}

// answeredInApp is the page the "app" shows once the payer has answered a
// decoupled payment: there is no TPP to go back to from the app.
const answeredInApp = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><link rel="icon" href="data:,">
<title>Answer recorded</title></head>
<body data-page="xs2a-app-done"><main><h1>Your answer is recorded</h1>
<p>You can go back to the shop's page: it shows the outcome.</p></main></body></html>`
