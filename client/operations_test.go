package client_test

import (
	"context"
	"os"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/bankrail/bankrail/client"
)

// helperMethods are the exported methods of *Client that are not an
// operation (nor the iterator of a paged operation).
// operatorTag tags the operations of the instance's operator (role
// OPERATOR: the bank's statements, transfer files and their answers,
// reconciliation exceptions). The SDK is the merchant's (docs/sdk.md) and
// has no method for them: the operator has the CLI (bankrail statements,
// bankrail transfers), the watched folders and the API itself.
const operatorTag = "Bank"

var helperMethods = []string{"BaseURL", "AdvanceSandboxClockBy", "AmendmentApprovalURL"}

// methodName is the SDK method of an operationId: the same name with an
// upper-case first letter (createPayment is CreatePayment).
func methodName(operationID string) string {
	return strings.ToUpper(operationID[:1]) + operationID[1:]
}

// iteratorName is the iterator of a paged list method: ListPayments is
// AllPayments.
func iteratorName(method string) string { return "All" + strings.TrimPrefix(method, "List") }

var pathParameter = regexp.MustCompile(`\{[^}]+\}`)

// TestEveryOperationHasAMethod reads api/openapi.yaml and checks, both
// ways, that every operation has its entry in the client's table (same
// method, path, token, version header, Idempotency-Key and body encoding)
// and its method on *Client, named by the rule, taking the context first and
// then the path parameters; that every paged list has its iterator; and
// that *Client has no other exported method than those and helperMethods.
func TestEveryOperationHasAMethod(t *testing.T) {
	raw, err := os.ReadFile("../api/openapi.yaml")
	if err != nil {
		t.Fatal(err)
	}
	doc, err := openapi3.NewLoader().LoadFromData(raw)
	if err != nil {
		t.Fatal(err)
	}
	table := client.Operations()
	typ := reflect.TypeFor[*client.Client]()
	ctxType := reflect.TypeFor[context.Context]()
	expected := map[string]bool{} // exported methods the document accounts for
	seen := map[string]bool{}
	for path, item := range doc.Paths.Map() {
		for method, op := range item.Operations() {
			id := op.OperationID
			seen[id] = true
			if slices.Contains(op.Tags, operatorTag) {
				if _, ok := table[id]; ok {
					t.Errorf("%s is the operator's (tag %s): the SDK has no method for it", id, operatorTag)
				}
				continue
			}
			got, ok := table[id]
			if !ok {
				t.Errorf("%s %s (%s) has no entry in the client's table (client/ops.go)", method, path, id)
				continue
			}
			want := client.OperationInfo{ID: id, Method: method, Path: path,
				Public:     op.Security != nil && len(*op.Security) == 0,
				Versioned:  hasParameter(op, "header", "X-Service-Api-Version"),
				Idempotent: hasParameter(op, "header", "Idempotency-Key"),
				Form:       got.Form, NDJSON: got.NDJSON}
			if got != want {
				t.Errorf("%s: the client's table says %+v, the document %+v", id, got, want)
			}
			if op.RequestBody != nil {
				content := op.RequestBody.Value.Content
				if got.Form && content.Get("application/x-www-form-urlencoded") == nil {
					t.Errorf("%s is sent as a form but the document takes no form", id)
				}
				if got.NDJSON && content.Get("application/x-ndjson") == nil {
					t.Errorf("%s is sent as JSON lines but the document takes none", id)
				}
				if !got.Form && !got.NDJSON && content.Get("application/json") == nil {
					t.Errorf("%s is sent as JSON but the document takes no JSON", id)
				}
			}
			name := methodName(id)
			expected[name] = true
			m, ok := typ.MethodByName(name)
			if !ok {
				t.Errorf("operation %s (%s %s) has no method %s on *client.Client", id, method, path, name)
				continue
			}
			in := m.Type.NumIn() // the receiver is in 0
			if in < 2 || m.Type.In(1) != ctxType {
				t.Errorf("%s does not take a context.Context first", name)
				continue
			}
			for i := range len(pathParameter.FindAllString(path, -1)) {
				if 2+i >= in || m.Type.In(2+i).Kind() != reflect.String {
					t.Errorf("%s does not take the path parameters of %s as strings after the context", name, path)
				}
			}
			if hasParameter(op, "query", "page") {
				iter := iteratorName(name)
				expected[iter] = true
				it, ok := typ.MethodByName(iter)
				if !ok {
					t.Errorf("the paged list %s has no iterator %s", name, iter)
				} else if out := it.Type.Out(0).String(); it.Type.NumOut() != 1 || !strings.HasPrefix(out, "iter.Seq2[") {
					t.Errorf("%s returns %s, want an iter.Seq2", iter, out)
				}
			}
		}
	}
	for id := range table {
		if !seen[id] {
			t.Errorf("the client's table has %s, which is not an operation of api/openapi.yaml", id)
		}
	}
	for i := range typ.NumMethod() {
		name := typ.Method(i).Name
		if !expected[name] && !slices.Contains(helperMethods, name) {
			t.Errorf("*client.Client has the method %s, which is no operation of api/openapi.yaml: name it by the rule, or list it in helperMethods", name)
		}
	}
	for _, h := range helperMethods {
		if _, ok := typ.MethodByName(h); !ok {
			t.Errorf("helperMethods lists %s, which *client.Client does not have", h)
		}
	}
	t.Logf("%d operations, %d methods", len(seen), typ.NumMethod())
}

// hasParameter reports whether op takes the parameter name in in.
func hasParameter(op *openapi3.Operation, in, name string) bool {
	for _, p := range op.Parameters {
		if p.Value != nil && p.Value.In == in && strings.EqualFold(p.Value.Name, name) {
			return true
		}
	}
	return false
}
