package apptest

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"sync"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
	"github.com/getkin/kin-openapi/routers/gorillamux"

	"github.com/bankrail/bankrail/api"
)

var (
	specOnce   sync.Once
	specRouter routers.Router
	specDoc    *openapi3.T
	specServer *url.URL
	specErr    error
)

// textBody decodes a text response (Markdown, JavaScript) as a string, for
// the schema check.
func textBody(body io.Reader, _ http.Header, _ *openapi3.SchemaRef, _ openapi3filter.EncodingFn) (any, error) {
	b, err := io.ReadAll(body)
	return string(b), err
}

func loadSpec() {
	for _, ct := range []string{"text/markdown", "text/javascript", "text/html", "text/css", "application/x-ndjson", "application/xml", "text/xml"} {
		openapi3filter.RegisterBodyDecoder(ct, textBody)
	}
	loader := openapi3.NewLoader()
	doc, err := loader.LoadFromData(api.YAML)
	if err != nil {
		specErr = fmt.Errorf("load openapi.yaml: %w", err)
		return
	}
	if err := doc.Validate(context.Background()); err != nil {
		specErr = fmt.Errorf("openapi.yaml is not a valid OpenAPI document: %w", err)
		return
	}
	specDoc = doc
	specServer, _ = url.Parse(doc.Servers[0].URL)
	specRouter, specErr = gorillamux.NewRouter(doc)
}

// CheckAgainstSpec fails the test when an exchange does not match the
// OpenAPI document: an undocumented endpoint or status, a missing header, a
// response body that breaks its schema, or a request the server accepted
// although the document forbids it (parameters, headers, body). Every
// Env.Do calls it, so documentation and behaviour cannot drift. Answers to
// unknown routes (404, 405) are skipped.
//
// Which requests are checked: every request whose answer is not a 4xx. A
// 4xx answer means the server refused the request, so a request the
// document forbids is then agreement, not a mismatch; this is how tests
// send invalid input on purpose without marking it. Every request the
// server accepted (2xx, 3xx) or failed on (5xx) must be valid by the
// document: a server more lenient than its document is caught. (A server
// stricter than its document shows as a 4xx that a test did not expect.)
func CheckAgainstSpec(t testing.TB, req *http.Request, resp *Response) {
	t.Helper()
	checkSpec(t, req, resp, true)
}

// CheckResponseAgainstSpec is CheckAgainstSpec without the request check,
// for a request a test sends outside the document on purpose
// (Request.OffSpec).
func CheckResponseAgainstSpec(t testing.TB, req *http.Request, resp *Response) {
	t.Helper()
	checkSpec(t, req, resp, false)
}

// checkSpec checks the exchange; the request too when checkReq is set and
// the answer is not a 4xx (see CheckAgainstSpec).
func checkSpec(t testing.TB, req *http.Request, resp *Response, checkReq bool) {
	t.Helper()
	for _, err := range SpecMismatches(req, resp, checkReq) {
		t.Error(err)
	}
}

// Spec is the OpenAPI document as the checks load it (validated once), for
// tests that walk its operations.
func Spec() (*openapi3.T, error) {
	specOnce.Do(loadSpec)
	return specDoc, specErr
}

// SpecMismatches is what CheckAgainstSpec reports, as errors, for tests
// that decide themselves how to fail (a property test's case).
func SpecMismatches(req *http.Request, resp *Response, checkReq bool) []error {
	specOnce.Do(loadSpec)
	if specErr != nil {
		return []error{specErr}
	}
	routed := req.Clone(context.Background())
	routed.URL.Scheme, routed.URL.Host, routed.Host = specServer.Scheme, specServer.Host, specServer.Host
	route, params, err := specRouter.FindRoute(routed)
	if err != nil {
		if resp.Status == http.StatusNotFound || resp.Status == http.StatusMethodNotAllowed {
			return nil
		}
		return []error{fmt.Errorf("OpenAPI: %s %s answered %d but is not documented in api/openapi.yaml: %w", req.Method, req.URL.Path, resp.Status, err)}
	}
	opts := &openapi3filter.Options{IncludeResponseStatus: true, MultiError: true,
		AuthenticationFunc: openapi3filter.NoopAuthenticationFunc}
	reqIn := &openapi3filter.RequestValidationInput{Request: routed, PathParams: params, Route: route, Options: opts}
	var errs []error
	if checkReq && (resp.Status < 400 || resp.Status >= 500) {
		if err := RequestMismatch(req, reqIn); err != nil {
			errs = append(errs, fmt.Errorf("OpenAPI: request %s %s (answered %d) does not match api/openapi.yaml: %w", req.Method, req.URL.Path, resp.Status, err))
		}
	}
	in := &openapi3filter.ResponseValidationInput{
		RequestValidationInput: reqIn,
		Status:                 resp.Status,
		Header:                 resp.Header,
		Options:                opts,
	}
	in.SetBodyBytes(resp.Body)
	if err := openapi3filter.ValidateResponse(context.Background(), in); err != nil {
		errs = append(errs, fmt.Errorf("OpenAPI: response to %s %s (%d) does not match api/openapi.yaml: %w\nbody: %s", req.Method, req.URL.Path, resp.Status, err, resp.Body))
	}
	return errs
}

// RequestMismatch validates req (its parameters, headers and body) against
// the document: nil when it matches. in is req routed in the document, or
// nil to route it here. The body is read again through GetBody, which
// http.NewRequest sets for in-memory bodies.
func RequestMismatch(req *http.Request, in *openapi3filter.RequestValidationInput) error {
	specOnce.Do(loadSpec)
	if specErr != nil {
		return specErr
	}
	if in == nil {
		routed := req.Clone(context.Background())
		routed.URL.Scheme, routed.URL.Host, routed.Host = specServer.Scheme, specServer.Host, specServer.Host
		route, params, err := specRouter.FindRoute(routed)
		if err != nil {
			return fmt.Errorf("not an operation of the document: %w", err)
		}
		in = &openapi3filter.RequestValidationInput{Request: routed, PathParams: params, Route: route,
			Options: &openapi3filter.Options{MultiError: true, AuthenticationFunc: openapi3filter.NoopAuthenticationFunc}}
	}
	if req.GetBody != nil {
		body, err := req.GetBody()
		if err != nil {
			return fmt.Errorf("read the request body again: %w", err)
		}
		in.Request.Body = body
	}
	return openapi3filter.ValidateRequest(context.Background(), in)
}
