package dashboard

import (
	"bytes"
	"fmt"
	"html/template"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/bankrail/bankrail/internal/auth"
	"github.com/bankrail/bankrail/internal/errs"
	"github.com/bankrail/bankrail/internal/identity"
	"github.com/bankrail/bankrail/internal/money"
	"github.com/bankrail/bankrail/internal/payment"
)

// view is what every page template reads; Data is the page's own.
type view struct {
	Page    string // the template's name, <body data-page>: the tests wait for it
	Title   string
	Section string // the navigation entry that is current
	Sandbox bool
	Who     *whoView // nil on the sign-in and error pages of a stranger
	CSRF    string   // the session's synchronizer token, in every form
	Nav     []navItem
	Notice  string       // a fixed message of success (role=status)
	Problem *problemView // what went wrong with a form (role=alert)
	Data    any
}

// whoView is the signed-in person.
type whoView struct {
	Username, Role, Customer string
	p                        auth.Principal
}

// navItem is an entry of the navigation.
type navItem struct {
	Label, Href string
	Current     bool
}

// problemView is an error shown above a form: a message and the failing
// fields' messages.
type problemView struct {
	Message string
	Fields  []string
}

// Can reports whether the signed-in person's role permits op (the name of
// an identity.Operation, such as "request a refund"): pages show an action
// only to a role that may take it.
func (v view) Can(op string) bool {
	return v.Who != nil && v.Who.p.Permits(identity.Operation(op)) == nil
}

// funcs are the templates' helpers.
var funcs = template.FuncMap{
	"amount": formatAmount,
	"when":   when,
	"iso":    func(t time.Time) string { return t.UTC().Format(time.RFC3339) },
	"tone":   tone,
	"short":  func(id string) string { return shortID(id) },
}

// pages are the parsed templates, each with the layout and the partials.
var pages = func() map[string]*template.Template {
	out := map[string]*template.Template{}
	for _, name := range []string{"signin", "error", "payments", "payment", "notifications", "notification", "inbox",
		"payouts", "reports", "accounts", "account", "clock", "mandates", "mandate", "channels", "channel", "applications", "application",
		"reset", "statements", "exceptions", "transferfiles"} {
		out[name] = template.Must(template.New(name).Funcs(funcs).ParseFS(files, "templates/layout.html", "templates/"+name+".html"))
	}
	return out
}()

// render writes page name with status.
func (h *base) render(w http.ResponseWriter, r *http.Request, status int, name string, v view) {
	v.Page, v.Sandbox = name, h.sandbox()
	var buf bytes.Buffer
	if err := pages[name].ExecuteTemplate(&buf, "layout", v); err != nil {
		h.Log.ErrorContext(r.Context(), "render console page", "page", name, "err", err)
		http.Error(w, "Something went wrong on our side.", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(status)
	_, _ = w.Write(buf.Bytes())
}

// show writes a page of a signed-in person: the header, the navigation of
// what the role may read, the forms' token.
func (h *base) show(w http.ResponseWriter, q *req, status int, name, title, section string, data any, notice string, problem *problemView) {
	v := view{Title: title, Section: section, Data: data, Notice: notice, Problem: problem}
	h.dress(&v, q)
	h.render(w, q.Request, status, name, v)
}

// dress fills the parts of a signed-in person's page.
func (h *base) dress(v *view, q *req) {
	if q == nil {
		return
	}
	customer := ""
	if h.Identity != nil {
		if c, err := h.Identity.Customer(q.ctx(), q.viewer(), q.viewer()); err == nil {
			customer = c.Name
		}
	}
	v.Who = &whoView{Username: q.p.Username, Role: string(q.p.Role), Customer: customer, p: q.p}
	v.CSRF = q.s.CSRFToken
	for _, n := range h.navigation(q.p) {
		n.Current = n.Label == v.Section
		v.Nav = append(v.Nav, n)
	}
}

// may reports whether p's role permits op.
func may(p auth.Principal, op identity.Operation) bool { return p.Permits(op) == nil }

// navigation lists the pages the principal may open.
func (h *base) navigation(p auth.Principal) []navItem {
	var out []navItem
	add := func(ok bool, label, path string) {
		if ok {
			out = append(out, navItem{Label: label, Href: Prefix + path})
		}
	}
	add(may(p, identity.PaymentRead), "Payments", "payments")
	add(may(p, identity.NotifyRead), "Notifications", "notifications")
	add(h.sandbox() && h.Inbox != nil && may(p, identity.NotifyRead), "Inbox", "inbox")
	add(may(p, identity.PayoutRead), "Payouts", "payouts")
	add(may(p, identity.ReportRead), "Reports", "reports")
	add(may(p, identity.AccountRead), "Accounts", "accounts")
	add(h.Mandates != nil && may(p, identity.MandateRead), "Mandates", "mandates")
	add(h.Channels != nil && may(p, identity.ChannelRead), "Channels", "channels")
	add(h.Identity != nil && may(p, identity.AppRead), "Applications", "applications")
	add(h.sandbox() && may(p, identity.SandboxAct), "Sandbox", "clock")
	add(h.Statements != nil && may(p, identity.BankFilesRead), "Statements", "statements")
	add(h.Statements != nil && may(p, identity.BankFilesRead), "Exceptions", "reconciliation-exceptions")
	add(h.Transfers != nil && may(p, identity.BankFilesRead), "Transfer files", "transfer-files")
	return out
}

// landing is the first page p may open: the payments, or an operator's
// statements (an operator has no merchant page).
func (h *base) landing(p auth.Principal) string {
	if nav := h.navigation(p); len(nav) > 0 {
		return nav[0].Href
	}
	return Prefix + "payments"
}

// errorData fills the error page.
type errorData struct {
	Status    int
	Heading   string
	Message   string
	RequestID string
}

// renderError writes the error page (q may be nil: no session).
func (h *base) renderError(w http.ResponseWriter, r *http.Request, q *req, status int, msg string) {
	heading := map[int]string{
		http.StatusNotFound:  "Not found",
		http.StatusForbidden: "Not allowed",
	}[status]
	if heading == "" {
		heading = "Something is not right"
	}
	v := view{Title: heading, Data: errorData{Status: status, Heading: heading, Message: msg, RequestID: requestID(w)}}
	h.dress(&v, q)
	h.render(w, r, status, "error", v)
}

// fail writes the page of an error a page or an action returned.
func (h *base) fail(w http.ResponseWriter, q *req, err error) {
	e, ok := err.(*errs.Error)
	if !ok {
		h.Log.ErrorContext(q.ctx(), "console page failed", "path", q.URL.Path, "err", err, "request_id", requestID(w))
		h.renderError(w, q.Request, q, http.StatusInternalServerError,
			"Something went wrong on our side. Try again in a moment; if it persists, give this request id to your operator.")
		return
	}
	status := http.StatusBadRequest
	switch e.Code {
	case errs.NotFound, errs.MalformedPathParam:
		h.renderError(w, q.Request, q, http.StatusNotFound, "There is nothing here, or it is not yours to see.")
		return
	case errs.AccessDenied:
		status = http.StatusForbidden
	case errs.Unauthorised:
		http.Redirect(w, q.Request, signInPath(q.Request, "expired"), http.StatusSeeOther)
		return
	case errs.Conflict, errs.NotModifiable, errs.IdempotencyConflict:
		status = http.StatusConflict
	case errs.ValidationFailure, errs.ReportEmpty:
		status = http.StatusUnprocessableEntity
	case errs.TooManyRequests:
		status = http.StatusTooManyRequests
	case errs.Internal:
		status = http.StatusInternalServerError
	}
	h.renderError(w, q.Request, q, status, messageOf(e))
}

// problemOf is a domain error as a form's problem, or nil when err is not
// the client's (then it is returned to be failed).
func problemOf(err error) (*problemView, error) {
	e, ok := err.(*errs.Error)
	if !ok || e.Code == errs.Internal || e.Code == errs.NotFound || e.Code == errs.AccessDenied || e.Code == errs.Unauthorised {
		return nil, err
	}
	p := &problemView{Message: pageMessage(e)}
	for _, f := range e.Fields {
		p.Fields = append(p.Fields, f.Message)
	}
	return p, nil
}

// labelled is p with each field's API name (externalReference) replaced by
// the label of its form's field (Your reference), so that the page speaks
// of what the person sees.
func (p *problemView) labelled(e *errs.Error, labels map[string]string) *problemView {
	for i, f := range e.Fields {
		if label, ok := labels[f.PropertyPath]; ok && i < len(p.Fields) {
			p.Fields[i] = label + strings.TrimPrefix(f.Message, f.PropertyPath)
		}
	}
	return p
}

// messageOf is an error's message with its fields' messages.
func messageOf(e *errs.Error) string {
	msg := pageMessage(e)
	for _, f := range e.Fields {
		msg += " " + f.Message
	}
	return msg
}

// pageMessage is e's message for a page: the API's summary of a validation
// failure ("see errors for each field") speaks of its JSON, not of the page.
func pageMessage(e *errs.Error) string {
	if e.Code == errs.ValidationFailure && len(e.Fields) > 0 {
		return "Please check what you entered:"
	}
	return e.Message
}

// formatAmount writes minor units of currency as a decimal with the code:
// "10.50 EUR".
func formatAmount(minor int64, currency string) string {
	m, err := money.New(minor, currency)
	if err != nil {
		return fmt.Sprintf("%d %s", minor, currency)
	}
	return m.Decimal() + " " + currency
}

// when writes a time for people, in UTC.
func when(t time.Time) string {
	if t.IsZero() {
		return "—"
	}
	return t.UTC().Format("2006-01-02 15:04:05") + " UTC"
}

// shortID is the first block of a uuid, for narrow columns (the full id is
// in the link and on the record's page).
func shortID(id string) string {
	if i := strings.IndexByte(id, '-'); i > 0 {
		return id[:i]
	}
	return id
}

// tone is the colour family of a status: ok, pending, bad or neutral.
func tone(status string) string {
	if s := payment.Status(status); s.Valid() {
		switch s.Flow() {
		case payment.FlowFinished:
			if s == payment.StatusNotReceived {
				return "bad"
			}
			return "ok"
		case payment.FlowException:
			return "bad"
		case payment.FlowAborted:
			return "neutral"
		}
		return "pending"
	}
	switch status {
	case "DELIVERED", "COMPLETED", "REPORT_AVAILABLE", "ACTIVE", "MATCH", "APPROVED", "VALID":
		return "ok"
	case "PENDING", "PROCESSING", "CREATED", "REPORT_REQUESTED", "REPORT_GENERATING", "CLOSE_MATCH", "AUTHORISATION_PENDING":
		return "pending"
	case "FAILED", "REJECTED", "REPORT_FAILED", "NO_MATCH", "ERROR", "INVALID", "CANCELLED", "EXPIRED":
		return "bad"
	}
	return "neutral"
}

// pagerView is the paging of a list.
type pagerView struct {
	Page, Pages, Total int
	Prev, Next         string // addresses of the neighbours; empty at the ends
}

// pager is the paging of a list at u (its query kept).
func pager(u *url.URL, page, limit, total int) pagerView {
	pages := (total + limit - 1) / limit
	if pages < 1 {
		pages = 1
	}
	at := func(n int) string {
		q := u.Query()
		q.Set("page", strconv.Itoa(n))
		return u.Path + "?" + q.Encode()
	}
	p := pagerView{Page: page, Pages: pages, Total: total}
	if page > 1 {
		p.Prev = at(min(page-1, pages))
	}
	if page < pages {
		p.Next = at(page + 1)
	}
	return p
}

// pageParam reads ?page= (1 when absent or not a positive number).
func pageParam(r *http.Request) int {
	n, err := strconv.Atoi(r.URL.Query().Get("page"))
	if err != nil || n < 1 || n > 1_000_000 {
		return 1
	}
	return n
}

// done redirects after a successful action (Post/Redirect/Get) to path
// with a notice key (the page shows its fixed text).
func done(w http.ResponseWriter, q *req, path, notice string) error {
	u, _ := url.Parse(path)
	qs := u.Query()
	qs.Set("done", notice)
	u.RawQuery = qs.Encode()
	http.Redirect(w, q.Request, u.String(), http.StatusSeeOther)
	return nil
}

// notices are the fixed texts of ?done=.
var notices = map[string]string{
	"refund":     "Refund requested.",
	"redeliver":  "The notification is queued for delivery again.",
	"approved":   "Payout approved: it goes on.",
	"rejected":   "Payout rejected: the money is back on the account.",
	"report":     "Report requested: it appears below when it is ready.",
	"advanced":   "The sandbox clock moved forward.",
	"reset":      "The sandbox clock is back at the wall clock.",
	"tree-reset": "Your customers' sandbox data is back at its seed state; other customers' is untouched.",
	"authorised": "The scenario was played.",
	"url":        "The notification URL was saved: notifications go there from now on.",
	"mandate":    "The payer's answer was played.",
	"amendment":  "The payer's answer to the amendment was played.",
	"chaos":      "The webhook chaos settings were saved.",
	"statement":  "The statement was imported: its summary is first below.",
	"resolved":   "The exception is resolved, with your note.",
}

// notice is the fixed text of the request's ?done=.
func notice(q *req) string { return notices[q.URL.Query().Get("done")] }

// plural writes n and the word, with an s unless n is 1.
func plural(n int64, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return strconv.FormatInt(n, 10) + " " + word + "s"
}
