package dashboard

import (
	"net/http"

	"github.com/bankrail/bankrail/internal/errs"
	"github.com/bankrail/bankrail/internal/statement"
)

// exceptionsData fills the reconciliation exceptions page.
type exceptionsData struct {
	Status   string // OPEN, RESOLVED or ALL
	Statuses []string
	Rows     []exceptionView
	Limit    int
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
// exceptions (or the resolved ones, or all), newest first, each open one
// with its resolution form.
func (h *statementPages) exceptions(w http.ResponseWriter, q *req) error {
	return h.exceptionsPage(w, q, http.StatusOK, q.URL.Query().Get("status"), notice(q), nil, "", "")
}

// exceptionsPage writes the exceptions page in status (OPEN unless
// RESOLVED or ALL), with a refused resolution's problem and note.
func (h *statementPages) exceptionsPage(w http.ResponseWriter, q *req, code int, status, note string, problem *problemView,
	noteFor, typed string) error {
	d := exceptionsData{Status: string(statement.ExceptionOpen), Statuses: exceptionStatuses, Limit: statement.DefaultListLimit,
		NoteFor: noteFor, Note: typed}
	var filter statement.ExceptionStatus
	switch status {
	case string(statement.ExceptionResolved):
		d.Status, filter = status, statement.ExceptionResolved
	case "ALL":
		d.Status = status
	default:
		filter = statement.ExceptionOpen
	}
	list, err := h.Statements.Exceptions(q.ctx(), filter, statement.DefaultListLimit)
	if err != nil {
		return err
	}
	for _, e := range list {
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
