package checkout

import (
	"net/http"

	"github.com/bankrail/bankrail/internal/errs"
)

// fail renders err as an error page: the messages of errs.Error are meant
// for people; anything else is logged and shown as a generic failure.
func (h *Handler) fail(w http.ResponseWriter, r *http.Request, err error) {
	e, ok := err.(*errs.Error)
	if !ok {
		h.Log.ErrorContext(r.Context(), "checkout page failed", "path", r.URL.Path, "err", err)
		h.renderError(w, r, http.StatusInternalServerError, "Something went wrong on our side. Please try again in a moment.")
		return
	}
	status := http.StatusBadRequest
	switch e.Code {
	case errs.NotFound:
		status = http.StatusNotFound
	case errs.Conflict, errs.NotModifiable:
		status = http.StatusConflict
	case errs.ValidationFailure:
		status = http.StatusUnprocessableEntity
	}
	msg := e.Message
	for _, f := range e.Fields {
		msg += " " + f.Message
	}
	h.renderError(w, r, status, msg)
}

// renderError writes the error page.
func (h *Handler) renderError(w http.ResponseWriter, r *http.Request, status int, msg string) {
	h.render(w, r, status, "error", view{Title: "Something is not right", Message: msg})
}
