package client_test

import (
	"errors"
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/bankrail/bankrail/api"
	"github.com/bankrail/bankrail/client"
	"github.com/bankrail/bankrail/internal/apptest"
	"github.com/bankrail/bankrail/internal/dbtest"
)

// TestNoRequestFieldIsSentAsNull: every pointer field of every request body
// the SDK sends is left out when nil, never sent as null (the server
// refuses null: a required pointer such as PaymentCreateRequest.Amount,
// left unset, used to be sent as "amount": null). The request types are
// the body parameters of the SDK's methods, and the types they contain.
func TestNoRequestFieldIsSentAsNull(t *testing.T) {
	t.Parallel()
	fset := token.NewFileSet()
	structs := map[string]*ast.StructType{}
	gen, err := parser.ParseFile(fset, filepath.Join("..", "api", "types.gen.go"), nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range gen.Decls {
		if g, ok := d.(*ast.GenDecl); ok {
			for _, s := range g.Specs {
				if ts, ok := s.(*ast.TypeSpec); ok {
					if st, ok := ts.Type.(*ast.StructType); ok {
						structs[ts.Name.Name] = st
					}
				}
			}
		}
	}
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	var bodies []string
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		file, err := parser.ParseFile(fset, f, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(file, func(n ast.Node) bool {
			if fd, ok := n.(*ast.FuncDecl); ok && fd.Recv != nil {
				for _, p := range fd.Type.Params.List {
					if sel, ok := p.Type.(*ast.SelectorExpr); ok && len(p.Names) > 0 && p.Names[0].Name == "body" {
						bodies = append(bodies, sel.Sel.Name)
					}
				}
			}
			return true
		})
	}
	if !slices.Contains(bodies, "PaymentCreateRequest") {
		t.Fatalf("found no request bodies (%v)", bodies)
	}
	seen := map[string]bool{}
	var check func(name, path string)
	check = func(name, path string) {
		st := structs[name]
		if st == nil || seen[name] {
			return
		}
		seen[name] = true
		for _, f := range st.Fields.List {
			if f.Tag == nil || len(f.Names) == 0 {
				continue
			}
			tag, _ := strconv.Unquote(f.Tag.Value)
			json := reflect.StructTag(tag).Get("json")
			if _, ok := f.Type.(*ast.StarExpr); ok && !strings.Contains(json, "omitempty") {
				t.Errorf("%s.%s (%s) is a pointer sent as null when unset: give it x-omitempty in api/openapi.yaml", path, f.Names[0].Name, json)
			}
			ast.Inspect(f.Type, func(n ast.Node) bool {
				if id, ok := n.(*ast.Ident); ok {
					check(id.Name, path+"."+f.Names[0].Name)
				}
				return true
			})
		}
	}
	for _, b := range bodies {
		check(b, b)
	}
}

// TestAnEmptyPaymentIsRefusedWithEveryMissingField: a payment created with
// nothing set is refused with one error that names every missing required
// field at once, not one null.
func TestAnEmptyPaymentIsRefusedWithEveryMissingField(t *testing.T) {
	t.Parallel()
	dbtest.EachMigrated(t, func(t *testing.T, db dbtest.DB) {
		defer failOnMust(t)
		env := apptest.NewOn(t, db)
		c := newClient(t, env.URL, apptest.Merchant, newRecorder(t, nil))
		_, err := c.CreatePayment(t.Context(), api.PaymentCreateRequest{}, nil)
		var e *client.Error
		if !errors.As(err, &e) || e.Code != "VALIDATION_FAILURE" {
			t.Fatalf("an empty payment: %v", err)
		}
		var paths []string
		for _, f := range e.Fields {
			paths = append(paths, f.PropertyPath+" "+string(f.Type))
		}
		for _, want := range []string{"amount VALUE_REQUIRED", "paymentSystem VALUE_REQUIRED"} {
			if !slices.Contains(paths, want) {
				t.Errorf("the error does not name %q: %v", want, paths)
			}
		}
		for _, p := range paths {
			if strings.Contains(p, "INVALID_TYPE") {
				t.Errorf("a field was sent as null: %v", paths)
			}
		}
	})
}
