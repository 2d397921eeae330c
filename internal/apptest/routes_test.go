package apptest_test

import (
	"io"
	"net/http"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/bankrail/bankrail/api"
	"github.com/bankrail/bankrail/internal/apptest"
)

// pagePrefixes are the payer's HTML pages, served below these prefixes by
// the pages' own router; their operations are documented (tag Payer pages).
// /dashboard/ is the web console (internal/dashboard): pages for people,
// with no operation in the API document. /xs2a/ is the sandbox's mock ASPSP
// (internal/xs2a/aspsp), documented by the official NextGenPSD2 document,
// not by api/openapi.yaml.
var pagePrefixes = []string{"/checkout/", "/mock-banks/", "/dashboard/", "/xs2a/"}

// unroutedPage is what the pages' router answers for a path or method it
// does not route (internal/checkout).
const unroutedPage = "This page does not exist."

// pathParam matches a path parameter, whatever its name.
var pathParam = regexp.MustCompile(`\{[^}]*\}`)

// operationKey is "METHOD /path" with every path parameter written {}.
func operationKey(method, path string) string {
	return method + " " + pathParam.ReplaceAllString(path, "{}")
}

// TestEveryRouteIsDocumentedAndEveryOperationServed compares the routes the
// server registers (sandbox mode: every optional part is on) with the
// operations of api/openapi.yaml, both ways. Below a prefix (the payer's
// pages) the pages route themselves: every documented operation below it
// is requested (ids that name nothing) and must reach a page, not the
// router's "page does not exist"; a prefix must be one of pagePrefixes.
func TestEveryRouteIsDocumentedAndEveryOperationServed(t *testing.T) {
	env := apptest.New(t)
	lister, ok := env.App.Handler().(interface{ Routes() []string })
	if !ok {
		t.Fatalf("the handler %T does not list its routes", env.App.Handler())
	}
	doc, err := openapi3.NewLoader().LoadFromData(api.YAML)
	if err != nil {
		t.Fatal(err)
	}
	documented := map[string]bool{}
	for path, item := range doc.Paths.Map() {
		for method := range item.Operations() {
			documented[operationKey(method, path)] = true
		}
	}
	served := map[string]bool{}
	var prefixes []string
	for _, pattern := range lister.Routes() {
		method, path, ok := strings.Cut(pattern, " ")
		if !ok { // a prefix of pages: "/checkout/"
			prefixes = append(prefixes, pattern)
			continue
		}
		key := operationKey(method, path)
		served[key] = true
		if !documented[key] {
			t.Errorf("%s is served but is not an operation of api/openapi.yaml", pattern)
		}
	}
	for _, prefix := range prefixes {
		if !slices.Contains(pagePrefixes, prefix) {
			t.Errorf("%s is served (a prefix) but is not one of the HTML page prefixes %v", prefix, pagePrefixes)
			continue
		}
		for key := range documented {
			method, path, _ := strings.Cut(key, " ")
			if !strings.HasPrefix(path, prefix) {
				continue
			}
			if routedPage(t, env, method, strings.ReplaceAll(path, "{}", "00000000-0000-4000-8000-00000000dead")) {
				served[key] = true
			}
		}
	}
	for key := range documented {
		if !served[key] {
			t.Errorf("api/openapi.yaml documents %s but the server does not serve it", key)
		}
	}
	for _, prefix := range pagePrefixes {
		if !slices.Contains(prefixes, prefix) {
			t.Errorf("the page prefix %s is exempted but no longer served: remove it from pagePrefixes", prefix)
		}
	}
}

// routedPage reports whether the pages' router routes method and path (the
// page may still answer 4xx for the unknown payment).
func routedPage(t *testing.T, env *apptest.Env, method, path string) bool {
	t.Helper()
	req, err := http.NewRequest(method, env.URL+path, strings.NewReader(""))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	client := *env.Server.Client() // a copy: the Env's client follows redirects
	client.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	resp, err := client.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return !(resp.StatusCode == http.StatusNotFound && strings.Contains(string(body), unroutedPage)) && resp.StatusCode != http.StatusMethodNotAllowed
}
