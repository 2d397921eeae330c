package httpapi

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"mime"
	"net/http"
	"reflect"
	"slices"
	"strings"
	"sync"

	"github.com/bankrail/bankrail/internal/errs"
)

// writeJSON writes v as compact JSON with status.
func writeJSON(w http.ResponseWriter, status int, v any) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		http.Error(w, `{"code":"INTERNAL_SERVER_ERROR","message":"response encoding failed"}`, http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(buf.Bytes())
}

// readBody reads the request body up to the configured limit.
func (s *Server) readBody(w http.ResponseWriter, r *http.Request) ([]byte, error) {
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, s.maxBody))
	var tooLarge *http.MaxBytesError
	switch {
	case errors.As(err, &tooLarge):
		return nil, errs.E(errs.PayloadTooLarge, "The request body is larger than %d bytes.", tooLarge.Limit)
	case err != nil:
		return nil, errs.Wrap(errs.BadRequest, err, "The request body could not be read.")
	}
	return body, nil
}

// requireJSON refuses a body declared as something other than JSON. A
// missing Content-Type is taken as JSON.
func requireJSON(r *http.Request) error {
	mt, err := mediaType(r)
	if err != nil || mt == "" {
		return err
	}
	if mt != "application/json" && !strings.HasSuffix(mt, "+json") {
		return errs.E(errs.UnsupportedMediaType, "Content-Type %q is not supported; send application/json.", r.Header.Get("Content-Type"))
	}
	return nil
}

// mediaType is the media type of the request's Content-Type ("" when
// absent). A malformed one, or one with a charset other than UTF-8, is
// UNSUPPORTED_MEDIA_TYPE: bankrail reads every body as UTF-8.
func mediaType(r *http.Request) (string, error) {
	ct := r.Header.Get("Content-Type")
	if ct == "" {
		return "", nil
	}
	mt, params, err := mime.ParseMediaType(ct)
	if err != nil {
		return "", errs.E(errs.UnsupportedMediaType, "Content-Type %q is malformed; send application/json.", ct)
	}
	if cs, ok := params["charset"]; ok && !strings.EqualFold(cs, "utf-8") && !strings.EqualFold(cs, "utf8") {
		return "", errs.E(errs.UnsupportedMediaType, "Content-Type %q: charset %q is not supported; send UTF-8.", ct, cs)
	}
	return mt, nil
}

// decodeJSON reads a JSON request body into dst. Malformed JSON is
// BAD_REQUEST; a value of the wrong type is VALIDATION_FAILURE (INVALID_TYPE)
// at its JSON path; unknown fields are ignored.
func (s *Server) decodeJSON(w http.ResponseWriter, r *http.Request, dst any) error {
	if err := requireJSON(r); err != nil {
		return err
	}
	body, err := s.readBody(w, r)
	if err != nil {
		return err
	}
	return decodeJSONBytes(body, dst)
}

// decodeJSONBytes decodes one JSON value from body into dst.
func decodeJSONBytes(body []byte, dst any) error {
	if len(bytes.TrimSpace(body)) == 0 {
		return errs.E(errs.BadRequest, "The request body is empty; send a JSON object.")
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	err := dec.Decode(dst)
	var syntaxErr *json.SyntaxError
	var typeErr *json.UnmarshalTypeError
	switch {
	case errors.As(err, &syntaxErr):
		return errs.E(errs.BadRequest, "Malformed JSON at byte %d: %s.", syntaxErr.Offset, syntaxErr.Error())
	case errors.As(err, &typeErr):
		path := jsonPath(reflect.TypeOf(dst), typeErr.Field)
		if path == "" {
			return errs.E(errs.BadRequest, "The request body must be a JSON object.")
		}
		return &errs.Error{Code: errs.ValidationFailure, Message: "The request failed validation; see errors for each field.",
			Fields: []errs.FieldError{{Type: errs.InvalidType, PropertyPath: path,
				Message: fmt.Sprintf("must be of type %s, got %s", jsonKind(typeErr.Type.Kind().String()), typeErr.Value)}}}
	case errors.Is(err, io.ErrUnexpectedEOF):
		return errs.E(errs.BadRequest, "Malformed JSON: the body ends early.")
	case err != nil:
		return errs.Wrap(errs.BadRequest, err, "Malformed JSON: %s.", err.Error())
	}
	if dec.More() {
		return errs.E(errs.BadRequest, "Malformed JSON: unexpected data after the JSON value.")
	}
	return refuseNulls(body, dst)
}

// refuseNulls refuses an explicit null in a field of dst's type: no field
// of any request body of the document is nullable, so null is not
// "absent" but a value of the wrong type (INVALID_TYPE at its path, every
// one at once), with every field the document requires that the body
// leaves out, since the domain's validation does not run. This is the one place that decides it, for every JSON body
// (api's document test checks that no request schema allows null). Unknown
// fields, which the document lets through, are not looked at; nor are
// fields of free-form JSON (json.RawMessage, any). body is valid JSON.
func refuseNulls(body []byte, dst any) error {
	if !bytes.Contains(body, nullLiteral) {
		return nil // no null anywhere (a string holding "null" takes the long way)
	}
	var doc any
	if err := json.Unmarshal(body, &doc); err != nil {
		return errs.Wrap(errs.BadRequest, err, "Malformed JSON: %s.", err.Error())
	}
	if doc == nil {
		return errs.E(errs.BadRequest, "The request body must be a JSON object, not null.")
	}
	var v errs.Validation
	nulls(&v, "", doc, reflect.TypeOf(dst))
	if !v.Failed() {
		return nil
	}
	missingRequired(&v, doc, reflect.TypeOf(dst)) // json_nulls.go
	return &nullsRefused{refusal: v.Err().(*errs.Error)}
}

// nullLiteral is JSON's null, which every null value of a body is spelled as.
var nullLiteral = []byte("null")

// nulls adds a field error for every null in x, a decoded JSON value of
// Go type t, below path.
func nulls(v *errs.Validation, path string, x any, t reflect.Type) {
	for t != nil && t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t == nil || t.Kind() == reflect.Interface || t == rawMessage {
		return // free-form JSON
	}
	switch x := x.(type) {
	case nil:
		v.Add(errs.InvalidType, path, "%s must not be null; leave the field out instead.", path)
	case map[string]any:
		keys := slices.Sorted(maps.Keys(x))
		for _, k := range keys {
			var ft reflect.Type
			switch t.Kind() {
			case reflect.Struct:
				if ft = fieldType(t, k); ft == nil {
					continue // an unknown field: ignored
				}
			case reflect.Map:
				ft = t.Elem()
			default:
				continue // the decoder reports the wrong type
			}
			p := k
			if path != "" {
				p = path + "." + k
			}
			nulls(v, p, x[k], ft)
		}
	case []any:
		if t.Kind() != reflect.Slice && t.Kind() != reflect.Array {
			return
		}
		for i, e := range x {
			nulls(v, fmt.Sprintf("%s[%d]", path, i), e, t.Elem())
		}
	}
}

// rawMessage is the type of free-form JSON fields.
var rawMessage = reflect.TypeOf(json.RawMessage(nil))

// jsonKind names a Go kind the way a JSON client thinks of it.
func jsonKind(kind string) string {
	switch kind {
	case "int", "int8", "int16", "int32", "int64", "uint", "uint8", "uint16", "uint32", "uint64":
		return "integer"
	case "float32", "float64":
		return "number"
	case "bool":
		return "boolean"
	case "slice", "array":
		return "array"
	case "struct", "map":
		return "object"
	default:
		return kind
	}
}

// jsonPath removes from an encoding/json error path the names of embedded
// structs, which encoding/json puts in it ("Common.amount") although they
// are not in the JSON ("amount"). t is the type decoded into.
func jsonPath(t reflect.Type, path string) string {
	var out []string
	for _, name := range strings.Split(path, ".") {
		for t != nil && (t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice || t.Kind() == reflect.Array || t.Kind() == reflect.Map) {
			t = t.Elem()
		}
		if t == nil || t.Kind() != reflect.Struct {
			out, t = append(out, name), nil
			continue
		}
		if f, ok := t.FieldByName(name); ok && f.Anonymous && f.Tag.Get("json") == "" {
			t = f.Type // an embedded struct: its fields are the outer object's
			continue
		}
		out, t = append(out, name), fieldType(t, name)
	}
	return strings.Join(out, ".")
}

// fieldType is the type of the field that JSON name names in struct t
// (promoted fields included), or nil. Answers are kept per type and name:
// walking a struct's visible fields is the dearest part of reading a body.
func fieldType(t reflect.Type, name string) reflect.Type {
	key := fieldKey{t, name}
	if ft, ok := fieldTypes.Load(key); ok {
		return ft.(reflect.Type)
	}
	for _, f := range reflect.VisibleFields(t) {
		tag, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if tag == name {
			fieldTypes.Store(key, f.Type) // only the document's names: unknown ones, which clients choose, are not kept
			return f.Type
		}
		if tag == "" && strings.EqualFold(f.Name, name) {
			return f.Type
		}
	}
	return nil
}

// fieldKey names a field of a struct type by its JSON name.
type fieldKey struct {
	t    reflect.Type
	name string
}

// fieldTypes caches fieldType's answers (fieldKey to reflect.Type).
var fieldTypes sync.Map
