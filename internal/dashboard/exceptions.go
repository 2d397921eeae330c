package dashboard

import (
	"net/http"
	"net/url"

	"github.com/bankrail/bankrail/internal/errs"
	"github.com/bankrail/bankrail/internal/statement"
)

// exceptionsData fills the reconciliation exceptions page.
type exceptionsData struct {
	Status   string // OPEN, RESOLVED or ALL
	Statuses []string
	Rows     []exceptionView
	Pager    pagerView // statement.DefaultListLimit a page, newest first
	// NoteFor and Note are a refused resolution's exception and note,
	// shown again in its form.
	NoteFor, Note string
}

// exceptionView is an exception on the page.
type exceptionView struct {
	statement.Exception
	Status, Amount, Direction string
}

// exceptionStatuses are the page's filter: the open ones first (what
// waits for the operator), the resolved ones, or all.
var exceptionStatuses = []string{string(statement.ExceptionOpen), string(statement.ExceptionResolved), "ALL"}

// exceptions is GET /dashboard/reconciliation-exceptions: the open
// exceptions (or the resolved ones, or all), newest first, 50 a page
// (?page=), each open one with its resolution form.
func (h *statementPages) exceptions(w http.ResponseWriter, q *req) error {
	return h.exceptionsPage(w, q, http.StatusOK, q.URL.Query().Get("status"), notice(q), nil, "", "")
}

// exceptionsPage writes the exceptions page in status (OPEN unless
// RESOLVED or ALL), with a refused resolution's problem and note.
func (h *statementPages) exceptionsPage(w http.ResponseWriter, q *req, code int, status, note string, problem *problemView,
	noteFor, typed string) error {
	d := exceptionsData{Status: string(statement.ExceptionOpen), Statuses: exceptionStatuses, NoteFor: noteFor, Note: typed}
	var filter statement.ExceptionStatus
	switch status {
	case string(statement.ExceptionResolved):
		d.Status, filter = status, statement.ExceptionResolved
	case "ALL":
		d.Status = status
	default:
		filter = statement.ExceptionOpen
	}
	page := pageParam(q.Request)
	list, err := h.Statements.ExceptionsPage(q.ctx(), filter, page, statement.DefaultListLimit, nil)
	if err != nil {
		return err
	}
	// The pages' links are the list's (a refused resolution answers a POST).
	at := &url.URL{Path: "/dashboard/reconciliation-exceptions", RawQuery: url.Values{"status": {d.Status}}.Encode()}
	d.Pager = pager(at, page, statement.DefaultListLimit, list.Total)
	for _, e := range list.Items {
		v := exceptionView{Exception: e, Status: string(e.Status), Amount: formatAmount(e.Amount, e.Currency), Direction: "Debit"}
		if e.Credit {
			v.Direction = "Credit"
		}
		d.Rows = append(d.Rows, v)
	}
	h.show(w, q, code, "exceptions", "Reconciliation exceptions", "Exceptions", d, note, problem)
	return nil
}

// resolve is POST /dashboard/reconciliation-exceptions/{id}/resolve: the
// operator closes the exception with a note, through the same service as
// POST /reconciliation-exceptions/{id}/resolve. Resolving moves no money.
func (h *statementPages) resolve(w http.ResponseWriter, q *req) error {
	id, typed := q.PathValue("id"), q.PostForm.Get("note")
	if _, err := h.Statements.Resolve(q.ctx(), id, typed); err != nil {
		problem, perr := problemOf(err)
		if perr != nil {
			return perr
		}
		if e, ok := err.(*errs.Error); ok {
			problem = problem.labelled(e, map[string]string{"note": "Your note"})
		}
		return h.exceptionsPage(w, q, statusOf(err), q.PostForm.Get("status"), "", problem, id, typed)
	}
	return done(w, q, Prefix+"reconciliation-exceptions", "resolved")
}
