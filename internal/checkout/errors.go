package checkout

import (
	"errors"
	"math"
	"net/http"
	"strconv"

	"github.com/bankrail/bankrail/internal/errs"
)

// fail renders err as an error page: the messages of errs.Error are meant
// for people; anything else is logged and shown as a generic failure. A
// database that is away for a moment (SERVICE_UNAVAILABLE) is 503 with
// its Retry-After.
func (h *Handler) fail(w http.ResponseWriter, r *http.Request, err error) {
	var e *errs.Error
	if !errors.As(err, &e) || e.Code == errs.Internal {
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
	case errs.Unavailable:
		status = http.StatusServiceUnavailable
		w.Header().Set("Retry-After", strconv.Itoa(max(1, int(math.Ceil(e.RetryAfter.Seconds())))))
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
