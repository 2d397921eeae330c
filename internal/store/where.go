package store

import (
	"fmt"
	"strings"
)

// where builds the WHERE clause of a filtered list with numbered
// placeholders; it always starts with the viewer's visibility condition.
type where struct {
	conds []string
	args  []any
}

// visibleWhere starts a clause limited to what viewer may see through column.
func visibleWhere(column, viewer string) *where {
	return &where{conds: []string{visibleTo(column, 1)}, args: []any{viewer}}
}

// add appends a condition whose format has one %d for its placeholder number.
func (w *where) add(format string, v any) {
	w.args = append(w.args, v)
	w.conds = append(w.conds, fmt.Sprintf(format, len(w.args)))
}

// sql is the clause, without the WHERE keyword.
func (w *where) sql() string { return strings.Join(w.conds, " AND ") }

// placeholder adds v as an argument and returns its placeholder ("$3"),
// for conditions that use one value twice.
func (w *where) placeholder(v any) string {
	w.args = append(w.args, v)
	return fmt.Sprintf("$%d", len(w.args))
}

// newestFirst is the SQL of a list's keys, newest first, read from the
// (customer_id, created_at DESC, id DESC) index in order: one ordered,
// LIMITed index scan per customer the viewer sees, merged. A condition
// "customer_id IN (the viewer's customers)" cannot give that order (every
// visible row would be sorted to find the newest); this reads at most
// perCustomer index entries per customer, whatever the table holds.
//
// It selects k.id and k.created_at of table (alias q in rowConds) of the
// customers below the viewer ($1; alias t, the customer_tree row, in
// treeConds), ordered, with limit and offset (placeholders, or empty).
// On SQLite, which has no LATERAL, each customer's scan is a correlated
// subquery of rowids; orderIndex, when set, is forced there (SQLite
// otherwise takes any index on customer_id when the conditions are not
// covered by this one).
type newestFirst struct {
	dialect     Dialect
	table       string
	orderIndex  string // SQLite: INDEXED BY this index ("" lets the planner choose)
	rowConds    []string
	treeConds   []string
	perCustomer string // placeholder: the most rows one customer gives
	limit       string // placeholder or ""
	offset      string // placeholder or ""
	ascending   bool   // oldest first instead (for the oldest match)
}

func (n newestFirst) sql() string {
	dir := "DESC"
	if n.ascending {
		dir = "ASC"
	}
	order := fmt.Sprintf(" ORDER BY q.created_at %s, q.id %s LIMIT %s", dir, dir, n.perCustomer)
	rows := strings.Join(append([]string{"q.customer_id = t.descendant_id"}, n.rowConds...), " AND ")
	tree := strings.Join(append([]string{"t.ancestor_id = $1"}, n.treeConds...), " AND ")
	var b strings.Builder
	if n.dialect == Postgres {
		fmt.Fprintf(&b, `SELECT k.id, k.created_at FROM customer_tree t CROSS JOIN LATERAL (
			SELECT q.id, q.created_at FROM %s q WHERE %s%s) k WHERE %s`, n.table, rows, order, tree)
	} else {
		indexed := ""
		if n.orderIndex != "" {
			indexed = " INDEXED BY " + n.orderIndex
		}
		fmt.Fprintf(&b, `SELECT k.id, k.created_at FROM customer_tree t JOIN %s k ON k.rowid IN (
			SELECT q.rowid FROM %s q%s WHERE %s%s) WHERE %s`, n.table, n.table, indexed, rows, order, tree)
	}
	fmt.Fprintf(&b, " ORDER BY k.created_at %s, k.id %s", dir, dir)
	if n.limit != "" {
		fmt.Fprintf(&b, " LIMIT %s", n.limit)
	}
	if n.offset != "" {
		fmt.Fprintf(&b, " OFFSET %s", n.offset)
	}
	return b.String()
}
