package httpapi

import (
	"errors"
	"io"
	"net/http"

	"github.com/bankrail/bankrail/api"
	"github.com/bankrail/bankrail/internal/errs"
	"github.com/bankrail/bankrail/internal/transfer"
)

// transferFileFilters are the query parameters of the lists of bank files.
var transferFileFilters = []string{"direction", "page", "limit"}

// fileFilter reads the direction, page and limit of a list of bank files.
func fileFilter(r *http.Request) (transfer.FileFilter, error) {
	q, err := listQuery(r, transferFileFilters)
	if err != nil {
		return transfer.FileFilter{}, err
	}
	page, limit, err := pageParams(q, 25, 100)
	if err != nil {
		return transfer.FileFilter{}, err
	}
	f := transfer.FileFilter{Page: page, Limit: limit, Direction: transfer.Direction(q.Get("direction"))}
	switch f.Direction {
	case "", transfer.Out, transfer.In:
	default:
		return transfer.FileFilter{}, errs.E(errs.InvalidQueryParam, "direction must be OUT or IN, got %q.", q.Get("direction"))
	}
	return f, nil
}

// listTransferFiles serves GET /transfer-files (operators).
func (s *Server) listTransferFiles(w http.ResponseWriter, r *http.Request) error {
	f, err := fileFilter(r)
	if err != nil {
		return err
	}
	pg, err := s.Transfers.Files(r.Context(), f)
	return writeListOf(w, r, listPaging{Page: f.Page, Limit: f.Limit}, pg, err, bankFileOf("/transfer-files/"))
}

// getTransferFile serves GET /transfer-files/{id} (operators): the XML.
func (s *Server) getTransferFile(w http.ResponseWriter, r *http.Request) error {
	f, err := s.Transfers.File(r.Context(), r.PathValue("id"))
	if err != nil {
		return err
	}
	return writeXMLFile(w, f)
}

// listSandboxBankFiles serves GET /sandbox/bank-files.
func (s *Server) listSandboxBankFiles(w http.ResponseWriter, r *http.Request) error {
	f, err := fileFilter(r)
	if err != nil {
		return err
	}
	pg, err := s.Transfers.SandboxFiles(r.Context(), viewer(r), f)
	return writeListOf(w, r, listPaging{Page: f.Page, Limit: f.Limit}, pg, err, bankFileOf("/sandbox/bank-files/"))
}

// getSandboxBankFile serves GET /sandbox/bank-files/{id}: the XML.
func (s *Server) getSandboxBankFile(w http.ResponseWriter, r *http.Request) error {
	f, err := s.Transfers.SandboxFile(r.Context(), viewer(r), r.PathValue("id"))
	if err != nil {
		return err
	}
	return writeXMLFile(w, f)
}

// importTransferStatus serves POST /transfer-status (operators): the raw
// pain.002 (at most Deps.MaxStatusBytes, else 413), answered 201 with what
// it did.
func (s *Server) importTransferStatus(w http.ResponseWriter, r *http.Request) error {
	if mt, err := mediaType(r); err != nil || (mt != "" && mt != "application/xml" && mt != "text/xml") {
		return errs.E(errs.UnsupportedMediaType, "Content-Type %q is not supported; send the pain.002 file as application/xml.",
			r.Header.Get("Content-Type"))
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, s.MaxStatusBytes))
	var tooLarge *http.MaxBytesError
	switch {
	case errors.As(err, &tooLarge):
		return errs.E(errs.PayloadTooLarge, "The status report is larger than %d bytes.", tooLarge.Limit)
	case err != nil:
		return errs.Wrap(errs.BadRequest, err, "The status report could not be read.")
	}
	sum, err := s.Transfers.ImportStatus(r.Context(), body)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusCreated, api.TransferStatusSummary{File: sum.File, MsgID: sum.MsgID, Original: sum.Original,
		Accepted: int64(sum.Accepted), Rejected: int64(sum.Rejected), Pending: int64(sum.Pending), Unchanged: int64(sum.Unchanged),
		Unknown: sum.Unknown, RejectedAfterBooking: sum.RejectedAfterBooking, Duplicate: sum.Duplicate})
	return nil
}

// bankFileOf renders a bank file whose download is below prefix.
func bankFileOf(prefix string) func(transfer.File) api.BankFile {
	return func(f transfer.File) api.BankFile {
		out := api.BankFile{ID: f.ID, MsgID: f.MsgID, Message: f.Message, Direction: api.BankFileDirection(f.Direction),
			Original: opt(f.Original), Count: int64(f.Count), Amount: f.Sum, Currency: f.Currency, CreatedAt: f.CreatedAt}
		out.UnderscoreLinks.Download = api.Link{Href: prefix + f.ID, Method: api.LinkMethodGET}
		if !f.DeliveredAt.IsZero() {
			d := f.DeliveredAt
			out.DeliveredAt = &d
		}
		return out
	}
}

// writeXMLFile answers the XML of f as a download named by its MsgId.
func writeXMLFile(w http.ResponseWriter, f transfer.File) error {
	w.Header().Set("Content-Type", "application/xml")
	w.Header().Set("Content-Disposition", `attachment; filename="`+f.Name()+`"`)
	w.WriteHeader(http.StatusOK)
	_, err := w.Write(f.Body)
	return err
}
