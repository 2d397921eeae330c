package httpapi

import (
	"encoding/json"
	"errors"
	"maps"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/bankrail/bankrail/api"
	"github.com/bankrail/bankrail/internal/errs"
)

// missingRequired adds VALUE_REQUIRED for every property that the OpenAPI
// document's schema of t (a generated type of package api, named as its
// schema) requires and body leaves out, at every depth of body. It is used
// only when a body is refused for its nulls, which stops the request before
// the domain's validation runs: so that the answer still names every field
// the document itself requires, not only the nulls. Requirements that
// depend on other fields (openBankingEU when paymentSystem is
// OPEN_BANKING_EU) are the domain's and come with the next answer.
func missingRequired(v *errs.Validation, body any, t reflect.Type) {
	for t != nil && t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t == nil || t.PkgPath() != reflect.TypeFor[api.PaymentCreateRequest]().PkgPath() {
		return
	}
	schemas := documentSchemas()
	if s, ok := schemas[t.Name()]; ok {
		walkRequired(v, "", body, s, schemas, 0)
	}
}

// walkRequired is missingRequired below path for a decoded JSON value x of
// schema s.
func walkRequired(v *errs.Validation, path string, x any, s map[string]any, schemas map[string]map[string]any, depth int) {
	if depth > 16 {
		return // a recursive schema: the body is deeper than any real one
	}
	s = resolve(s, schemas)
	switch x := x.(type) {
	case map[string]any:
		required, props := objectParts(s, schemas)
		for _, name := range required {
			if _, ok := x[name]; !ok {
				p := fieldPath(path, name)
				if !v.HasPath(p) {
					v.Add(errs.ValueRequired, p, "%s is required.", p)
				}
			}
		}
		for _, name := range slices.Sorted(maps.Keys(x)) {
			if ps, ok := props[name]; ok && x[name] != nil {
				walkRequired(v, fieldPath(path, name), x[name], ps, schemas, depth+1)
			}
		}
	case []any:
		items, _ := s["items"].(map[string]any)
		if items == nil {
			return
		}
		for i, e := range x {
			if e != nil {
				walkRequired(v, path+"["+strconv.Itoa(i)+"]", e, items, schemas, depth+1)
			}
		}
	}
}

// objectParts are the required names and the property schemas of an
// object schema, allOf parts merged in.
func objectParts(s map[string]any, schemas map[string]map[string]any) ([]string, map[string]map[string]any) {
	var required []string
	props := map[string]map[string]any{}
	var add func(s map[string]any, depth int)
	add = func(s map[string]any, depth int) {
		if depth > 8 {
			return
		}
		s = resolve(s, schemas)
		for _, r := range asSlice(s["required"]) {
			if name, ok := r.(string); ok && !slices.Contains(required, name) {
				required = append(required, name)
			}
		}
		if ps, ok := s["properties"].(map[string]any); ok {
			for name, p := range ps {
				if pm, ok := p.(map[string]any); ok {
					props[name] = pm
				}
			}
		}
		for _, part := range asSlice(s["allOf"]) {
			if pm, ok := part.(map[string]any); ok {
				add(pm, depth+1)
			}
		}
	}
	add(s, 0)
	return required, props
}

// resolve follows a schema's $ref to the named component schema.
func resolve(s map[string]any, schemas map[string]map[string]any) map[string]any {
	for range 8 {
		ref, ok := s["$ref"].(string)
		if !ok {
			return s
		}
		target, ok := schemas[strings.TrimPrefix(ref, "#/components/schemas/")]
		if !ok {
			return s
		}
		s = target
	}
	return s
}

// documentSchemas are the component schemas of the embedded OpenAPI
// document, by name, read once (empty if the document cannot be read: the
// answer then names only the nulls).
var documentSchemas = sync.OnceValue(func() map[string]map[string]any {
	out := map[string]map[string]any{}
	raw, err := api.JSON()
	if err != nil {
		return out
	}
	var doc struct {
		Components struct {
			Schemas map[string]map[string]any `json:"schemas"`
		} `json:"components"`
	}
	if json.Unmarshal(raw, &doc) == nil && doc.Components.Schemas != nil {
		out = doc.Components.Schemas
	}
	return out
})

// asSlice is x as a JSON array, or nil.
func asSlice(x any) []any {
	s, _ := x.([]any)
	return s
}

// fieldPath is a JSON path of name below path.
func fieldPath(path, name string) string {
	if path == "" {
		return name
	}
	return path + "." + name
}

// nullsRefused is a body refused for its nulls (refuseNulls). The body was
// decoded all the same, each null left as an absent field, so a check of
// the domain that writes nothing can still add what it finds (withCheck).
type nullsRefused struct{ refusal *errs.Error }

// Error implements error.
func (e *nullsRefused) Error() string { return e.refusal.Error() }

// Unwrap gives the VALIDATION_FAILURE to the one place that maps errors.
func (e *nullsRefused) Unwrap() error { return e.refusal }

// withCheck adds to a body's refusal for its nulls the field errors of
// check, a validation of the decoded body that writes nothing (such as
// payment.Service.Check), so that one answer names the nulls and every
// field the domain finds missing or wrong. Any other err is returned as is.
func withCheck(err error, check func() error) error {
	nr, ok := err.(*nullsRefused)
	if !ok {
		return err
	}
	var more *errs.Error
	if !errors.As(check(), &more) || more.Code != errs.ValidationFailure {
		return err
	}
	out := *nr.refusal
	out.Fields = slices.Clone(out.Fields)
	for _, f := range more.Fields {
		if !slices.ContainsFunc(out.Fields, func(g errs.FieldError) bool { return covers(g.PropertyPath, f.PropertyPath) }) {
			out.Fields = append(out.Fields, f)
		}
	}
	return &out
}

// covers reports whether an error at path already speaks for one at p: the
// same field, or a field inside it (a null list item's own fields).
func covers(path, p string) bool {
	return p == path || strings.HasPrefix(p, path+".") || strings.HasPrefix(p, path+"[")
}
