package sandbox_test

import (
	"strings"
	"testing"

	"github.com/bankrail/bankrail/internal/errs"
	"github.com/bankrail/bankrail/internal/sandbox"
)

// treeSchema is a small tree's schema: payments (owned by customer_id),
// their attempts (owned through the payment) and notifications that name
// an application (a kept table).
var treeSchema = []sandbox.TreeTable{
	{Name: "payments", Columns: []string{"id", "customer_id", "client_id"}},
	{Name: "attempts", Columns: []string{"id", "payment_id"}, Refs: []sandbox.Ref{{Column: "payment_id", Parent: "payments", ParentColumn: "id"}}},
	{Name: "notifications", Columns: []string{"id", "customer_id", "application_id", "ordering_key"},
		Refs: []sandbox.Ref{{Column: "application_id", Parent: "applications", ParentColumn: "id"}}},
}

// keptOf is what the tree's kept tables own: application app-1 (client c-1).
func keptOf() sandbox.Owned {
	kept := sandbox.Owned{}
	kept.Add("applications", "id", "app-1")
	kept.Add("applications", "client_id", "c-1")
	return kept
}

// TestTreeRows: a restore (strict) refuses every row that reaches outside
// the tree, naming it; a reset (lenient) leaves such rows out.
func TestTreeRows(t *testing.T) {
	t.Parallel()
	mine := func(tables ...sandbox.Table) []sandbox.Table { return tables }
	payments := func(rows ...[]any) sandbox.Table {
		return sandbox.Table{Name: "payments", Columns: []string{"id", "customer_id", "client_id"}, Rows: rows}
	}
	attempts := func(rows ...[]any) sandbox.Table {
		return sandbox.Table{Name: "attempts", Columns: []string{"id", "payment_id"}, Rows: rows}
	}
	notes := func(rows ...[]any) sandbox.Table {
		return sandbox.Table{Name: "notifications", Columns: []string{"id", "customer_id", "application_id", "ordering_key"}, Rows: rows}
	}
	for _, c := range []struct {
		name   string
		tables []sandbox.Table
		refuse string // "" when the file is the tree's
		left   int    // rows a lenient read keeps
	}{
		{"the tree's own", mine(payments([]any{"p-1", "A", "c-1"}), attempts([]any{"a-1", "p-1"}), notes([]any{"n-1", "B", "app-1", "p-1"})), "", 3},
		{"another customer's payment", mine(payments([]any{"p-1", "X", "c-1"})), "belongs to customer X", 0},
		{"an attempt of another's payment", mine(payments([]any{"p-1", "A", "c-1"}), attempts([]any{"a-1", "p-9"})), "names no row", 1},
		{"an attempt of no payment", mine(attempts([]any{"a-1", nil})), "names no row", 0},
		{"another's application", mine(notes([]any{"n-1", "A", "app-9", "n-1"})), "names application_id app-9", 0},
		{"another's client id", mine(payments([]any{"p-1", "A", "c-9"})), "names client_id c-9", 0},
		{"another's ordering key", mine(notes([]any{"n-1", "A", "app-1", "p-9"})), "names ordering_key p-9", 0},
		{"a users table", mine(sandbox.Table{Name: "users", Columns: []string{"id"}, Rows: [][]any{{"u-1"}}}), "table users is not part", 0},
		{"a payment without its customer", mine(sandbox.Table{Name: "payments", Columns: []string{"id"}, Rows: [][]any{{"p-1"}}}), "leaves out its column customer_id", -1},
	} {
		_, err := sandbox.TreeRows(treeSchema, []string{"A", "B"}, keptOf(), c.tables, true)
		switch e, _ := err.(*errs.Error); {
		case c.refuse == "" && err != nil:
			t.Errorf("%s: %v", c.name, err)
		case c.refuse != "" && (e == nil || e.Code != errs.ValidationFailure || len(e.Fields) != 1 || e.Fields[0].PropertyPath != "tables" ||
			!strings.Contains(e.Fields[0].Message, c.refuse)):
			t.Errorf("%s: %+v, want VALIDATION_FAILURE on tables naming %q", c.name, e, c.refuse)
		}
		if c.left < 0 {
			continue
		}
		out, err := sandbox.TreeRows(treeSchema, []string{"A", "B"}, keptOf(), c.tables, false)
		n := 0
		for _, t := range out {
			n += len(t.Rows)
		}
		if err != nil || n != c.left {
			t.Errorf("%s, lenient: %d rows kept (%v), want %d", c.name, n, err, c.left)
		}
	}
}
