package apptest_test

import (
	"net/http"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/bankrail/bankrail/api"
	"github.com/bankrail/bankrail/internal/apptest"
)

// pagePrefixes are the payer's HTML pages, served below these prefixes
// and deliberately not in the API document.
var pagePrefixes = []string{"/checkout/", "/mock-banks/"}

// pathParam matches a path parameter, whatever its name.
var pathParam = regexp.MustCompile(`\{[^}]*\}`)

// operationKey is "METHOD /path" with every path parameter written {}.
func operationKey(method, path string) string {
	return method + " " + pathParam.ReplaceAllString(path, "{}")
}

// TestEveryRouteIsDocumentedAndEveryOperationServed compares the routes the
// server registers (sandbox mode: every optional part is on) with the
// operations of api/openapi.yaml, both ways. A route below a prefix (the
// payer's pages, /js/) counts as served for every GET operation below it;
// a prefix must be one of pagePrefixes or hold documented operations.
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
	below := func(prefix string) []string {
		var ops []string
		for key := range documented {
			if strings.HasPrefix(key, http.MethodGet+" "+prefix) {
				ops = append(ops, key)
			}
		}
		return ops
	}
	for _, prefix := range prefixes {
		if !slices.Contains(pagePrefixes, prefix) && len(below(prefix)) == 0 {
			t.Errorf("%s is served (a prefix) but nothing below it is documented, nor is it one of the HTML page prefixes %v", prefix, pagePrefixes)
		}
		for _, key := range below(prefix) {
			served[key] = true
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
