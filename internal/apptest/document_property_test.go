package apptest_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/getkin/kin-openapi/openapi3"
	"pgregory.net/rapid"

	"github.com/bankrail/bankrail/internal/apptest"
)

// TestRequestsFromTheDocument is a property test that draws requests from
// api/openapi.yaml itself: it walks every operation of the document that
// answers JSON, draws each parameter from its schema (enum, format,
// pattern, bounds) and the body from the operation's documented examples,
// and sends them through the real HTTP stack. A case is either valid, or
// breaks exactly one rule of the document: a missing required parameter
// or property, a wrong type, a value outside a pattern, bound, length or
// enum, an explicit null where nothing is nullable, or a conditional
// requirement (if/then/else) left unmet. The document's own validator
// (kin-openapi) confirms which a body is.
//
// Valid requests must never be refused for their form (400, 413, 415, 422)
// nor fail (5xx); a 404 for an id that names nothing, a 409 and the like
// are answers. Invalid requests must get a 4xx that the operation
// documents, with the documented error shape. Every exchange is checked
// against the document as in any apptest request.
//
// The default is rapid's 100 cases per engine (a few seconds); run more
// with -rapid.checks=N (or RAPID_CHECKS), e.g.
// go test ./internal/apptest -run TestRequestsFromTheDocument -rapid.checks=30000.
//
// What it does not draw: valid bodies other than the documented examples
// (rules beyond JSON Schema, such as IBAN checksums or a bank of the
// payment system, are described in prose, so a body drawn freely from a
// schema may be refused with 422 on purpose); strings with a NUL character
// (refused everywhere, see internal/httpapi/input.go); the payer's HTML
// pages (their errors are pages, not the API's shape).
func TestRequestsFromTheDocument(t *testing.T) {
	doc, err := apptest.Spec()
	if err != nil {
		t.Fatal(err)
	}
	ops := documentedOperations(t, doc)
	apptest.Each(t, func(t *testing.T, env *apptest.Env) {
		token := env.Token(t, apptest.PSPAdmin)
		operator := env.Token(t, apptest.Operator) // the Bank operations are the instance operator's
		client := *env.Server.Client()
		client.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
		rapid.Check(t, func(rt *rapid.T) {
			op := rapid.SampledFrom(ops).Draw(rt, "operation")
			valid := op.validCases && rapid.Bool().Draw(rt, "valid")
			c := drawCase(rt, op, valid)
			rt.Logf("%s %s valid=%v: %s", op.method, op.path, valid, c.broken)
			tok := token
			if slices.Contains(op.op.Tags, "Bank") {
				tok = operator
			}
			req := c.request(rt, env.URL, tok)
			resp := send(rt, &client, req)
			for _, err := range apptest.SpecMismatches(req, resp, valid) {
				rt.Error(err)
			}
			if valid {
				checkAccepted(rt, op, resp)
			} else {
				checkRefused(rt, op, resp, c)
			}
		})
	})
}

// operation is one operation of the document that the test draws from.
type operation struct {
	method, path string
	op           *openapi3.Operation
	params       []*openapi3.Parameter
	body         *openapi3.MediaType // JSON body, or nil
	examples     []any               // documented valid bodies
	validCases   bool                // valid requests may be sent (see noValidCases)
	public       bool
}

// noValidCases are operations drawn only with invalid requests, and why.
var noValidCases = map[string]string{
	"POST /sandbox/clock/advance":                  "a valid advance moves the virtual clock past the token's expiry",
	"POST /sandbox/inbox/{clientId}":               "a notification without a valid signature is answered 400, as documented",
	"POST /payin":                                  "funds are taken only into the IBAN of an existing Connect account (422 otherwise), which the document cannot name",
	"POST /sandbox/restore":                        "a valid body is a snapshot file of this very instance (GET /sandbox/snapshot), which the document cannot give",
	"POST /statements":                             "a valid body is a bank's camt file, which the document cannot give (TestStatementImportByOperator sends them)",
	"POST /reconciliation-exceptions/{id}/resolve": "an exception exists only once a statement made one (TestStatementImportByOperator)",
	"POST /transfer-status":                        "a valid body is the bank's pain.002 answering a file this instance wrote (TestTransferFilesAreForOperators sends one)",
}

// documentedOperations lists the JSON operations of doc, sorted.
func documentedOperations(t *testing.T, doc *openapi3.T) []operation {
	t.Helper()
	var ops []operation
	for _, path := range doc.Paths.InMatchingOrder() {
		item := doc.Paths.Value(path)
		for method, op := range item.Operations() {
			if slices.Contains(op.Tags, "Payer pages") {
				continue // HTML pages: errors are pages
			}
			o := operation{method: method, path: path, op: op, public: op.Security != nil && len(*op.Security) == 0}
			_, o.validCases = noValidCases[method+" "+path]
			o.validCases = !o.validCases
			for _, p := range append(slices.Clone(item.Parameters), op.Parameters...) {
				o.params = append(o.params, p.Value)
			}
			if rb := op.RequestBody; rb != nil {
				if mt := rb.Value.Content.Get("application/json"); mt != nil && mt.Schema != nil && mt.Schema.Value != nil && !mt.Schema.Value.IsEmpty() {
					o.body = mt
					if mt.Example != nil {
						o.examples = append(o.examples, mt.Example)
					}
					for _, name := range slices.Sorted(maps.Keys(mt.Examples)) {
						o.examples = append(o.examples, mt.Examples[name].Value.Value)
					}
					if len(o.examples) == 0 {
						t.Fatalf("%s %s: a JSON body without a documented example; add one (the test draws valid bodies from them)", method, path)
					}
				} else if mt != nil {
					o.validCases = false // free-form body: see noValidCases
				}
			}
			ops = append(ops, o)
		}
	}
	slices.SortFunc(ops, func(a, b operation) int { return strings.Compare(a.method+a.path, b.method+b.path) })
	if len(ops) < 20 {
		t.Fatalf("only %d operations found in the document", len(ops))
	}
	return ops
}

// testCase is one drawn request.
type testCase struct {
	op      operation
	path    string
	query   url.Values
	headers http.Header
	body    any  // JSON value; nil: no body
	hasBody bool // body is sent (a null body is a body)
	broken  string
}

// request builds the HTTP request of c.
func (c *testCase) request(rt *rapid.T, base, token string) *http.Request {
	target := base + c.path
	if len(c.query) > 0 {
		target += "?" + c.query.Encode()
	}
	var body io.Reader
	var raw []byte
	if c.hasBody {
		var err error
		if raw, err = json.Marshal(c.body); err != nil {
			rt.Fatalf("marshal body: %v", err)
		}
		body = bytes.NewReader(raw)
	}
	req, err := http.NewRequest(c.op.method, target, body)
	if err != nil {
		rt.Fatalf("build request: %v", err)
	}
	if c.hasBody {
		req.Header.Set("Content-Type", "application/json")
	}
	if !c.op.public {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	for k, vs := range c.headers {
		req.Header[k] = vs
	}
	return req
}

// send performs req.
func send(rt *rapid.T, client *http.Client, req *http.Request) *apptest.Response {
	resp, err := client.Do(req)
	if err != nil {
		rt.Fatalf("%s %s: %v", req.Method, req.URL, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		rt.Fatalf("read response: %v", err)
	}
	return &apptest.Response{Status: resp.StatusCode, Header: resp.Header, Body: b}
}

// refusedForForm are the statuses that refuse a request for its form.
var refusedForForm = []int{http.StatusBadRequest, http.StatusRequestEntityTooLarge, http.StatusUnsupportedMediaType, http.StatusUnprocessableEntity}

// checkAccepted fails when a valid request was refused for its form or failed.
func checkAccepted(rt *rapid.T, op operation, resp *apptest.Response) {
	if slices.Contains(refusedForForm, resp.Status) || resp.Status >= 500 {
		rt.Fatalf("a request valid by the document was answered %d: %s", resp.Status, resp.Body)
	}
}

// checkRefused fails unless an invalid request got a 4xx the operation
// documents, with an error body of the API's (or the legacy API's) shape.
func checkRefused(rt *rapid.T, op operation, resp *apptest.Response, c testCase) {
	if resp.Status < 400 || resp.Status >= 500 {
		rt.Fatalf("a request that breaks the document (%s) was answered %d: %s", c.broken, resp.Status, resp.Body)
	}
	if op.op.Responses.Status(resp.Status) == nil && op.op.Responses.Default() == nil {
		rt.Fatalf("refused with %d, which %s %s does not document: %s", resp.Status, op.method, op.path, resp.Body)
	}
	var shape struct {
		Code      any             `json:"code"` // a string; a number (the HTTP status) on the legacy token endpoint
		Message   string          `json:"message"`
		Exception json.RawMessage `json:"exception"`
	}
	if err := json.Unmarshal(resp.Body, &shape); err != nil || (shape.Code == nil || shape.Message == "") && len(shape.Exception) == 0 {
		rt.Fatalf("refused with %d but not in the error shape: %s", resp.Status, resp.Body)
	}
	if shape.Code == "UNAUTHORISED" || shape.Code == "ACCESS_DENIED" {
		rt.Fatalf("refused with %v instead of for the broken rule (%s): %s", shape.Code, c.broken, resp.Body)
	}
}

// drawCase draws a request of op: valid, or breaking exactly one rule.
func drawCase(rt *rapid.T, op operation, valid bool) testCase {
	c := testCase{op: op, path: op.path, query: url.Values{}, headers: http.Header{}}
	targets := []string{}
	for _, p := range op.params {
		targets = append(targets, "param:"+p.Name)
	}
	if op.body != nil {
		targets = append(targets, "body")
	}
	breakAt := ""
	if !valid {
		if len(targets) == 0 {
			rt.Skip("nothing to break")
		}
		breakAt = rapid.SampledFrom(targets).Draw(rt, "break")
	}
	for _, p := range op.params {
		var value string
		present := p.Required || rapid.Bool().Draw(rt, "with "+p.Name)
		if breakAt == "param:"+p.Name {
			var ok bool
			value, present, c.broken, ok = drawInvalidParam(rt, p)
			if !ok {
				rt.Skip("no rule to break in " + p.Name)
			}
		} else if present {
			value = drawValue(rt, p.Name, p.Schema.Value)
		}
		if !present {
			if p.In == "path" {
				rt.Skip("a path parameter cannot be left out")
			}
			continue
		}
		switch p.In {
		case "path":
			c.path = strings.Replace(c.path, "{"+p.Name+"}", url.PathEscape(value), 1)
		case "query":
			c.query.Set(p.Name, value)
		case "header":
			c.headers[http.CanonicalHeaderKey(p.Name)] = []string{value}
		}
	}
	if op.body != nil {
		c.body, c.hasBody = deepCopy(rt, rapid.SampledFrom(op.examples).Draw(rt, "example")), true
		if breakAt == "body" {
			c.body, c.broken = breakBody(rt, op, c.body)
		}
	}
	return c
}

// pathSafe are the characters drawn for free-form path parameters.
var pathSafe = []rune("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_")

// drawValue draws a value of schema s as it appears in a parameter.
func drawValue(rt *rapid.T, label string, s *openapi3.Schema) string {
	switch {
	case len(s.Enum) > 0:
		return fmt.Sprint(rapid.SampledFrom(s.Enum).Draw(rt, label))
	case s.Type.Is("integer"):
		lo, hi := int64(-1_000_000), int64(1_000_000)
		if s.Min != nil {
			lo = int64(*s.Min)
		}
		if s.Max != nil {
			hi = int64(*s.Max)
		}
		return strconv.FormatInt(rapid.Int64Range(lo, hi).Draw(rt, label), 10)
	case s.Type.Is("boolean"):
		return rapid.SampledFrom([]string{"true", "false"}).Draw(rt, label)
	case s.Format == "uuid":
		return rapid.StringMatching(`[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}`).Draw(rt, label)
	case s.Format == "date-time":
		at := time.Unix(rapid.Int64Range(0, 4102444800).Draw(rt, label), rapid.Int64Range(0, 999_999_999).Draw(rt, label+" ns"))
		zone := time.FixedZone("", 60*rapid.IntRange(-12*60, 14*60).Draw(rt, label+" offset"))
		return at.In(zone).Format(time.RFC3339Nano)
	case s.Pattern != "":
		return rapid.StringMatching(s.Pattern).Draw(rt, label)
	}
	lo, hi := int(s.MinLength), 40
	if lo == 0 {
		lo = 1 // a path segment cannot be empty; a query string may (minLength says)
	}
	if s.MaxLength != nil && int(*s.MaxLength) < hi {
		hi = int(*s.MaxLength)
	}
	return rapid.StringOfN(rapid.RuneFrom(pathSafe), lo, hi, -1).Draw(rt, label)
}

// offPattern are the characters drawn for values meant to break a format
// or pattern: path-safe ones, and some that patterns commonly exclude.
var offPattern = append(slices.Clone(pathSafe), []rune(" %/:.é€")...)

// drawInvalidParam draws a value of p that breaks one rule of its schema
// (present false: the required parameter is left out). ok is false when
// the schema has no rule to break.
func drawInvalidParam(rt *rapid.T, p *openapi3.Parameter) (value string, present bool, broken string, ok bool) {
	s := p.Schema.Value
	var rules []string
	if p.Required && p.In != "path" {
		rules = append(rules, "missing")
	}
	switch {
	case len(s.Enum) > 0:
		rules = append(rules, "enum")
	case s.Type.Is("integer"):
		rules = append(rules, "not an integer")
		if s.Min != nil {
			rules = append(rules, "below minimum")
		}
		if s.Max != nil {
			rules = append(rules, "above maximum")
		}
	case s.Type.Is("boolean"):
		rules = append(rules, "not a boolean")
	case s.Format == "uuid" || s.Format == "date-time" || s.Pattern != "":
		rules = append(rules, "format")
	}
	if s.MaxLength != nil {
		rules = append(rules, "too long")
	}
	if s.MinLength > 0 && p.In != "path" {
		rules = append(rules, "too short")
	}
	if len(rules) == 0 {
		return "", false, "", false
	}
	rule := rapid.SampledFrom(rules).Draw(rt, "rule of "+p.Name)
	broken = fmt.Sprintf("%s %s: %s", p.In, p.Name, rule)
	word := rapid.StringOfN(rapid.RuneFrom(offPattern), 1, 20, -1).Filter(func(v string) bool {
		switch p.In {
		case "path": // dot segments are removed from a URL (RFC 3986): not sendable
			return v != "." && v != ".."
		case "header": // HTTP strips a header value's outer whitespace: not sendable
			return v == strings.TrimSpace(v)
		}
		return true
	})
	switch rule {
	case "missing":
		return "", false, broken, true
	case "enum":
		v := word.Filter(func(v string) bool { return !slices.Contains(s.Enum, any(v)) }).Draw(rt, p.Name)
		return v, true, broken, true
	case "not an integer":
		return rapid.SampledFrom([]string{"abc", "1.5", "1e3", "0x10", "-"}).Draw(rt, p.Name), true, broken, true
	case "below minimum":
		return strconv.FormatInt(int64(*s.Min)-rapid.Int64Range(1, 1000).Draw(rt, p.Name), 10), true, broken, true
	case "above maximum":
		return strconv.FormatInt(int64(*s.Max)+rapid.Int64Range(1, 1000).Draw(rt, p.Name), 10), true, broken, true
	case "not a boolean":
		return rapid.SampledFrom([]string{"yes", "no", "maybe", "2"}).Draw(rt, p.Name), true, broken, true
	case "format":
		return word.Filter(func(v string) bool { return !matchesFormat(s, v) }).Draw(rt, p.Name), true, broken, true
	case "too long":
		return strings.Repeat("a", int(*s.MaxLength)+rapid.IntRange(1, 10).Draw(rt, p.Name)), true, broken, true
	default: // too short
		return "", true, broken, true
	}
}

// uuidPattern is the canonical form of a uuid.
var uuidPattern = regexp.MustCompile(`^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$`)

// matchesFormat reports whether v satisfies the format or pattern of s.
func matchesFormat(s *openapi3.Schema, v string) bool {
	switch {
	case s.Format == "uuid":
		return uuidPattern.MatchString(v)
	case s.Format == "date-time":
		_, err := time.Parse(time.RFC3339Nano, v)
		return err == nil
	default:
		return regexp.MustCompile(s.Pattern).MatchString(v)
	}
}

// breakBody changes one value of body so that it breaks the operation's
// schema, and says how; the document's validator must agree that the
// body is invalid (else the case is skipped).
func breakBody(rt *rapid.T, op operation, body any) (any, string) {
	spots := bodySpots(body, op.body.Schema.Value, "")
	spot := rapid.SampledFrom(spots).Draw(rt, "spot")
	kinds := []string{"null", "wrong type", "remove"}
	s := spot.schema
	if str, ok := spot.value.(string); ok && len(str) > 1 {
		kinds = append(kinds, "reversed") // breaks a const (currency by paymentSystem) or pattern
	}
	if s != nil {
		if len(s.Enum) > 0 {
			kinds = append(kinds, "enum")
		}
		if len(s.Enum) > 1 {
			kinds = append(kinds, "other enum value") // breaks a conditional (if/then/else) when it decides one
		}
		if s.MaxLength != nil {
			kinds = append(kinds, "too long")
		}
		if s.Min != nil {
			kinds = append(kinds, "below minimum")
		}
		if s.Max != nil {
			kinds = append(kinds, "above maximum")
		}
	}
	kind := rapid.SampledFrom(kinds).Draw(rt, "mutation")
	var value any
	switch kind {
	case "null":
		value = nil
	case "wrong type":
		value = otherType(spot.value)
	case "enum":
		value = "NOT_" + fmt.Sprint(spot.value)
	case "other enum value":
		value = rapid.SampledFrom(s.Enum).Filter(func(v any) bool { return v != spot.value }).Draw(rt, "other value")
	case "reversed":
		r := []rune(spot.value.(string))
		slices.Reverse(r)
		value = string(r)
	case "too long":
		value = strings.Repeat("A", int(*s.MaxLength)+1)
	case "below minimum":
		value = int64(*s.Min) - 1
	case "above maximum":
		value = int64(*s.Max) + 1
	}
	if spot.path == "" {
		if kind == "remove" {
			rt.Skip("the body itself cannot be removed")
		}
		body = value
	} else {
		set(body, spot.keys, value, kind == "remove")
	}
	broken := fmt.Sprintf("body %s: %s", spot.path, kind)
	if err := bodyMismatch(op, body); err == nil {
		rt.Skip("still valid by the document: " + broken)
	}
	return body, broken
}

// spot is one value inside a body, with its schema when known.
type spot struct {
	path   string
	keys   []any // string (object key) or int (array index)
	value  any
	schema *openapi3.Schema
}

// bodySpots lists every value in v (v itself first).
func bodySpots(v any, s *openapi3.Schema, path string, keys ...any) []spot {
	out := []spot{{path: path, keys: keys, value: v, schema: s}}
	switch v := v.(type) {
	case map[string]any:
		for _, k := range slices.Sorted(maps.Keys(v)) {
			p := k
			if path != "" {
				p = path + "." + k
			}
			out = append(out, bodySpots(v[k], property(s, k), p, append(slices.Clone(keys), k)...)...)
		}
	case []any:
		var items *openapi3.Schema
		if s != nil && s.Items != nil {
			items = s.Items.Value
		}
		for i, e := range v {
			out = append(out, bodySpots(e, items, fmt.Sprintf("%s[%d]", path, i), append(slices.Clone(keys), i)...)...)
		}
	}
	return out
}

// property is the schema of property name of s, looking through allOf.
func property(s *openapi3.Schema, name string) *openapi3.Schema {
	if s == nil {
		return nil
	}
	if p := s.Properties[name]; p != nil {
		return p.Value
	}
	for _, sub := range s.AllOf {
		if p := property(sub.Value, name); p != nil {
			return p
		}
	}
	return nil
}

// set replaces (or removes) the value at keys in v.
func set(v any, keys []any, value any, remove bool) {
	for i, k := range keys {
		last := i == len(keys)-1
		switch c := v.(type) {
		case map[string]any:
			if last {
				if remove {
					delete(c, k.(string))
				} else {
					c[k.(string)] = value
				}
				return
			}
			v = c[k.(string)]
		case []any:
			if last {
				c[k.(int)] = value // an array item is replaced, not removed
				return
			}
			v = c[k.(int)]
		}
	}
}

// otherType is a value of another JSON type than v.
func otherType(v any) any {
	switch v.(type) {
	case string:
		return 12
	case map[string]any:
		return "an object was expected"
	case []any:
		return map[string]any{"an": "array was expected"}
	default:
		return "a string is not the type"
	}
}

// bodyMismatch validates body against the operation's body schema, with
// the document's validator (JSON Schema 2020-12, as OpenAPI 3.1 says).
func bodyMismatch(op operation, body any) error {
	return op.body.Schema.Value.VisitJSON(body, openapi3.EnableJSONSchema2020())
}

// deepCopy copies a JSON value (the examples are shared).
func deepCopy(rt *rapid.T, v any) any {
	raw, err := json.Marshal(v)
	if err != nil {
		rt.Fatalf("copy example: %v", err)
	}
	var out any
	if err := json.Unmarshal(raw, &out); err != nil {
		rt.Fatalf("copy example: %v", err)
	}
	return out
}
