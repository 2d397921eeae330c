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

	"bankrail/api"
)

var (
	specOnce   sync.Once
	specRouter routers.Router
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
	for _, ct := range []string{"text/markdown", "text/javascript"} {
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
	specServer, _ = url.Parse(doc.Servers[0].URL)
	specRouter, specErr = gorillamux.NewRouter(doc)
}

// CheckAgainstSpec fails the test when a response does not match the OpenAPI
// document: an undocumented endpoint or status, a missing header, or a body
// that breaks its schema. Every Env.Do calls it, so documentation and
// behaviour cannot drift. Answers to unknown routes (404, 405) are skipped.
func CheckAgainstSpec(t testing.TB, req *http.Request, resp *Response) {
	t.Helper()
	specOnce.Do(loadSpec)
	if specErr != nil {
		t.Fatal(specErr)
	}
	routed := req.Clone(context.Background())
	routed.URL.Scheme, routed.URL.Host, routed.Host = specServer.Scheme, specServer.Host, specServer.Host
	route, params, err := specRouter.FindRoute(routed)
	if err != nil {
		if resp.Status == http.StatusNotFound || resp.Status == http.StatusMethodNotAllowed {
			return
		}
		t.Errorf("OpenAPI: %s %s answered %d but is not documented in api/openapi.yaml: %v", req.Method, req.URL.Path, resp.Status, err)
		return
	}
	opts := &openapi3filter.Options{IncludeResponseStatus: true, MultiError: true, ExcludeRequestBody: true,
		AuthenticationFunc: openapi3filter.NoopAuthenticationFunc}
	in := &openapi3filter.ResponseValidationInput{
		RequestValidationInput: &openapi3filter.RequestValidationInput{Request: routed, PathParams: params, Route: route, Options: opts},
		Status:                 resp.Status,
		Header:                 resp.Header,
		Options:                opts,
	}
	in.SetBodyBytes(resp.Body)
	if err := openapi3filter.ValidateResponse(context.Background(), in); err != nil {
		t.Errorf("OpenAPI: response to %s %s (%d) does not match api/openapi.yaml: %v\nbody: %s", req.Method, req.URL.Path, resp.Status, err, resp.Body)
	}
}
