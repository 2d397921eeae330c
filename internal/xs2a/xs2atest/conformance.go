// Package xs2atest checks exchanges with NextGenPSD2 banks against the
// official Berlin Group document (testdata/berlin-group-psd2-api-1.3.11.yaml,
// an unchanged copy of ../shared/spec/standards/, CC BY 4.0), with
// kin-openapi's openapi3filter: the requests bankrail's connector sends and
// the answers the mock ASPSP gives. For tests only.
package xs2atest

import (
	"bytes"
	"context"
	_ "embed" // the document
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
	"github.com/getkin/kin-openapi/routers/gorillamux"
)

//go:embed testdata/berlin-group-psd2-api-1.3.11.yaml
var document []byte

// server is the document's first server: exchanges are routed below it.
const server = "https://api.testbank.com/psd2"

var (
	once    sync.Once
	router  routers.Router
	doc     *openapi3.T
	loadErr error
)

// formats are the string formats of the document that kin-openapi leaves
// unchecked unless given: uuid (X-Request-ID), ipv4 (PSU-IP-Address) and
// uri (TPP-Redirect-URI), checked for this document only (not globally).
var formats = []openapi3.SchemaValidationOption{openapi3.WithStringFormatValidators(map[string]openapi3.StringFormatValidator{
	"uuid": openapi3.NewRegexpFormatValidator(openapi3.FormatOfStringForUUIDOfRFC9562),
	"ipv4": openapi3.NewIPValidator(true),
	"uri": openapi3.NewCallbackValidator(func(s string) error {
		u, err := url.Parse(s)
		if err != nil || !u.IsAbs() {
			return fmt.Errorf("%q is not an absolute URI", s)
		}
		return nil
	}),
})}

// load reads the document once per test binary. It loads in kin-openapi
// v0.152.0 as published; Validate needs DisableExamplesValidation (the
// document's own examples break its schemas, e.g. Error409_NG_AIS).
func load() {
	loader := openapi3.NewLoader()
	loader.IsExternalRefsAllowed = false
	d, err := loader.LoadFromData(document)
	if err != nil {
		loadErr = fmt.Errorf("load the NextGenPSD2 document: %w", err)
		return
	}
	if err := d.Validate(loader.Context, openapi3.DisableExamplesValidation()); err != nil {
		loadErr = fmt.Errorf("the NextGenPSD2 document is not valid: %w", err)
		return
	}
	doc = d
	router, loadErr = gorillamux.NewRouter(d)
}

// Document is the official document as loaded (for tests that walk it).
func Document() (*openapi3.T, error) {
	once.Do(load)
	return doc, loadErr
}

// Exchange is one request to a bank and its answer. Path is below the
// bank's base URL: /v1/payments/....
type Exchange struct {
	Method        string
	Path          string // with its query
	RequestHeader http.Header
	RequestBody   []byte
	Status        int
	Header        http.Header
	Body          []byte
}

// String names the exchange in failures.
func (e Exchange) String() string { return fmt.Sprintf("%s %s -> %d", e.Method, e.Path, e.Status) }

// Mismatches are the ways e breaks the document: the request (when
// checkRequest) and the response. An exchange outside the document's
// operations is one mismatch.
func Mismatches(e Exchange, checkRequest bool) []error {
	once.Do(load)
	if loadErr != nil {
		return []error{loadErr}
	}
	u, err := url.Parse(server + e.Path)
	if err != nil {
		return []error{fmt.Errorf("%s: %w", e, err)}
	}
	req, err := http.NewRequest(e.Method, u.String(), bytes.NewReader(e.RequestBody))
	if err != nil {
		return []error{fmt.Errorf("%s: %w", e, err)}
	}
	req.Header = e.RequestHeader.Clone()
	route, params, err := router.FindRoute(req)
	if err != nil {
		return []error{fmt.Errorf("%s is not an operation of the NextGenPSD2 document: %w", e, err)}
	}
	opts := &openapi3filter.Options{IncludeResponseStatus: true, MultiError: true, AuthenticationFunc: openapi3filter.NoopAuthenticationFunc,
		SchemaValidationOptions: formats}
	in := &openapi3filter.RequestValidationInput{Request: req, PathParams: params, Route: route, Options: opts}
	var out []error
	if checkRequest {
		if err := openapi3filter.ValidateRequest(context.Background(), in); err != nil {
			out = append(out, fmt.Errorf("request %s does not match the NextGenPSD2 document: %w", e, err))
		}
		req.Body = io.NopCloser(bytes.NewReader(e.RequestBody))
	}
	res := &openapi3filter.ResponseValidationInput{RequestValidationInput: in, Status: e.Status, Header: e.Header, Options: opts}
	res.SetBodyBytes(e.Body)
	if err := openapi3filter.ValidateResponse(context.Background(), res); err != nil {
		out = append(out, fmt.Errorf("answer to %s does not match the NextGenPSD2 document: %w\nbody: %s", e, err, e.Body))
	}
	return out
}

// BankPath is the part of a mock ASPSP path below its bank's base URL
// (/xs2a/{bankId}/v1/... is /v1/...), and false for another path.
func BankPath(path string) (string, bool) {
	rest, ok := strings.CutPrefix(path, "/xs2a/")
	if !ok {
		return "", false
	}
	_, below, ok := strings.Cut(rest, "/")
	if !ok || !strings.HasPrefix(below, "v1/") {
		return "", false
	}
	return "/" + below, true
}

// NoDebtorAccount reports whether err is the one way bankrail's
// initiations knowingly depart from the document: a payment initiation
// without debtorAccount (bankrail does not know the payer's IBAN; the
// bank asks the payer for the account during SCA). The JSON schema of
// 1.3.11 requires it; the Implementation Guidelines let an ASPSP take an
// initiation without it (docs/checkout.md, "NextGenPSD2 banks").
func NoDebtorAccount(e Exchange, err error) bool {
	if e.Method != http.MethodPost || bytes.Contains(e.RequestBody, []byte(`"debtorAccount"`)) {
		return false
	}
	msg := err.Error()
	return strings.HasPrefix(msg, "request ") && strings.Contains(msg, `property "debtorAccount" is missing`) &&
		strings.Count(msg, "doesn't match schema due to") == 1
}
