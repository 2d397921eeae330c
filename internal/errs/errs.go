// Package errs defines bankrail's single error type. Every failure that
// reaches a client carries one of the codes below; the HTTP adapter maps codes
// to status codes in exactly one place (internal/httpapi).
package errs

import (
	"errors"
	"fmt"
	"time"
)

// Code is a machine-readable error code from the service contract.
type Code string

// Error codes. Their HTTP status is decided by the HTTP adapter.
const (
	BadRequest           Code = "BAD_REQUEST"
	MissingHeader        Code = "MISSING_HTTP_HEADER"
	InvalidHeader        Code = "INVALID_HTTP_HEADER"
	MalformedPathParam   Code = "MALFORMED_PATH_PARAM"
	MissingQueryParam    Code = "MISSING_QUERY_PARAM"
	InvalidQueryParam    Code = "INVALID_QUERY_PARAM"
	Unauthorised         Code = "UNAUTHORISED"
	AccessDenied         Code = "ACCESS_DENIED"
	NotFound             Code = "RESOURCE_NOT_FOUND"
	MethodNotSupported   Code = "METHOD_NOT_SUPPORTED"
	Conflict             Code = "CONFLICT"
	IdempotencyConflict  Code = "IDEMPOTENCY_CONFLICT"
	NotModifiable        Code = "RESOURCE_NOT_MODIFIABLE"
	UnsupportedMediaType Code = "UNSUPPORTED_MEDIA_TYPE"
	PayloadTooLarge      Code = "PAYLOAD_TOO_LARGE" // bankrail's own: the contract has no 413
	ValidationFailure    Code = "VALIDATION_FAILURE"
	ReportEmpty          Code = "REPORT_EMPTY"
	TooManyRequests      Code = "TOO_MANY_REQUESTS"
	Unavailable          Code = "SERVICE_UNAVAILABLE" // bankrail's own: the database is lost or refuses for a moment (a failover); with RetryAfter
	Internal             Code = "INTERNAL_SERVER_ERROR"
)

// Validation failure types used in FieldError.Type.
const (
	TooFew          = "TOO_FEW"
	TooMany         = "TOO_MANY"
	TooLow          = "TOO_LOW"
	TooHigh         = "TOO_HIGH"
	TooShort        = "TOO_SHORT"
	TooLong         = "TOO_LONG"
	NotEqual        = "NOT_EQUAL"
	InvalidFormat   = "INVALID_FORMAT"
	InvalidDate     = "INVALID_DATE"
	OutOfRange      = "OUT_OF_RANGE"
	ChecksumFailed  = "CHECKSUM_FAILED"
	NotUnique       = "NOT_UNIQUE"
	ValueRequired   = "VALUE_REQUIRED"
	InvalidValue    = "INVALID_VALUE"
	MissingField    = "MISSING_FIELD"
	FieldNotAllowed = "FIELD_NOT_ALLOWED"
	InvalidType     = "INVALID_TYPE"
)

// FieldError describes one failing field of a request.
type FieldError struct {
	Type         string
	PropertyPath string
	Message      string
}

// Error is the one error type of bankrail. Message is safe to show to
// clients; Cause is for logs only.
type Error struct {
	Code       Code
	Message    string
	Fields     []FieldError
	RetryAfter time.Duration // for TOO_MANY_REQUESTS, SERVICE_UNAVAILABLE and in-flight conflicts
	Cause      error
}

// Error implements error.
func (e *Error) Error() string {
	if e.Cause != nil {
		return fmt.Sprintf("%s: %s: %v", e.Code, e.Message, e.Cause)
	}
	return fmt.Sprintf("%s: %s", e.Code, e.Message)
}

// Unwrap returns the internal cause.
func (e *Error) Unwrap() error { return e.Cause }

// E builds an Error with a formatted message.
func E(code Code, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// Wrap builds an Error that keeps cause for logs.
func Wrap(code Code, cause error, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...), Cause: cause}
}

// CodeOf returns the code of err, or Internal when err is not an *Error.
func CodeOf(err error) Code {
	var e *Error
	if errors.As(err, &e) {
		return e.Code
	}
	return Internal
}

// Is reports whether err carries code.
func Is(err error, code Code) bool { return err != nil && CodeOf(err) == code }

// NotFoundf is a shorthand for a RESOURCE_NOT_FOUND error.
func NotFoundf(format string, args ...any) *Error { return E(NotFound, format, args...) }
