package sandbox

import (
	"fmt"
	"slices"
	"strings"

	"github.com/bankrail/bankrail/internal/errs"
)

// Scope is what a reset, snapshot or restore acts on.
type Scope string

// Scopes.
const (
	// ScopeInstance is every customer's data at once: the operator's.
	ScopeInstance Scope = "INSTANCE"
	// ScopeTree is the caller's own customer tree: its customer and every
	// customer below it. A tenant's ADMIN has it.
	ScopeTree Scope = "TREE"
)

// ParseScope reads the scope parameter ("" stays "": the caller's default).
func ParseScope(s string) (Scope, error) {
	switch sc := Scope(s); sc {
	case "", ScopeInstance, ScopeTree:
		return sc, nil
	}
	var v errs.Validation
	v.Add(errs.InvalidValue, "scope", "scope must be INSTANCE or TREE, not %q.", s)
	return "", v.Err()
}

// OwnerColumn names the customer a row of a tree's table belongs to. A
// table without it belongs to a tree through a reference to a table that
// does (a notification's attempts through the notification).
const OwnerColumn = "customer_id"

// TreeKept are the tables a tree's snapshot never holds and a tree's
// restore or reset never writes: who may sign in and with what (customers,
// users and their password hashes, applications and their secrets, the
// previous notification secret, tokens and sessions, sign-in counts), the
// audit log (evidence, not data to roll back), the clocks (their own reset)
// and the jobs (whose arguments name rows the store cannot vet; a job whose
// row is gone ends itself).
var TreeKept = []string{"customers", "customer_tree", "users", "applications", "refresh_tokens", "dashboard_sessions", "console_devices",
	"notification_endpoints", "login_throttle", "audit_log", ClockTable, "jobs"}

// Ref is a column's reference to a column of another table (a foreign key).
type Ref struct{ Column, Parent, ParentColumn string }

// TreeTable is one table a tree's snapshot holds: its columns and its
// references (foreign keys).
type TreeTable struct {
	Name    string
	Columns []string
	Refs    []Ref
}

// softRefs are references without a foreign key that a restored row must
// keep inside its tree too: each names the table whose owned values the
// column's value must be among ("" : any id of the tree's rows). An empty
// value passes.
var softRefs = map[string]map[string]string{
	"*":                   {"client_id": "applications.client_id"},
	"ledger_postings":     {"account_id": "ledger_accounts.id"},
	"events":              {"subject_id": ""},
	"notifications":       {"ordering_key": "", "payment_id": ""},
	"ledger_transactions": {"payment_id": ""},
}

// Owned are the values of the columns of the tree's rows, by "table.column",
// that rows of the tree may name.
type Owned map[string]map[any]bool

// Add records v as owned by table.column.
func (o Owned) Add(table, column string, v any) {
	k := table + "." + column
	if o[k] == nil {
		o[k] = map[any]bool{}
	}
	o[k][key(v)] = true
}

// has reports whether v is an owned value of table.column.
func (o Owned) has(table, column string, v any) bool { return o[table+"."+column][key(v)] }

// key makes a comparable value of a row value ([]byte is not).
func key(v any) any {
	if b, ok := v.([]byte); ok {
		return string(b)
	}
	return v
}

// TreeRows keeps, of tables, the rows of the tree whose customers are
// tree, in the tables of schema (parents first); kept holds the owned values
// of the kept tables the rows may name (the tree's applications, users and
// customers). With strict (a restore), a table outside schema or a row
// outside the tree is VALIDATION_FAILURE; without (a reset from the
// baseline), they are left out.
func TreeRows(schema []TreeTable, tree []string, kept Owned, tables []Table, strict bool) ([]Table, error) {
	given := map[string]Table{}
	for _, t := range tables {
		i := slices.IndexFunc(schema, func(s TreeTable) bool { return s.Name == t.Name })
		if i < 0 {
			if strict {
				return nil, refuse("table %s is not part of a customer tree's snapshot", t.Name)
			}
			continue
		}
		given[t.Name] = t
	}
	owned := Owned{}
	for k, vs := range kept {
		owned[k] = vs
	}
	var out []Table
	ids := map[any]bool{} // every id of the tree's rows, for the soft references to "any"
	for _, s := range schema {
		t, ok := given[s.Name]
		if !ok {
			continue
		}
		if slices.Contains(s.Columns, OwnerColumn) != slices.Contains(t.Columns, OwnerColumn) {
			return nil, refuse("table %s leaves out its column %s", t.Name, OwnerColumn)
		}
		keep := Table{Name: t.Name, Columns: t.Columns}
		for n, row := range t.Rows {
			if why := foreign(s, t.Columns, row, tree, owned); why != "" {
				if strict {
					return nil, refuse("row %d of table %s %s", n+1, t.Name, why)
				}
				continue
			}
			keep.Rows = append(keep.Rows, row)
			for i, c := range t.Columns {
				owned.Add(t.Name, c, row[i])
				if c == "id" {
					ids[key(row[i])] = true
				}
			}
		}
		out = append(out, keep)
	}
	// The soft references to any row of the tree, once every row is known.
	for ti, t := range out {
		rows := t.Rows[:0]
		for n, row := range t.Rows {
			why := ""
			for i, c := range t.Columns {
				if softRef(t.Name, c) == "" && hasSoftRef(t.Name, c) && row[i] != nil && row[i] != "" && !ids[key(row[i])] {
					why = fmt.Sprintf("names %s %v, which is no row of your customer tree", c, row[i])
				}
			}
			if why != "" {
				if strict {
					return nil, refuse("row %d of table %s %s", n+1, t.Name, why)
				}
				continue
			}
			rows = append(rows, row)
		}
		out[ti].Rows = rows
	}
	return out, nil
}

// foreign says why row of s lies outside the tree ("" when it does not):
// its customer is not of the tree, a reference names a row that is not, or
// (a table without the owner column) no reference names a row that is.
func foreign(s TreeTable, columns []string, row []any, tree []string, owned Owned) string {
	if !slices.Contains(columns, OwnerColumn) && !slices.ContainsFunc(s.Refs, func(r Ref) bool {
		i := slices.Index(columns, r.Column)
		return i >= 0 && row[i] != nil && owned.has(r.Parent, r.ParentColumn, row[i])
	}) {
		return "names no row of your customer tree"
	}
	for i, c := range columns {
		v := row[i]
		if c == OwnerColumn && !slices.Contains(tree, fmt.Sprint(v)) {
			return fmt.Sprintf("belongs to customer %v, which is not of your customer tree", v)
		}
		if v == nil {
			continue
		}
		for _, r := range s.Refs {
			if r.Column == c && !owned.has(r.Parent, r.ParentColumn, v) {
				return fmt.Sprintf("names %s %v, which is no row of your customer tree", c, v)
			}
		}
		if target := softRef(s.Name, c); target != "" && v != "" {
			table, column, _ := strings.Cut(target, ".")
			if !owned.has(table, column, v) {
				return fmt.Sprintf("names %s %v, which is no row of your customer tree", c, v)
			}
		}
	}
	return ""
}

// softRef is the "table.column" a soft reference of table.column names,
// "" when it names any row or there is none (hasSoftRef tells which).
func softRef(table, column string) string {
	if t, ok := softRefs[table][column]; ok {
		return t
	}
	return softRefs["*"][column]
}

// hasSoftRef reports whether table.column is a soft reference.
func hasSoftRef(table, column string) bool {
	_, ok := softRefs[table][column]
	_, all := softRefs["*"][column]
	return ok || all
}

// refuse is the refusal of a tree file that reaches outside the tree.
func refuse(format string, args ...any) error {
	var v errs.Validation
	v.Add(errs.InvalidValue, "tables", "The snapshot reaches outside your customer tree: "+format+
		". A tree's restore takes back only a file of GET /sandbox/snapshot taken by your customer tree.", args...)
	return v.Err()
}
