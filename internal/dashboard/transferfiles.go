package dashboard

import (
	"io"
	"mime"
	"net/http"
	"slices"

	"github.com/bankrail/bankrail/internal/transfer"
)

// transferFilesData fills the transfer files page.
type transferFilesData struct {
	Direction  string // OUT, IN or empty (both)
	Directions []string
	Rows       []fileView
	Pager      pagerView
	// Result is what the bank's answer just uploaded did (on the answer to
	// the upload only: it is not kept apart from the file itself).
	Result *transfer.Summary
}

// fileView is a file in the list.
type fileView struct {
	transfer.File
	Amount string
}

// transferFiles is GET /dashboard/transfer-files: the production files
// exchanged with the bank (pain.001 out, pain.002 in), newest first, 25 a
// page, each downloadable; the form that imports the bank's pain.002.
func (h *transferFilePages) transferFiles(w http.ResponseWriter, q *req) error {
	return h.filesPage(w, q, http.StatusOK, notice(q), nil, nil)
}

// filesPage writes the transfer files page, with an upload's result or
// problem.
func (h *transferFilePages) filesPage(w http.ResponseWriter, q *req, status int, note string, problem *problemView,
	result *transfer.Summary) error {
	d := transferFilesData{Directions: []string{string(transfer.Out), string(transfer.In)}, Result: result}
	f := transfer.FileFilter{Page: pageParam(q.Request), Limit: listLimit}
	if dir := q.URL.Query().Get("direction"); slices.Contains(d.Directions, dir) {
		d.Direction, f.Direction = dir, transfer.Direction(dir)
	}
	pg, err := h.Transfers.Files(q.ctx(), f)
	if err != nil {
		return err
	}
	for _, file := range pg.Items {
		d.Rows = append(d.Rows, fileView{File: file, Amount: formatAmount(file.Sum, file.Currency)})
	}
	d.Pager = pager(q.URL, f.Page, f.Limit, pg.Total)
	h.show(w, q, status, "transferfiles", "Transfer files", "Transfer files", d, note, problem)
	return nil
}

// download is GET /dashboard/transfer-files/{id}/download: the file's XML,
// as GET /transfer-files/{id} answers it.
func (h *transferFilePages) download(w http.ResponseWriter, q *req) error {
	f, err := h.Transfers.File(q.ctx(), q.PathValue("id"))
	if err != nil {
		return err
	}
	w.Header().Set("Content-Type", "application/xml")
	w.Header().Set("Content-Disposition", mime.FormatMediaType("attachment", map[string]string{"filename": f.Name()}))
	_, err = w.Write(f.Body)
	return err
}

// importStatus is POST /dashboard/transfer-status: the bank's pain.002 of
// the form is applied by the same service as POST /transfer-status, and
// the page shows what it did (accepted, rejected, pending, unchanged, the
// unknown and the late rejections). A file that is no pain.002 answering
// a file bankrail wrote is refused with the reason and writes nothing.
func (h *transferFilePages) importStatus(w http.ResponseWriter, q *req) error {
	f, hdr, err := q.FormFile("file")
	if err != nil {
		return h.filesPage(w, q, http.StatusUnprocessableEntity, "", noFile("Choose the bank's status report (pain.002) to import."), nil)
	}
	defer func() { _ = f.Close() }()
	body, err := io.ReadAll(f)
	if err != nil {
		return err
	}
	sum, err := h.Transfers.ImportStatus(q.ctx(), body)
	if err != nil {
		problem, perr := fileProblem(err)
		if perr != nil {
			return perr
		}
		problem.Message = "The file " + fileName(hdr.Filename, "uploaded") + " was not imported: " + problem.Message
		return h.filesPage(w, q, statusOf(err), "", problem, nil)
	}
	note := "The bank's status report was imported."
	if sum.Duplicate {
		note = "This status report was imported before: nothing changed."
	}
	return h.filesPage(w, q, http.StatusOK, note, nil, &sum)
}
