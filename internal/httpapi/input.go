package httpapi

import (
	"bytes"
	"io"
	"mime"
	"net/http"
	"net/url"
	"strings"
	"unicode/utf8"

	"github.com/bankrail/bankrail/internal/errs"
)

// withCleanInput refuses, before any route sees it, a request whose string
// inputs hold a NUL character or invalid UTF-8: the path, the query, the
// headers and a JSON or form body. PostgreSQL cannot store either in TEXT
// (a query with one fails), and no field of the API needs them. This is
// the one place that checks; handlers may assume clean strings.
func (s *Server) withCleanInput(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		err := checkInput(r, s.maxBody)
		if err == nil {
			next.ServeHTTP(w, r)
			return
		}
		if strings.HasPrefix(r.URL.Path, "/legacy/") {
			r = asLegacy(w, r)
		}
		s.writeError(w, r, err)
	})
}

// checkInput checks every string input of r (see withCleanInput). A body
// within limit is read and put back for the handler; a larger one is left
// to the handler, which refuses it.
func checkInput(r *http.Request, limit int64) error {
	if !clean(r.URL.Path) {
		return errs.E(errs.MalformedPathParam, "The path holds a NUL character or invalid UTF-8.")
	}
	query, _ := url.ParseQuery(r.URL.RawQuery) // malformed escapes are the handlers' concern, as before
	if name, ok := cleanValues(query); !ok {
		return errs.E(errs.InvalidQueryParam, "Query parameter %q holds a NUL character or invalid UTF-8.", name)
	}
	if name, ok := cleanValues(url.Values(r.Header)); !ok {
		return errs.E(errs.InvalidHeader, "Header %q holds a NUL character or invalid UTF-8.", name)
	}
	return checkBody(r, limit)
}

// checkBody checks a JSON (or undeclared) or form encoded body.
func checkBody(r *http.Request, limit int64) error {
	if r.Body == nil || r.Body == http.NoBody {
		return nil
	}
	mt, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type"))
	form := mt == "application/x-www-form-urlencoded"
	if !form && mt != "" && mt != "application/json" && !strings.HasSuffix(mt, "+json") {
		return nil // refused as 415 by the handler, or not a string input (an image, ...)
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, limit+1))
	r.Body = struct {
		io.Reader
		io.Closer
	}{io.MultiReader(bytes.NewReader(body), r.Body), r.Body}
	if err != nil || int64(len(body)) > limit {
		return nil // the handler reports the failed read or the size
	}
	if !utf8.Valid(body) {
		return errs.E(errs.BadRequest, "The request body is not valid UTF-8.")
	}
	if form {
		values, _ := url.ParseQuery(string(body))
		if name, ok := cleanValues(values); !ok {
			return errs.E(errs.BadRequest, "Form field %q holds a NUL character or invalid UTF-8.", name)
		}
		return nil
	}
	if jsonHoldsNUL(body) {
		return errs.E(errs.BadRequest, "A string of the JSON body holds a NUL character (\\u0000).")
	}
	return nil
}

// cleanValues reports whether every name and value is clean, and else the
// name of the first that is not.
func cleanValues(values url.Values) (string, bool) {
	for name, vs := range values {
		if !clean(name) {
			return name, false // %q in the message escapes it
		}
		for _, v := range vs {
			if !clean(v) {
				return name, false
			}
		}
	}
	return "", true
}

// clean reports whether s is valid UTF-8 without a NUL character.
func clean(s string) bool { return utf8.ValidString(s) && strings.IndexByte(s, 0) < 0 }

// jsonHoldsNUL reports whether a JSON text holds a NUL byte or the escape
// \u0000. A backslash appears only inside strings in valid JSON, so every
// escape is skipped as a whole (\\u0000 is a backslash and "u0000"); an
// invalid text is the decoder's to refuse.
func jsonHoldsNUL(b []byte) bool {
	for i := 0; i < len(b); i++ {
		switch b[i] {
		case 0:
			return true
		case '\\':
			if i+5 < len(b) && b[i+1] == 'u' && string(b[i+2:i+6]) == "0000" {
				return true
			}
			i++ // the escaped character
		}
	}
	return false
}
