package httpapi

import (
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"os"
	"strings"

	"github.com/bankrail/bankrail/internal/errs"
	"github.com/bankrail/bankrail/internal/statement"
)

// importStatement serves POST /statements (operators): the body, a
// camt.053 or camt.054 file (application/xml or text/xml), is imported;
// 201 with its summary. A file that is no supported statement is 400 and
// writes nothing. The body is spooled to a temporary file and read as a
// stream, so its size (at most Deps.MaxStatementBytes, else 413) costs
// disk, not memory.
func (s *Server) importStatement(w http.ResponseWriter, r *http.Request) error {
	if err := requireXML(r); err != nil {
		return err
	}
	f, err := os.CreateTemp("", "bankrail-statement-*.xml")
	if err != nil {
		return fmt.Errorf("spool the statement: %w", err)
	}
	defer func() { _ = f.Close(); _ = os.Remove(f.Name()) }()
	_, err = io.Copy(f, http.MaxBytesReader(w, r.Body, s.MaxStatementBytes))
	var tooLarge *http.MaxBytesError
	switch {
	case errors.As(err, &tooLarge):
		return errs.E(errs.PayloadTooLarge, "The statement is larger than %d bytes; import it with bankrail statements import.", tooLarge.Limit)
	case err != nil:
		return errs.Wrap(errs.BadRequest, err, "The request body could not be read.")
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return fmt.Errorf("spool the statement: %w", err)
	}
	name := strings.TrimSpace(r.Header.Get("X-File-Name"))
	if name == "" {
		name = "POST /statements"
	}
	sum, err := s.Statements.Import(r.Context(), name, f)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusCreated, sum)
	return nil
}

// requireXML refuses a body declared as something other than XML; a
// missing Content-Type is taken as XML, and the charset is the file's to
// declare (banks send ISO 8859-1 too).
func requireXML(r *http.Request) error {
	ct := r.Header.Get("Content-Type")
	if ct == "" {
		return nil
	}
	mt, _, err := mime.ParseMediaType(ct)
	if err != nil || (mt != "application/xml" && mt != "text/xml" && !strings.HasSuffix(mt, "+xml")) {
		return errs.E(errs.UnsupportedMediaType, "Content-Type %q is not supported; send the statement file as application/xml.", ct)
	}
	return nil
}

// listStatements serves GET /statements (operators): the summaries of the
// imported files, newest first, a page at a time as every list (page,
// limit 1..500 default 50, cursor; the paging headers) in the object
// {"statements": [...]} this list has always answered with.
func (s *Server) listStatements(w http.ResponseWriter, r *http.Request) error {
	lp, err := readPaging(r.URL.Query(), statement.DefaultListLimit, statement.MaxListLimit)
	if err != nil {
		return err
	}
	pg, err := s.Statements.ImportsPage(r.Context(), lp.Page, lp.Limit, lp.After)
	if err != nil {
		return err
	}
	writePageHeaders(w, r, lp, pg.Total, pg.Next)
	writeJSON(w, http.StatusOK, map[string]any{"statements": pg.Items})
	return nil
}

// listReconciliationExceptions serves GET /reconciliation-exceptions
// (operators): newest first, status OPEN or RESOLVED to narrow, paged as
// GET /statements, in the object {"exceptions": [...]}.
func (s *Server) listReconciliationExceptions(w http.ResponseWriter, r *http.Request) error {
	q := r.URL.Query()
	lp, err := readPaging(q, statement.DefaultListLimit, statement.MaxListLimit)
	if err != nil {
		return err
	}
	pg, err := s.Statements.ExceptionsPage(r.Context(), statement.ExceptionStatus(q.Get("status")), lp.Page, lp.Limit, lp.After)
	if err != nil {
		return err
	}
	writePageHeaders(w, r, lp, pg.Total, pg.Next)
	writeJSON(w, http.StatusOK, map[string]any{"exceptions": pg.Items})
	return nil
}

// resolveReconciliationException serves POST
// /reconciliation-exceptions/{id}/resolve (operators): {note}; 200 with
// the resolved exception.
func (s *Server) resolveReconciliationException(w http.ResponseWriter, r *http.Request) error {
	var body struct {
		Note string `json:"note"`
	}
	if err := s.decodeJSON(w, r, &body); err != nil {
		return err
	}
	e, err := s.Statements.Resolve(r.Context(), r.PathValue("id"), body.Note)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, e)
	return nil
}
