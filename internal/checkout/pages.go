package checkout

import (
	"net/http"
	"net/url"
	"slices"
	"strings"
	"unicode"

	"golang.org/x/text/unicode/norm"

	"github.com/bankrail/bankrail/internal/bank"
	"github.com/bankrail/bankrail/internal/clock"
	"github.com/bankrail/bankrail/internal/errs"
	"github.com/bankrail/bankrail/internal/iso"
	"github.com/bankrail/bankrail/internal/payment"
	"github.com/bankrail/bankrail/notification"
)

// load reads the payment of the request's {id} with its checkout token
// (query or form).
func (h *Handler) load(r *http.Request) (payment.Payment, string, error) {
	token := r.FormValue("token")
	p, err := h.Payments.ForPayer(r.Context(), r.PathValue("id"), token)
	return p, token, err
}

// showCheckout serves GET /checkout/{id}: the bank picker, or the
// confirmation page when the merchant named the bank, or where the payer
// stands once past this step.
func (h *Handler) showCheckout(w http.ResponseWriter, r *http.Request) error {
	p, token, err := h.load(r)
	if err != nil {
		return err
	}
	switch {
	case p.Status != payment.StatusNew:
		return h.finish(w, r, p, token)
	case p.Scheme().InstitutionID != "":
		b, ok := h.Payments.Lifecycle().Bank(p)
		if !ok {
			return errs.E(errs.Conflict, "The bank of this payment is not available.")
		}
		h.renderConfirm(w, r, p, token, b, false)
		return nil
	}
	v := paymentView(p, token)
	v.Title = "Choose your bank"
	v.Query = strings.TrimSpace(r.URL.Query().Get("q"))
	v.Country = strings.ToUpper(r.URL.Query().Get("country"))
	banks := h.banksFor(p)
	var countries []string
	for _, b := range banks {
		if !slices.Contains(countries, b.Country) {
			countries = append(countries, b.Country)
		}
	}
	if !slices.Contains(countries, v.Country) {
		v.Country = ""
	}
	v.Countries = []option{{Value: "", Label: "All countries", Selected: v.Country == ""}}
	for _, c := range countries {
		name, _ := iso.CountryName(c)
		v.Countries = append(v.Countries, option{Value: c, Label: name, Selected: c == v.Country})
	}
	for _, b := range banks {
		if (v.Country == "" || b.Country == v.Country) && matches(b, v.Query) {
			v.Banks = append(v.Banks, itemOf(b, p, token))
		}
	}
	h.render(w, r, http.StatusOK, "picker", v)
	return nil
}

// banksFor are the banks the payer may choose: of the payment's system, in
// the countries the merchant allows.
func (h *Handler) banksFor(p payment.Payment) []bank.Bank {
	var out []bank.Bank
	for _, b := range h.Payments.Banks().List(bank.Filter{System: p.System()}) {
		if p.Request.CountryAvailable(b.Country) {
			out = append(out, b)
		}
	}
	return out
}

// matches reports whether bank b matches a search: every word of q is in
// its name, branch, country or BIC, ignoring case and accents.
func matches(b bank.Bank, q string) bool {
	name, _ := iso.CountryName(b.Country)
	hay := fold(strings.Join([]string{b.Name, b.OfficialName, b.BranchName, name, b.BIC}, " "))
	for _, w := range strings.Fields(fold(q)) {
		if !strings.Contains(hay, w) {
			return false
		}
	}
	return true
}

// fold lower-cases s and removes its accents.
func fold(s string) string {
	var b strings.Builder
	for _, r := range norm.NFD.String(s) {
		if !unicode.Is(unicode.Mn, r) {
			b.WriteRune(unicode.ToLower(r))
		}
	}
	return b.String()
}

// showConfirm serves GET /checkout/{id}/confirm?bank=: the payment and the
// chosen bank, with the button that goes to the bank.
func (h *Handler) showConfirm(w http.ResponseWriter, r *http.Request) error {
	p, token, err := h.load(r)
	if err != nil {
		return err
	}
	if p.Status != payment.StatusNew {
		return h.finish(w, r, p, token)
	}
	id := r.URL.Query().Get("bank")
	b, ok := h.Payments.Banks().Get(id)
	fixed := p.Scheme().InstitutionID
	if !ok || !slices.ContainsFunc(h.banksFor(p), func(x bank.Bank) bool { return x.ID == id }) || fixed != "" && fixed != id {
		return errs.NotFoundf("This bank cannot be used for this payment; please choose another one.")
	}
	h.renderConfirm(w, r, p, token, b, fixed == "")
	return nil
}

func (h *Handler) renderConfirm(w http.ResponseWriter, r *http.Request, p payment.Payment, token string, b bank.Bank, canChange bool) {
	v := paymentView(p, token)
	v.Title = "Confirm your payment"
	item := itemOf(b, p, token)
	v.Bank, v.CanChangeBank = &item, canChange
	h.render(w, r, http.StatusOK, "confirm", v)
}

// goToBank serves POST /checkout/{id}/confirm (token, bank): the payer goes
// to the bank; the payment moves to BANK_REDIRECT and the bank's connector
// says where the bank's page is. A bank without a connector ends the
// payment instead (payment.BankUnreachable) and the payer is told.
func (h *Handler) goToBank(w http.ResponseWriter, r *http.Request) error {
	if err := r.ParseForm(); err != nil {
		return errs.E(errs.BadRequest, "The form could not be read.")
	}
	return h.goVia(w, r, r.PathValue("id"), r.PostForm.Get("token"), r.PostForm.Get("bank"), h.Payments.GoToBankAlso)
}

// showDone serves GET /checkout/{id}/done: the final page when the
// merchant gave no return URL, or when the payer's bank cannot be reached
// (then with a link back to the merchant).
func (h *Handler) showDone(w http.ResponseWriter, r *http.Request) error {
	p, token, err := h.load(r)
	if err != nil {
		return err
	}
	v := paymentView(p, token)
	v.Outcome = outcomeOf(p)
	v.EmbedOrigin, v.Status = embeddedOrigin(token), string(p.Status)
	switch {
	case p.Status == payment.StatusBankRedirect:
		if c, b, ok := h.connector(p); ok {
			if v.BankURL, err = c.Start(r.Context(), h.authorisation(r, p.ID, b, token)); err != nil {
				return err
			}
		}
	case p.Status == payment.StatusNew:
		v.BankURL = "/checkout/" + p.ID + "?" + url.Values{"token": {token}}.Encode()
	case h.unreachable(p):
		b, _ := h.Payments.Lifecycle().Bank(p)
		v.Outcome = unreachableOutcome(b)
		if target := unreachableReturnURL(p); target != "" && v.EmbedOrigin == "" {
			if v.ReturnURL, err = h.signedReturn(r, p, target); err != nil {
				return err
			}
		}
	}
	v.Title = v.Outcome.Heading
	h.render(w, r, http.StatusOK, "done", v)
	return nil
}

// finish sends the payer where a payment past the checkout belongs: the
// bank while it waits for the payer there, else the merchant's return URL
// for the outcome with the signed outcome parameters, else the final page
// (always, in an embedded checkout: it tells the merchant's page; and when
// the bank could not be reached: the page says why).
func (h *Handler) finish(w http.ResponseWriter, r *http.Request, p payment.Payment, token string) error {
	if p.Status == payment.StatusBankRedirect {
		return h.toBank(w, r, p, token)
	}
	o := outcomeOf(p)
	target := returnURL(p, o.Kind)
	if target == "" || p.Status == payment.StatusNew || embeddedOrigin(token) != "" || h.unreachable(p) {
		http.Redirect(w, r, "/checkout/"+p.ID+"/done?"+url.Values{"token": {token}}.Encode(), http.StatusSeeOther)
		return nil
	}
	signed, err := h.signedReturn(r, p, target)
	if err != nil {
		return err
	}
	http.Redirect(w, r, signed, http.StatusSeeOther)
	return nil
}

// signedReturn is the merchant's address target with p's signed outcome
// appended.
func (h *Handler) signedReturn(r *http.Request, p payment.Payment, target string) (string, error) {
	secret, err := h.Secrets(r.Context(), p.ClientID)
	if err != nil {
		return "", err
	}
	timed, err := clock.For(r.Context(), h.Clock, p.CustomerID) // the payment's tenant's (sandbox) clock
	if err != nil {
		return "", err
	}
	status, _ := notificationStatus(p.Status)
	signed := notification.SignReturn(secret, notification.Return{PaymentID: p.ID, Status: status,
		DetailedStatus: string(p.Status), Timed: timed})
	return appendQuery(target, signed.Encode()), nil
}
