package dashboard

import (
	"context"
	"net/http"
	"strings"
	"time"

	"github.com/bankrail/bankrail/internal/clock"
	"github.com/bankrail/bankrail/internal/errs"
	"github.com/bankrail/bankrail/internal/ledger"
	"github.com/bankrail/bankrail/internal/paging"
	"github.com/bankrail/bankrail/internal/report"
	"github.com/bankrail/bankrail/internal/webguard"
)

// reportTypes are the reports the form offers, with their labels.
var reportTypes = []option{
	{Value: string(report.Payments), Label: "Payments"},
	{Value: string(report.Refunds), Label: "Refunds"},
	{Value: string(report.Payouts), Label: "Payouts"},
	{Value: string(report.AuditLog), Label: "Audit log"},
	{Value: string(report.Connect), Label: "Connect account transactions (choose the account)"},
}

// option is an entry of a <select>.
type option struct {
	Value, Label string
	Selected     bool
}

// reportForm is the request form as shown (defaults, or as it was sent).
type reportForm struct {
	Types      []option
	Accounts   []option
	Start, End string // YYYY-MM-DD
	AllowEmpty bool
}

// reportRow is a report in the list.
type reportRow struct {
	ID, Type, Status string
	Rows             int64
	CreatedAt        time.Time
	GeneratedAt      time.Time
	Ready            bool
}

// reportsData fills the reports page.
type reportsData struct {
	Form  reportForm
	Rows  []reportRow
	Pager pagerView
}

// reports is GET /dashboard/reports: the request form and the reports,
// newest first, with their status and a download link once available.
func (h *reportPages) reports(w http.ResponseWriter, q *req) error {
	now, err := clock.For(q.ctx(), h.Clock, q.viewer())
	if err != nil {
		return err
	}
	f := reportForm{Start: now.AddDate(0, 0, -30).UTC().Format(time.DateOnly), End: now.UTC().Format(time.DateOnly), AllowEmpty: true}
	return h.reportsPage(w, q, http.StatusOK, notice(q), nil, f, string(report.Payments), "")
}

// reportsPage writes the reports page with form f.
func (h *reportPages) reportsPage(w http.ResponseWriter, q *req, status int, note string, problem *problemView, f reportForm, typ, account string) error {
	for _, t := range reportTypes {
		t.Selected = t.Value == typ
		f.Types = append(f.Types, t)
	}
	accounts, _, err := paging.Unpack(h.Accounts.ListAccounts(q.ctx(), q.viewer(), ledger.AccountFilter{Page: 1, Limit: ledger.MaxPageLimit}))
	if err != nil {
		return err
	}
	f.Accounts = append(f.Accounts, option{Value: "", Label: "None (not a Connect report)", Selected: account == ""})
	for _, a := range accounts {
		label := a.Currency + " " + a.IBAN
		if a.Nickname != "" {
			label = a.Nickname + " (" + label + ")"
		}
		f.Accounts = append(f.Accounts, option{Value: a.ID, Label: label, Selected: a.ID == account})
	}
	page := pageParam(q.Request)
	items, total, err := paging.Unpack(h.Reports.List(q.ctx(), q.viewer(), report.ListFilter{Page: page, Limit: listLimit}))
	if err != nil {
		return err
	}
	d := reportsData{Form: f, Pager: pager(q.URL, page, listLimit, total)}
	for _, r := range items {
		d.Rows = append(d.Rows, reportRow{ID: r.ID, Type: string(r.Type), Status: string(r.Status), Rows: r.Rows,
			CreatedAt: r.CreatedAt, GeneratedAt: r.GeneratedAt, Ready: r.Status == report.Available})
	}
	h.show(w, q, status, "reports", "Reports", "Reports", d, note, problem)
	return nil
}

// requestReport is POST /dashboard/reports: a report of the dates chosen
// (whole UTC days, both included), as POST /reports/... does.
func (h *reportPages) requestReport(w http.ResponseWriter, q *req) error {
	form := q.PostForm
	typ, account := form.Get("type"), form.Get("account")
	f := reportForm{Start: strings.TrimSpace(form.Get("start")), End: strings.TrimSpace(form.Get("end")), AllowEmpty: form.Get("allowEmpty") == "on"}
	refuse := func(err error) error {
		problem, perr := problemOf(err)
		if perr != nil {
			return perr
		}
		return h.reportsPage(w, q, statusOf(err), "", problem, f, typ, account)
	}
	known := false
	for _, t := range reportTypes {
		known = known || t.Value == typ
	}
	if !known {
		return refuse(errs.E(errs.ValidationFailure, "Choose the kind of report."))
	}
	var v errs.Validation
	start, end := dateOf(&v, "start", "Start date", f.Start, "T00:00:00Z"), dateOf(&v, "end", "End date", f.End, "T23:59:59.999999Z")
	if err := v.Err(); err != nil {
		return refuse(err)
	}
	clientID, err := h.clientFor(q.ctx(), q.viewer())
	if err != nil {
		return refuse(err)
	}
	in := report.Input{Type: report.Type(typ), ViewerID: q.viewer(), ClientID: clientID, UserID: q.p.UserID,
		StartDate: &start, EndDate: &end}
	switch in.Type {
	case report.Payments, report.AuditLog, report.Connect:
		in.AllowEmpty = &f.AllowEmpty
	}
	if in.Type == report.Connect {
		if account == "" {
			return refuse(errs.E(errs.ValidationFailure, "Choose the Connect account of the report."))
		}
		in.BankAccountID = account
	}
	if _, err := h.Reports.Create(q.ctx(), in); err != nil {
		if errs.Is(err, errs.NotFound) { // an account that is not the viewer's: as an unknown one
			return refuse(errs.E(errs.ValidationFailure, "Choose one of your Connect accounts."))
		}
		return refuse(err)
	}
	return done(w, q, Prefix+"reports", "report")
}

// dateOf reads a YYYY-MM-DD date field as the ISO 8601 date-time of suffix.
func dateOf(v *errs.Validation, field, label, value, suffix string) string {
	if _, err := time.Parse(time.DateOnly, value); err != nil {
		v.Add(errs.InvalidDate, field, "%s must be a date such as 2026-06-01.", label)
		return ""
	}
	return value + suffix
}

// clientFor is the application told when a report of customerID is ready
// (report_available): the customer's first application, else the first of
// the nearest customer above it that has one. A report requested through
// the API tells the caller's application; the console's person has none.
func (h *reportPages) clientFor(ctx context.Context, customerID string) (string, error) {
	if h.Identity == nil {
		return "", errs.E(errs.ValidationFailure, "This console cannot tell an application when the report is ready.")
	}
	a, ok, err := h.Identity.NearestApplication(ctx, customerID)
	if err != nil {
		return "", err
	}
	if !ok {
		return "", errs.E(errs.ValidationFailure, "Your customer has no application to tell when the report is ready; ask your operator to create one.")
	}
	return a.ClientID, nil
}

// downloadReport is GET /dashboard/reports/{id}/download: the CSV file,
// streamed as GET /reports/{id}/download streams it (webguard.ServeReport).
func (h *reportPages) downloadReport(w http.ResponseWriter, q *req) error {
	rep, file, err := h.Reports.Open(q.ctx(), q.viewer(), q.PathValue("id"))
	if err != nil {
		return err
	}
	webguard.ServeReport(q.ctx(), w, h.Log, requestID(w), rep, file)
	return nil
}
