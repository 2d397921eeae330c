package checkout

import (
	"bytes"
	"html/template"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/bankrail/bankrail/internal/bank"
	"github.com/bankrail/bankrail/internal/iso"
	"github.com/bankrail/bankrail/internal/payment"
)

// view is what every page template reads.
type view struct {
	Page      string // the template's name, <body data-page>: the tests wait for it
	Title     string
	PaymentID string
	Token     string
	Merchant  string
	Amount    string
	Reference string
	Info      []payment.DisplayInfo
	Sandbox   bool

	// Bank picker.
	Banks     []bankItem
	Countries []option
	Country   string
	Query     string

	// Confirmation and bank pages.
	Bank          *bankItem
	CanChangeBank bool
	Holder        string
	BankURL       string   // where to continue at the bank
	Actions       []action // the mock bank's buttons

	// Refresh: seconds after which the page reloads itself (the waiting
	// page of a decoupled authorisation); 0 for none.
	Refresh int

	// Final and error pages.
	Outcome   outcomeView
	Message   string
	ReturnURL string // back to the merchant, signed (the bank could not be reached)

	// Embedded checkout: the origin of the merchant's page the final page
	// tells the outcome, and the payment's status.
	EmbedOrigin string
	Status      string
}

// bankItem is a bank as the pages show it.
type bankItem struct {
	ID, Name, Branch, CountryName string
	Logo, Icon                    string // served by bankrail: /banks/{id}/logo.svg, /banks/{id}/icon.svg
	URL                           string // the confirmation page with this bank
}

// action is a button of the mock bank's page.
type action struct{ Outcome, Label, Class string }

// option is an entry of a <select>.
type option struct {
	Value, Label string
	Selected     bool
}

// pages are the parsed templates, each with the layout.
var pages = func() map[string]*template.Template {
	out := map[string]*template.Template{}
	for _, name := range []string{"picker", "confirm", "bank", "app", "done", "error"} {
		out[name] = template.Must(template.ParseFS(files, "templates/layout.html", "templates/"+name+".html"))
	}
	return out
}()

// render writes page name with status.
func (h *Handler) render(w http.ResponseWriter, r *http.Request, status int, name string, v view) {
	v.Sandbox, v.Page = h.Sandbox, name
	var buf bytes.Buffer
	if err := pages[name].ExecuteTemplate(&buf, "layout", v); err != nil {
		h.Log.ErrorContext(r.Context(), "render checkout page", "page", name, "err", err)
		http.Error(w, "Something went wrong on our side.", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(status)
	_, _ = w.Write(buf.Bytes())
}

// paymentView fills the parts every payment page shows.
func paymentView(p payment.Payment, token string) view {
	merchant := ""
	if p.Request.Beneficiary != nil {
		merchant = p.Request.Beneficiary.Name
	}
	return view{PaymentID: p.ID, Token: token, Merchant: merchant, Amount: FormatAmount(p.Amount(), p.Request.Currency),
		Reference: p.UniqueReference, Info: p.Request.DisplayInfo}
}

// itemOf is the page view of bank b for payment p.
func itemOf(b bank.Bank, p payment.Payment, token string) bankItem {
	name, _ := iso.CountryName(b.Country)
	q := url.Values{"token": {token}, "bank": {b.ID}}
	return bankItem{ID: b.ID, Name: b.Name, Branch: b.BranchName, CountryName: name,
		Logo: "/banks/" + b.ID + "/logo.svg", Icon: "/banks/" + b.ID + "/icon.svg", URL: "/checkout/" + p.ID + "/confirm?" + q.Encode()}
}

// symbols are the currency signs shown before amounts; other currencies
// show their code.
var symbols = map[string]string{"EUR": "€", "GBP": "£", "USD": "$"}

// FormatAmount formats minor units in currency: FormatAmount(105000, "EUR")
// is "€1,050.00"; a currency without a sign shows its code ("CHF 12.50").
func FormatAmount(minor int64, currency string) string {
	decimals := 2
	if c, ok := iso.CurrencyOf(currency); ok {
		decimals = c.Decimals
	}
	neg := minor < 0
	if neg {
		minor = -minor
	}
	digits := strconv.FormatInt(minor, 10)
	for len(digits) <= decimals {
		digits = "0" + digits
	}
	whole, frac := digits[:len(digits)-decimals], digits[len(digits)-decimals:]
	var b strings.Builder
	for i, c := range whole {
		if i > 0 && (len(whole)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	if decimals > 0 {
		b.WriteString("." + frac)
	}
	sign := ""
	if neg {
		sign = "-"
	}
	if s, ok := symbols[currency]; ok {
		return sign + s + b.String()
	}
	return sign + currency + " " + b.String()
}
