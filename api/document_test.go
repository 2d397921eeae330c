package api_test

import (
	"testing"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/bankrail/bankrail/api"
	"github.com/bankrail/bankrail/internal/iso"
)

// load reads the document with kin-openapi.
func load(t *testing.T) *openapi3.T {
	t.Helper()
	doc, err := openapi3.NewLoader().LoadFromData(api.YAML)
	if err != nil {
		t.Fatalf("load openapi.yaml: %v", err)
	}
	return doc
}

// TestNoRequestFieldIsNullable backs the server's one rule for null
// (internal/httpapi refuses an explicit null in every known field of every
// JSON body): it holds only while no request body schema of the document
// allows null. A nullable request field needs that rule changed first.
func TestNoRequestFieldIsNullable(t *testing.T) {
	doc := load(t)
	for path, item := range doc.Paths.Map() {
		for method, op := range item.Operations() {
			if op.RequestBody == nil {
				continue
			}
			mt := op.RequestBody.Value.Content.Get("application/json")
			if mt == nil || mt.Schema == nil {
				continue
			}
			seen := map[*openapi3.Schema]bool{}
			var walk func(at string, s *openapi3.Schema)
			walk = func(at string, s *openapi3.Schema) {
				if s == nil || seen[s] {
					return
				}
				seen[s] = true
				if s.IsEmpty() && at != "" {
					return // free-form: anything, null included, is passed on as is
				}
				if s.Nullable || s.Type != nil && s.Type.Includes("null") {
					t.Errorf("%s %s: request field %q allows null; internal/httpapi refuses null in every field", method, path, at)
				}
				for name, p := range s.Properties {
					walk(at+"."+name, p.Value)
				}
				if s.Items != nil {
					walk(at+"[]", s.Items.Value)
				}
				for _, group := range []openapi3.SchemaRefs{s.AllOf, s.AnyOf, s.OneOf} {
					for _, sub := range group {
						walk(at, sub.Value)
					}
				}
			}
			walk("", mt.Schema.Value)
		}
	}
}

// TestCodeListsFollowISO checks that the document's CountryCode and
// CurrencyCode enums are exactly the codes the server accepts (package
// iso): every upper-case two-letter (three-letter) combination is in the
// enum if and only if the server takes it.
func TestCodeListsFollowISO(t *testing.T) {
	doc := load(t)
	enum := func(name string) map[string]bool {
		s := doc.Components.Schemas[name]
		if s == nil {
			t.Fatalf("no schema %s", name)
		}
		out := map[string]bool{}
		for _, v := range s.Value.Enum {
			out[v.(string)] = true
		}
		return out
	}
	countries, currencies := enum("CountryCode"), enum("CurrencyCode")
	var codes func(n int, prefix string, fn func(string))
	codes = func(n int, prefix string, fn func(string)) {
		if n == 0 {
			fn(prefix)
			return
		}
		for c := 'A'; c <= 'Z'; c++ {
			codes(n-1, prefix+string(c), fn)
		}
	}
	codes(2, "", func(c string) {
		if iso.IsCountry(c) != countries[c] {
			t.Errorf("country %s: the server takes it %v, the document lists it %v", c, iso.IsCountry(c), !iso.IsCountry(c))
		}
	})
	codes(3, "", func(c string) {
		_, ok := iso.CurrencyOf(c)
		if ok != currencies[c] {
			t.Errorf("currency %s: the server takes it %v, the document lists it %v", c, ok, !ok)
		}
	})
}
