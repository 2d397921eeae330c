package clock_test

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// notDomain are the packages below internal/ that may read the base clock:
// the adapters (HTTP, dashboard, their shared HTTP code, storage), the
// wiring, the clock itself, the worker and metrics plumbing and the test
// harnesses. Every other package (and every new one) is domain code.
var notDomain = map[string]string{
	"app":         "wiring",
	"apptest":     "test harness",
	"browsertest": "test harness",
	"clock":       "the clock itself",
	"dashboard":   "adapter (web console)",
	"dbtest":      "test harness",
	"httpapi":     "adapter (HTTP)",
	"metrics":     "metrics plumbing",
	"store":       "adapter (storage)",
	"webguard":    "adapter (HTTP code the API and the dashboard share)",
	"worker":      "background-worker plumbing",
}

// allowMark marks a base-clock read in domain code as deliberate; its
// reason follows it on the same line or the line above.
const allowMark = "basetime:"

// Domain code never reads the base clock: a unit of work reads its
// tenant's clock once (clock.UnitTime) and stamps what it writes with that
// time. time.Now, time.Since, time.Until and any Now method (the base
// clock's, whatever its type: Real, Fake, Tenants, a Clock) are refused;
// clock.Base, the explicit base time of due scans and leases, needs a
// reason. Either is allowed with a "basetime: <reason>" comment on its
// line or the line above (issue 25, item 5).
func TestDomainCodeDoesNotReadTheBaseClock(t *testing.T) {
	t.Parallel()
	root := filepath.Join("..")
	var found []string
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			rel, _ := filepath.Rel(root, path)
			top := strings.Split(filepath.ToSlash(rel), "/")[0]
			if _, skip := notDomain[top]; skip || d.Name() == "testdata" {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		bad, err := baseClockReads(path)
		found = append(found, bad...)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(found) > 0 {
		t.Errorf("domain code reads the base clock (read the tenant's with clock.UnitTime, or justify with a %q comment):\n%s",
			allowMark+" <reason>", strings.Join(found, "\n"))
	}
}

// baseClockReads parses one file and names, as file:line, each read of
// the base clock that no allow comment justifies.
func baseClockReads(path string) ([]string, error) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, path, nil, parser.ParseComments|parser.SkipObjectResolution)
	if err != nil {
		return nil, fmt.Errorf("parse %s: %w", path, err)
	}
	timePkg, clockPkg := importName(f, "time"), importName(f, "github.com/bankrail/bankrail/internal/clock")
	allowed := map[int]bool{}
	for _, g := range f.Comments {
		for _, c := range g.List {
			if strings.Contains(c.Text, allowMark) && strings.TrimSpace(c.Text[strings.Index(c.Text, allowMark)+len(allowMark):]) != "" {
				line := fset.Position(c.Slash).Line
				allowed[line], allowed[line+1] = true, true
			}
		}
	}
	called, passed := map[ast.Expr]bool{}, map[ast.Expr]bool{}
	ast.Inspect(f, func(n ast.Node) bool {
		if c, ok := n.(*ast.CallExpr); ok {
			called[c.Fun] = true
			for _, a := range c.Args {
				passed[a] = true
			}
		}
		return true
	})
	var out []string
	ast.Inspect(f, func(n ast.Node) bool {
		sel, ok := n.(*ast.SelectorExpr)
		if !ok {
			return true
		}
		what := ""
		pkg, _ := sel.X.(*ast.Ident)
		switch {
		case pkg != nil && pkg.Name == timePkg && (sel.Sel.Name == "Now" || sel.Sel.Name == "Since" || sel.Sel.Name == "Until"):
			what = "time." + sel.Sel.Name
		case pkg != nil && pkg.Name == clockPkg && sel.Sel.Name == "Base":
			what = "clock.Base"
		case sel.Sel.Name == "Now" && (called[sel] || passed[sel] && namesAClock(sel.X)):
			what = "a clock's Now"
		}
		if what != "" {
			if p := fset.Position(sel.Pos()); !allowed[p.Line] {
				out = append(out, fmt.Sprintf("%s:%d: %s", filepath.ToSlash(p.Filename), p.Line, what))
			}
		}
		return true
	})
	return out, nil
}

// importName is the name path is imported as in f ("" when it is not).
func importName(f *ast.File, path string) string {
	for _, imp := range f.Imports {
		if p, _ := strconv.Unquote(imp.Path.Value); p == path {
			if imp.Name != nil {
				return imp.Name.Name
			}
			return path[strings.LastIndex(path, "/")+1:]
		}
	}
	return ""
}

// namesAClock reports whether x, the receiver of a Now passed on as an
// argument (jwt.WithTimeFunc(s.clock.Now)), is named as a clock: without
// type information this tells a clock's method value from a field named
// Now (a claim's c.Now, clock.Reading's r.Now), which is no read. A Now
// that is called is a read whatever its receiver.
func namesAClock(x ast.Expr) bool {
	var last string
	switch x := x.(type) {
	case *ast.Ident:
		last = x.Name
	case *ast.SelectorExpr:
		last = x.Sel.Name
	}
	return strings.Contains(strings.ToLower(last), "clock")
}

// The lint names every kind of base-clock read, under any import name,
// and only those: not a field named Now, not a read justified by a
// "basetime:" comment with a reason (testdata/lint/domain.go marks each
// line it must name with "want").
func TestBaseClockReadsAreFound(t *testing.T) {
	t.Parallel()
	path := filepath.Join("testdata", "lint", "domain.go")
	got, err := baseClockReads(path)
	if err != nil {
		t.Fatal(err)
	}
	src, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	for i, line := range strings.Split(string(src), "\n") {
		if strings.HasSuffix(line, "// want") {
			want = append(want, fmt.Sprintf("%s:%d", filepath.ToSlash(path), i+1))
		}
	}
	var lines []string
	for _, g := range got {
		lines = append(lines, g[:strings.LastIndex(g, ":")])
	}
	if strings.Join(lines, " ") != strings.Join(want, " ") {
		t.Fatalf("named:\n%s\nwant the lines:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
