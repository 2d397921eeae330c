package client

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/bankrail/bankrail/api"
)

// Error is an answer of bankrail that is not a success: the error shape of
// the contract ({code, message, errors}), the legacy API's shape
// ({exception: {code, message, errorList}}) or, for the payer's pages, an
// HTML error page. Get it with errors.As:
//
//	var e *client.Error
//	if errors.As(err, &e) && e.Code == api.ErrorCodeVALIDATIONFAILURE {
//		for _, f := range e.Fields { fmt.Println(f.PropertyPath, f.Type) }
//	}
type Error struct {
	Operation  string        // operationId of the call, e.g. "createPayment"
	StatusCode int           // HTTP status
	Code       api.ErrorCode // e.g. VALIDATION_FAILURE; empty for the legacy API and HTML pages
	Message    string
	// Fields lists every failing field of a VALIDATION_FAILURE (for the legacy
	// API, its errorList: PropertyPath is the legacy property, Type empty).
	Fields []api.FieldError
	// TraceID is the request's id (the X-Request-Id of the answer): internal
	// errors are logged under it; quote it to support.
	TraceID string
	// RetryAfter is the server's Retry-After, when it sent one (429, or 409
	// while the first request with the same Idempotency-Key is running).
	RetryAfter time.Duration
}

func (e *Error) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "bankrail: %s: %d", e.Operation, e.StatusCode)
	if e.Code != "" {
		fmt.Fprintf(&b, " %s", e.Code)
	}
	if e.Message != "" {
		fmt.Fprintf(&b, ": %s", e.Message)
	}
	for i, f := range e.Fields {
		sep := "; "
		if i == 0 {
			sep = " ("
		}
		fmt.Fprintf(&b, "%s%s", sep, f.PropertyPath)
		if f.Type != "" {
			fmt.Fprintf(&b, " %s", f.Type)
		}
		if f.Message != "" {
			fmt.Fprintf(&b, ": %s", f.Message)
		}
	}
	if len(e.Fields) > 0 {
		b.WriteString(")")
	}
	if e.TraceID != "" {
		fmt.Fprintf(&b, " [trace id %s]", e.TraceID)
	}
	return b.String()
}

// IsCode reports whether err is (or wraps) an *Error with code.
func IsCode(err error, code api.ErrorCode) bool {
	var e *Error
	return errors.As(err, &e) && e.Code == code
}

// StatusCode is the HTTP status of err's *Error, 0 when err is not one
// (a network error, a refused argument).
func StatusCode(err error) int {
	var e *Error
	if errors.As(err, &e) {
		return e.StatusCode
	}
	return 0
}

// errorOf reads an error answer.
func errorOf(op string, status int, h http.Header, body []byte) *Error {
	e := &Error{Operation: op, StatusCode: status, TraceID: h.Get("X-Request-Id"), RetryAfter: retryAfter(h)}
	// The legacy shape first, read alone: the legacy token endpoint puts a
	// numeric code beside its exception (api.LegacyTokenError).
	var legacy struct {
		Exception *api.LegacyException `json:"exception"`
	}
	var global api.Error
	isJSON := strings.Contains(h.Get("Content-Type"), "json")
	switch {
	case isJSON && json.Unmarshal(body, &legacy) == nil && legacy.Exception != nil:
		e.Message = legacy.Exception.Message
		for _, f := range legacy.Exception.ErrorList {
			e.Fields = append(e.Fields, api.FieldError{PropertyPath: f.Property, Message: f.Message})
		}
	case isJSON && json.Unmarshal(body, &global) == nil && global.Code != "":
		e.Code, e.Message = global.Code, global.Message
		if global.Errors != nil {
			e.Fields = *global.Errors
		}
	default:
		e.Message = http.StatusText(status)
	}
	return e
}

// retryAfter reads Retry-After in seconds or as an HTTP date; 0 when absent.
func retryAfter(h http.Header) time.Duration {
	v := h.Get("Retry-After")
	if v == "" {
		return 0
	}
	if s, err := strconv.Atoi(v); err == nil && s >= 0 {
		return time.Duration(s) * time.Second
	}
	if t, err := http.ParseTime(v); err == nil {
		if d := time.Until(t); d > 0 {
			return d
		}
	}
	return 0
}
