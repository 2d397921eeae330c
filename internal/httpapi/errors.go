package httpapi

import (
	"errors"
	"fmt"
	"math"
	"net/http"
	"strconv"
	"time"

	"github.com/bankrail/bankrail/api"
	"github.com/bankrail/bankrail/internal/errs"
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
	case errs.PayloadTooLarge:
		return http.StatusRequestEntityTooLarge
	case errs.ValidationFailure, errs.ReportEmpty:
		return http.StatusUnprocessableEntity
	case errs.TooManyRequests:
		return http.StatusTooManyRequests
	case errs.Unavailable:
		return http.StatusServiceUnavailable
	default:
		return http.StatusInternalServerError
	}
}

// writeError writes err in the shape of the API the route belongs to.
// Internal errors are logged with the request's trace id; the client sees
// only the trace id and a timestamp.
func (s *Server) writeError(w http.ResponseWriter, r *http.Request, err error) {
	err = s.unavailable(err)
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
	switch errorShapeOf(r.Context()) {
	case legacyTokenShape:
		body := legacyErrorOf(status, e)
		writeJSON(w, status, api.LegacyTokenError{Code: body.Exception.Code, Message: body.Exception.Message, Exception: body.Exception})
	case legacyShape:
		writeJSON(w, status, legacyErrorOf(status, e))
	default:
		writeJSON(w, status, errorOf(e))
	}
}

// errorOf is the Global API error body of e; errors is left out when no
// field failed.
func errorOf(e *errs.Error) api.Error {
	body := api.Error{Code: api.ErrorCode(e.Code), Message: e.Message}
	if len(e.Fields) > 0 {
		fields := make([]api.FieldError, 0, len(e.Fields))
		for _, f := range e.Fields {
			fields = append(fields, api.FieldError{Type: api.FieldErrorType(f.Type), PropertyPath: f.PropertyPath, Message: f.Message})
		}
		body.Errors = &fields
	}
	return body
}

// legacyErrorOf is the legacy Payments API error body of e, answered with
// status. The legacy token endpoint answers its exception with its code
// and message beside it (api.LegacyTokenError): the shape the provider's
// token endpoint has, which clients of the legacy API parse.
func legacyErrorOf(status int, e *errs.Error) api.LegacyError {
	body := api.LegacyError{Exception: api.LegacyException{Code: int64(status), Message: legacyMessage(e), ErrorList: []api.LegacyFieldError{}}}
	for _, f := range e.Fields {
		body.Exception.ErrorList = append(body.Exception.ErrorList, api.LegacyFieldError{Property: f.PropertyPath, Message: f.Message})
	}
	return body
}

// legacyMessage follows the legacy API's wording for validation failures.
func legacyMessage(e *errs.Error) string {
	if e.Code == errs.ValidationFailure {
		return "Validation exception"
	}
	return e.Message
}
