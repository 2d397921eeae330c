package apptest

import (
	"net/http"
	"testing"

	"github.com/bankrail/bankrail/api"
)

// LegacyError is the legacy API's error body (api.LegacyError).
type LegacyError api.LegacyError

// Properties lists the property of every entry of errorList.
func (e LegacyError) Properties() []string {
	out := []string{}
	for _, f := range e.Exception.ErrorList {
		out = append(out, f.Property)
	}
	return out
}

// LegacyError decodes the body as a legacy error, failing the test unless
// the status matches, exception.code repeats it, a message is given and the
// deprecation headers are present.
func (r *Response) LegacyError(t testing.TB, status int) LegacyError {
	t.Helper()
	var e LegacyError
	r.JSON(t, &e)
	if r.Status != status || e.Exception.Code != int64(status) || e.Exception.Message == "" {
		t.Fatalf("got %d %s, want a legacy error %d", r.Status, r.Body, status)
	}
	CheckDeprecated(t, r.Header)
	return e
}

// CheckDeprecated fails the test unless h carries the legacy API's
// deprecation headers.
func CheckDeprecated(t testing.TB, h http.Header) {
	t.Helper()
	if h.Get("Deprecation") != "@1735689600" || h.Get("Sunset") != "Wed, 31 Dec 2025 23:59:59 GMT" ||
		h.Get("Link") == "" {
		t.Fatalf("deprecation headers missing: %v", h)
	}
}
