package dashboard

import (
	"errors"
	"net/http"
	"net/url"
	"path"
	"strings"

	"github.com/bankrail/bankrail/internal/errs"
	"github.com/bankrail/bankrail/internal/paging"
	"github.com/bankrail/bankrail/internal/statement"
)

// statementsData fills the statements page.
type statementsData struct {
	Imports []importView
	Pager   pagerView // statement.DefaultListLimit a page, newest first
}

// importView is the summary of one imported file.
type importView struct {
	statement.Summary
	Number   int // its place in the list, from 1: the accounts table's name is unique
	Accounts []accountView
	Rejected []string // each rejected entry's reason, which names the entry
}

// accountView is one account of an imported file.
type accountView struct {
	IBAN                                   string
	Known                                  bool
	Credited, Debited                      string
	ClosingBank, ClosingLedger, Difference string // empty when the file or the ledger does not tell
	Differs                                bool
}

// statements is GET /dashboard/statements: the upload form, then the
// summaries of the imported statement files, newest first, 50 a page
// (?page=).
func (h *statementPages) statements(w http.ResponseWriter, q *req) error {
	return h.statementsPage(w, q, http.StatusOK, notice(q), nil)
}

// statementsPage writes the statements page, with a refused upload's
// problem.
func (h *statementPages) statementsPage(w http.ResponseWriter, q *req, status int, note string, problem *problemView) error {
	page := pageParam(q.Request)
	list, err := h.Statements.ImportsPage(q.ctx(), page, statement.DefaultListLimit, nil)
	if err != nil {
		return err
	}
	d := statementsData{Pager: pager(&url.URL{Path: "/dashboard/statements"}, page, statement.DefaultListLimit, list.Total)}
	for i, s := range list.Items {
		v := importView{Summary: s, Number: paging.Offset(page, statement.DefaultListLimit) + i + 1}
		for _, a := range s.Accounts {
			v.Accounts = append(v.Accounts, accountOf(a))
		}
		for _, r := range s.Rejected {
			if !strings.HasPrefix(r.Reason, r.Entry) {
				r.Reason = r.Entry + ": " + r.Reason
			}
			v.Rejected = append(v.Rejected, r.Reason)
		}
		d.Imports = append(d.Imports, v)
	}
	h.show(w, q, status, "statements", "Statements", "Statements", d, note, problem)
	return nil
}

// accountOf is an account of a summary for the page.
func accountOf(a statement.AccountSummary) accountView {
	v := accountView{IBAN: a.IBAN, Known: a.Known, Credited: sumText(a.Credited), Debited: sumText(a.Debited)}
	if a.ClosingBank != nil {
		v.ClosingBank = formatAmount(a.ClosingBank.Amount, a.ClosingBank.Currency)
	}
	if a.ClosingLedger != nil {
		v.ClosingLedger = formatAmount(a.ClosingLedger.Amount, a.ClosingLedger.Currency)
	}
	if a.Difference != nil && a.ClosingBank != nil {
		v.Difference = formatAmount(*a.Difference, a.ClosingBank.Currency)
		v.Differs = *a.Difference != 0
	}
	return v
}

// sumText is a count of booked transactions and their amount: "2 · 25.50 EUR".
func sumText(s statement.Sum) string {
	if s.Count == 0 {
		return "none"
	}
	return plural(int64(s.Count), "transaction") + " · " + formatAmount(s.Amount, s.Currency)
}

// importStatement is POST /dashboard/statements: the camt.053 or camt.054
// file of the form is imported by the same importer as POST /statements;
// the page then shows its summary first. A file that is no supported
// statement is refused with the importer's reason and writes nothing.
func (h *statementPages) importStatement(w http.ResponseWriter, q *req) error {
	f, hdr, err := q.FormFile("file")
	if err != nil {
		return h.statementsPage(w, q, http.StatusUnprocessableEntity, "", noFile("Choose the statement file (camt.053 or camt.054) to import."))
	}
	defer func() { _ = f.Close() }()
	name := fileName(hdr.Filename, "statement uploaded in the dashboard")
	sum, err := h.Statements.Import(q.ctx(), name, f)
	if err != nil {
		problem, perr := fileProblem(err)
		if perr != nil {
			return perr
		}
		problem.Message = "The file " + name + " was not imported: " + problem.Message
		return h.statementsPage(w, q, statusOf(err), "", problem)
	}
	return done(w, q, Prefix+"statements#import-"+sum.ID, "statement")
}

// noFile is the problem of an upload form sent without its file.
func noFile(msg string) *problemView { return &problemView{Message: msg} }

// fileName is the base name of an uploaded file as the browser gave it
// (at most 200 bytes), else fallback.
func fileName(name, fallback string) string {
	name = strings.TrimSpace(path.Base(strings.ReplaceAll(name, `\`, "/")))
	if name == "" || name == "." || name == "/" {
		return fallback
	}
	if len(name) > 200 {
		name = strings.ToValidUTF8(name[:200], "")
	}
	return name
}

// fileProblem is the problem of a refused file: the domain's reason, which
// names the file's fault (the importers wrap it with the file's name).
func fileProblem(err error) (*problemView, error) {
	var e *errs.Error
	if !errors.As(err, &e) {
		return nil, err
	}
	problem, perr := problemOf(e)
	if perr != nil {
		return nil, err
	}
	return problem, nil
}
