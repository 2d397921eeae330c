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
