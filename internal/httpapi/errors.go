package httpapi

import (
	"errors"
	"fmt"
	"math"
	"net/http"
	"strconv"
	"time"

	"bankrail/internal/errs"
)

// statusOf is the one place where error codes become HTTP status codes.
func statusOf(code errs.Code) int {
	switch code {
	case errs.BadRequest, errs.MissingHeader, errs.InvalidHeader, errs.MalformedPathParam,
		errs.MissingQueryParam, errs.InvalidQueryParam:
		return http.StatusBadRequest
	case errs.Unauthorised:
		return http.StatusUnauthorized
	case errs.AccessDenied:
		return http.StatusForbidden
	case errs.NotFound:
		return http.StatusNotFound
	case errs.MethodNotSupported:
		return http.StatusMethodNotAllowed
	case errs.Conflict, errs.IdempotencyConflict, errs.NotModifiable:
		return http.StatusConflict
	case errs.UnsupportedMediaType:
		return http.StatusUnsupportedMediaType
	case errs.ValidationFailure, errs.ReportEmpty:
		return http.StatusUnprocessableEntity
	case errs.TooManyRequests:
		return http.StatusTooManyRequests
	default:
		return http.StatusInternalServerError
	}
}

// errorBody is the Global API error shape.
type errorBody struct {
	Code    errs.Code         `json:"code"`
	Message string            `json:"message"`
	Errors  []errs.FieldError `json:"errors,omitempty"`
}

// legacyErrorBody is the legacy Payments API error shape.
type legacyErrorBody struct {
	Exception legacyException `json:"exception"`
}

type legacyException struct {
	Code      int                `json:"code"`
	Message   string             `json:"message"`
	ErrorList []legacyFieldError `json:"errorList"`
}

type legacyFieldError struct {
	Property string `json:"property"`
	Message  string `json:"message"`
}

// writeError writes err in the shape of the API the route belongs to.
// Internal errors are logged with the request's trace id; the client sees
// only the trace id and a timestamp.
func (s *Server) writeError(w http.ResponseWriter, r *http.Request, err error) {
	var e *errs.Error
	if !errors.As(err, &e) || e.Code == errs.Internal {
		traceID := requestIDFrom(r.Context())
		s.log.ErrorContext(r.Context(), "internal error", "trace_id", traceID, "method", r.Method, "path", r.URL.Path, "err", err)
		e = &errs.Error{Code: errs.Internal, Message: fmt.Sprintf(
			"An internal error occurred (trace id %s, at %s). Retry later, or contact support with the trace id.",
			traceID, s.clock.Now().Format(time.RFC3339))}
	}
	status := statusOf(e.Code)
	if e.RetryAfter > 0 {
		w.Header().Set("Retry-After", strconv.Itoa(int(math.Ceil(e.RetryAfter.Seconds()))))
	}
	if status == http.StatusUnauthorized {
		w.Header().Set("WWW-Authenticate", `Bearer realm="bankrail"`)
	}
	if isLegacy(r.Context()) {
		body := legacyErrorBody{Exception: legacyException{Code: status, Message: legacyMessage(e), ErrorList: []legacyFieldError{}}}
		for _, f := range e.Fields {
			body.Exception.ErrorList = append(body.Exception.ErrorList, legacyFieldError{Property: f.PropertyPath, Message: f.Message})
		}
		writeJSON(w, status, body)
		return
	}
	writeJSON(w, status, errorBody{Code: e.Code, Message: e.Message, Errors: e.Fields})
}

// legacyMessage follows the legacy API's wording for validation failures.
func legacyMessage(e *errs.Error) string {
	if e.Code == errs.ValidationFailure {
		return "Validation exception"
	}
	return e.Message
}
