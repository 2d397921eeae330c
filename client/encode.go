package client

import (
	"fmt"
	"net/http"
	"net/url"
	"reflect"
	"strconv"
	"strings"
	"time"
)

// expand fills the path template's parameters, in order, with values. An
// empty value is refused here: "/payments/" + "" would name another
// operation.
func expand(template string, values []string) (string, error) {
	var b strings.Builder
	rest := template
	for i := 0; ; i++ {
		open := strings.IndexByte(rest, '{')
		if open < 0 {
			if i != len(values) {
				return "", fmt.Errorf("path %s takes %d parameters, got %d", template, i, len(values))
			}
			b.WriteString(rest)
			return b.String(), nil
		}
		end := strings.IndexByte(rest[open:], '}') + open
		name := rest[open+1 : end]
		if i >= len(values) {
			return "", fmt.Errorf("path %s: no value for {%s}", template, name)
		}
		if values[i] == "" {
			return "", fmt.Errorf("%s is empty", name)
		}
		b.WriteString(rest[:open])
		b.WriteString(url.PathEscape(values[i]))
		rest = rest[end+1:]
	}
}

// encodeParams splits a parameters struct of package api (ListPaymentsParams,
// CreatePaymentParams, ...) into its query parameters (the fields with a form
// tag) and its headers (the others, named by their json tag). Nil pointers
// and empty strings are left out.
func encodeParams(p any) (url.Values, http.Header, error) {
	q, h := url.Values{}, http.Header{}
	err := eachField(p, func(name string, query bool, value string) {
		if query {
			q.Set(name, value)
		} else {
			h.Set(name, value)
		}
	})
	return q, h, err
}

// encodeForm is a form body of a struct of package api: each field under
// its form tag, or its json tag when it has none.
func encodeForm(body any) (url.Values, error) {
	form := url.Values{}
	err := eachField(body, func(name string, _ bool, value string) { form.Set(name, value) })
	return form, err
}

// eachField calls fn with every set field of the struct p points to (or is):
// its name (form tag, else json tag), whether it had a form tag, and its
// value as text.
func eachField(p any, fn func(name string, form bool, value string)) error {
	v := reflect.ValueOf(p)
	for v.Kind() == reflect.Pointer || v.Kind() == reflect.Interface {
		if v.IsNil() {
			return nil
		}
		v = v.Elem()
	}
	if !v.IsValid() {
		return nil
	}
	if v.Kind() != reflect.Struct {
		return fmt.Errorf("parameters of type %s are not a struct", v.Type())
	}
	t := v.Type()
	for i := range t.NumField() {
		f := t.Field(i)
		name, form := tagName(f.Tag.Get("form"))
		if !form {
			name, _ = tagName(f.Tag.Get("json"))
		}
		if name == "" || name == "-" {
			continue
		}
		s, set, err := formatValue(v.Field(i))
		if err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		if set {
			fn(name, form, s)
		}
	}
	return nil
}

// tagName is the name part of a struct tag value and whether there was one.
func tagName(tag string) (string, bool) {
	name, _, _ := strings.Cut(tag, ",")
	return name, name != ""
}

var timeType = reflect.TypeFor[time.Time]()

// formatValue formats one parameter value; set is false for a nil pointer or an
// empty string.
func formatValue(v reflect.Value) (s string, set bool, err error) {
	for v.Kind() == reflect.Pointer {
		if v.IsNil() {
			return "", false, nil
		}
		v = v.Elem()
	}
	if v.Type() == timeType {
		return v.Interface().(time.Time).Format(time.RFC3339Nano), true, nil
	}
	switch v.Kind() {
	case reflect.String:
		return v.String(), v.String() != "", nil
	case reflect.Bool:
		return strconv.FormatBool(v.Bool()), true, nil
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return strconv.FormatInt(v.Int(), 10), true, nil
	case reflect.Float32, reflect.Float64:
		return strconv.FormatFloat(v.Float(), 'f', -1, 64), true, nil
	}
	return "", false, fmt.Errorf("a parameter of kind %s cannot be sent", v.Kind())
}
