package httpapi_test

import (
	"io"
	"net/http"
	"regexp"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"

	"github.com/bankrail/bankrail/api"
	"github.com/bankrail/bankrail/internal/apptest"
)

// The start page is HTML: let the OpenAPI check read it as a string.
func init() {
	openapi3filter.RegisterBodyDecoder("text/html", func(body io.Reader, _ http.Header, _ *openapi3.SchemaRef, _ openapi3filter.EncodingFn) (any, error) {
		b, err := io.ReadAll(body)
		return string(b), err
	})
}

// browserAccept is what a browser asks for when it opens a page.
const browserAccept = "text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,*/*;q=0.8"

// reference matches the address of every resource or link of a page.
var reference = regexp.MustCompile(`(?:href|src|action)="([^"]*)"`)

// repositoryDocs is where the start page links the documentation: the
// repository's files, as bankrail does not serve them.
const repositoryDocs = "https://github.com/bankrail/bankrail/blob/main/"

// TestStartPageForAPerson: GET / is a page in the checkout's style, with no
// script and nothing from another origin, that links the OpenAPI document
// and the docs (the repository's files: they are not served). In production it offers nothing else; in a sandbox without
// the demo merchant it says how to create payments instead.
func TestStartPageForAPerson(t *testing.T) {
	t.Parallel()
	for _, mode := range []string{"sandbox", "production"} {
		t.Run(mode, func(t *testing.T) {
			t.Parallel()
			var opts []apptest.Option
			if mode == "production" {
				opts = append(opts, apptest.Production)
			}
			env := apptest.New(t, opts...)
			resp := env.Do(t, apptest.Request{Method: "GET", Path: "/", Header: map[string]string{"Accept": browserAccept}})
			page := string(resp.Body)
			if resp.Status != http.StatusOK || resp.Header.Get("Content-Type") != "text/html; charset=utf-8" {
				t.Fatalf("GET /: %d %s\n%s", resp.Status, resp.Header.Get("Content-Type"), page)
			}
			csp := resp.Header.Get("Content-Security-Policy")
			if !strings.Contains(csp, "default-src 'none'") || !strings.Contains(csp, "style-src 'self'") || resp.Header.Get("Vary") != "Accept" {
				t.Errorf("headers: CSP %q, Vary %q", csp, resp.Header.Get("Vary"))
			}
			for _, want := range []string{`name="viewport"`, `href="/checkout/static/checkout.css"`, `href="/openapi.json"`,
				`href="/legacy/migration-guide"`, `href="` + repositoryDocs + `README.md"`, `href="` + repositoryDocs + `docs/payments.md"`,
				`href="` + repositoryDocs + `docs/operations.md"`, `href="` + repositoryDocs + `docs/sdk.md"`} {
				if !strings.Contains(page, want) {
					t.Errorf("the page lacks %s", want)
				}
			}
			if strings.Contains(page, "<script") || strings.Contains(page, "style=") {
				t.Error("the page has a script or an inline style")
			}
			for _, m := range reference.FindAllStringSubmatch(page, -1) {
				if !strings.HasPrefix(m[1], "/") && !strings.HasPrefix(m[1], "#") && m[1] != "data:," && !strings.HasPrefix(m[1], repositoryDocs) {
					t.Errorf("the page refers to %q, outside this instance and the repository's docs", m[1])
				}
			}
			if css := env.Do(t, apptest.Request{Method: "GET", Path: "/checkout/static/checkout.css", SkipSpec: true}); css.Status != http.StatusOK {
				t.Errorf("its stylesheet: %d", css.Status)
			}
			switch mode {
			case "production":
				if strings.Contains(page, "<form") || strings.Contains(page, "/sandbox/") || strings.Contains(page, "Sandbox") {
					t.Errorf("production offers more than the docs:\n%s", page)
				}
			case "sandbox":
				if strings.Contains(page, "<form") || !strings.Contains(page, "no demo merchant") {
					t.Errorf("a sandbox with a seed file has no demo merchant to act for:\n%s", page)
				}
			}
			// Only "/" itself: other paths stay JSON 404s.
			env.Do(t, apptest.Request{Method: "GET", Path: "/index.html", Header: map[string]string{"Accept": browserAccept}}).Error(t, http.StatusNotFound, "RESOURCE_NOT_FOUND")
			// Without the demo merchant (seed file) or in production, no demo payment.
			env.Do(t, apptest.Request{Method: "POST", Path: "/sandbox/demo-payment"}).Error(t, http.StatusNotFound, "RESOURCE_NOT_FOUND")
		})
	}
}

// TestStartPageNegotiatesJSON: a client that prefers JSON gets the index
// of the same links; anything else gets the page.
func TestStartPageNegotiatesJSON(t *testing.T) {
	t.Parallel()
	env := apptest.New(t)
	tests := []struct {
		accept string
		json   bool
	}{
		{"", false},
		{"*/*", false},
		{browserAccept, false},
		{"text/*", false},
		{"image/png", false},
		{"application/json", true},
		{"application/*", true},
		{"application/json, text/html;q=0.9", true},
		{"text/html;q=0.4, application/json;q=0.5", true},
		{"application/json;q=0.5, text/html", false},
		{"application/json;q=0.8, */*;q=0.9", false}, // the page's 0.9 (through */*) beats 0.8
	}
	for _, tt := range tests {
		resp := env.Do(t, apptest.Request{Method: "GET", Path: "/", Header: map[string]string{"Accept": tt.accept}})
		gotJSON := strings.HasPrefix(resp.Header.Get("Content-Type"), "application/json")
		if resp.Status != http.StatusOK || gotJSON != tt.json {
			t.Errorf("Accept %q: %d %s, want JSON %v", tt.accept, resp.Status, resp.Header.Get("Content-Type"), tt.json)
		}
	}
	var idx api.HomeIndex
	env.Do(t, apptest.Request{Method: "GET", Path: "/", Header: map[string]string{"Accept": "application/json"}}).JSON(t, &idx)
	if idx.Name != "bankrail" || idx.Mode != api.HomeModeSandbox || idx.Links.Openapi != "/openapi.json" || idx.Links.DemoPayment != nil || idx.Version == nil ||
		idx.Links.Dashboard == nil || *idx.Links.Dashboard != "/dashboard/" {
		t.Errorf("sandbox index %+v", idx)
	}
	prod := apptest.New(t, apptest.Production)
	idx = api.HomeIndex{}
	prod.Do(t, apptest.Request{Method: "GET", Path: "/", Header: map[string]string{"Accept": "application/json"}}).JSON(t, &idx)
	if idx.Mode != api.HomeModeProduction || idx.Links.Openapi != "/openapi.json" || idx.Links.DemoPayment != nil || idx.Version != nil {
		t.Errorf("production index %+v", idx)
	}
}
