package store

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"time"

	"github.com/bankrail/bankrail/internal/paging"
)

// keysetCond is one condition of a list: format has one %s, the
// placeholder of v.
type keysetCond struct {
	format string
	v      any
}

// keysetList is a list read from an index in order, as GET /payments is:
// each page's keys come from one ordered, LIMITed index scan per customer
// the viewer sees, merged (newestFirst), or, for a list within one scope
// (an account's transactions, a channel's deposits), from the one scan of
// the (scope, created_at, id) index; then the page's rows by primary key.
// The order is createdAt, then id, newest first unless oldestFirst.
type keysetList struct {
	dialect    Dialect // set by readPage
	what       string  // in errors: "mandates"
	table      string
	alias      string // of table in columns ("" when columns are unqualified)
	columns    string
	orderIndex string // SQLite: the (customer_id, created_at, id) index the merged scan reads
	// scope, when set, is the column that scopeID must equal instead of the
	// viewer's customers (whose visibility the caller checked, or adds as a
	// row condition with visibleCond).
	scope, scopeID string
	viewer         string
	oldestFirst    bool
	rowConds       []keysetCond // on the row (alias q)
	treeConds      []keysetCond // on the customer_tree row (alias t) of the merged scan
	from, to       *time.Time   // createdAt range, inclusive (nil: open; the zero time is a bound)
	uncounted      bool         // no total is read (a list answered without counts)
}

// only narrows l to customer id (one the viewer sees) when id is set.
func (l *keysetList) only(id string) {
	if id != "" {
		l.treeConds = append(l.treeConds, keysetCond{"t.descendant_id = %s", id})
	}
}

// equal narrows l to rows whose column equals v when v is set.
func (l *keysetList) equal(column, v string) {
	if v != "" {
		l.rowConds = append(l.rowConds, keysetCond{"q." + column + " = %s", v})
	}
}

// visibleCond is the row condition of a scoped list whose rows the viewer
// must see too.
func visibleCond(viewer string) keysetCond {
	return keysetCond{"q.customer_id IN (SELECT descendant_id FROM customer_tree WHERE ancestor_id = %s)", viewer}
}

// start is a clause whose $1 is the viewer, or the scope's value.
func (l keysetList) start() *where {
	if l.scope != "" {
		return &where{args: []any{l.scopeID}}
	}
	return &where{args: []any{l.viewer}}
}

// render gives conds their placeholders in w.
func render(w *where, conds []keysetCond) []string {
	out := make([]string, 0, len(conds))
	for _, c := range conds {
		out = append(out, fmt.Sprintf(c.format, w.placeholder(c.v)))
	}
	return out
}

// timeConds are the conditions of the createdAt range.
func (l keysetList) timeConds(w *where) []string {
	var out []string
	if l.from != nil {
		out = append(out, "q.created_at >= "+w.placeholder(micros(*l.from)))
	}
	if l.to != nil {
		out = append(out, "q.created_at <= "+w.placeholder(micros(*l.to)))
	}
	return out
}

// keys is the SQL of the list's keys (id, created_at) in order after
// position after (nil: from the start), with perCustomer, limit and offset
// placeholders ("" for none).
func (l keysetList) keys(w *where, after *paging.Position, perCustomer, limit, offset string) string {
	rows := append(render(w, l.rowConds), l.timeConds(w)...)
	if after != nil {
		at, id := w.placeholder(micros(after.CreatedAt)), w.placeholder(after.ID)
		cmp := "<"
		if l.oldestFirst {
			cmp = ">"
		}
		rows = append(rows, fmt.Sprintf("q.created_at %s= %s AND (q.created_at %s %s OR q.id %s %s)", cmp, at, cmp, at, cmp, id))
	}
	if l.scope == "" {
		return newestFirst{dialect: l.dialect, table: l.table, orderIndex: l.orderIndex, rowConds: rows,
			treeConds: render(w, l.treeConds), perCustomer: perCustomer, limit: limit, offset: offset, ascending: l.oldestFirst}.sql()
	}
	dir := l.dir()
	var b strings.Builder
	fmt.Fprintf(&b, "SELECT q.id, q.created_at FROM %s q WHERE %s ORDER BY q.created_at %s, q.id %s",
		l.table, strings.Join(append([]string{"q." + l.scope + " = $1"}, rows...), " AND "), dir, dir)
	if limit != "" {
		fmt.Fprintf(&b, " LIMIT %s", limit)
	}
	if offset != "" {
		fmt.Fprintf(&b, " OFFSET %s", offset)
	}
	return b.String()
}

func (l keysetList) dir() string {
	if l.oldestFirst {
		return "ASC"
	}
	return "DESC"
}

// count counts the matches exactly (the contract's total-items): for the
// viewer's customers, the sum of one COUNT per visible customer over its
// (customer_id, created_at, id) index range (the SQL of countPerCustomer);
// within a scope, one COUNT over the scope's index range. Its cost grows
// with the matches (docs/decisions.md, "total-items is exact").
func (l keysetList) count(ctx context.Context, q querier) (int, error) {
	w := l.start()
	conds := append(render(w, l.rowConds), l.timeConds(w)...)
	query := `SELECT COUNT(*) FROM ` + l.table + ` q WHERE ` + strings.Join(append([]string{"q." + l.scope + " = $1"}, conds...), " AND ")
	if l.scope == "" {
		query = countPerCustomer(l.table, conds, render(w, l.treeConds))
	}
	var n int
	if err := q.QueryRowContext(ctx, query, w.args...).Scan(&n); err != nil {
		return 0, translate(err, "count "+l.what)
	}
	return n, nil
}

// countPerCustomer is the SQL of an exact count of the rows of table
// (alias q) that match rowConds, of the customers below $1 (customer_tree,
// alias t, narrowed by treeConds): one COUNT per customer, each over the
// customer's index range (index-only where the conditions are on indexed
// columns), summed.
func countPerCustomer(table string, rowConds, treeConds []string) string {
	return `SELECT COALESCE(SUM((SELECT COUNT(*) FROM ` + table + ` q WHERE ` +
		strings.Join(append([]string{"q.customer_id = t.descendant_id"}, rowConds...), " AND ") +
		`)), 0) FROM customer_tree t WHERE ` + strings.Join(append([]string{"t.ancestor_id = $1"}, treeConds...), " AND ")
}

// readPage reads one page of l: page and limit as the request gives them,
// or the page after position after (keyset; page is then only the number
// the cursor carried). The count and the page come from one snapshot (tx,
// or a read transaction). pos is an item's place in the order.
func readPage[T any](ctx context.Context, s *Store, tx *sql.Tx, l keysetList, page, limit int, after *paging.Position,
	scan func(interface{ Scan(...any) error }) (T, error), pos func(T) paging.Position) (paging.Page[T], error) {
	if limit < 1 { // the services apply the default; a page of none has no last item to continue after
		return paging.Page[T]{}, fmt.Errorf("list %s: limit %d is below 1", l.what, limit)
	}
	l.dialect = s.dialect
	var out paging.Page[T]
	read := func(q querier) error {
		out = paging.Page[T]{Items: []T{}} // afresh: a read the replica failed is read again on the primary
		if !l.uncounted {
			var err error
			if out.Total, err = l.count(ctx, q); err != nil {
				return err
			}
		}
		offset := 0
		if after == nil {
			offset = paging.Offset(page, limit)
			if !l.uncounted && out.Total <= offset {
				return nil
			}
		}
		w := l.start()
		per := "" // the merged scan's bound per customer (PostgreSQL refuses an unused parameter)
		if l.scope == "" {
			per = w.placeholder(offset + limit + 1) // one more: does a page follow?
		}
		lim, off := w.placeholder(limit+1), w.placeholder(offset)
		from, qual := l.table, l.table
		if l.alias != "" {
			from, qual = l.table+" "+l.alias, l.alias
		}
		dir := l.dir()
		// The page's keys drive (CROSS JOIN keeps them the outer loop on
		// SQLite), each row read by primary key; the keys' columns are
		// renamed so that unqualified columns stay the table's.
		rows, err := q.QueryContext(ctx, fmt.Sprintf(`SELECT %s FROM (SELECT s.id AS key_id, s.created_at AS key_at FROM (%s) s) k
			CROSS JOIN %s WHERE %s.id = k.key_id ORDER BY k.key_at %s, k.key_id %s`,
			l.columns, l.keys(w, after, per, lim, off), from, qual, dir, dir), w.args...)
		if err != nil {
			return translate(err, "list "+l.what)
		}
		defer rows.Close()
		for rows.Next() {
			it, err := scan(rows)
			if err != nil {
				return translate(err, "list "+l.what)
			}
			out.Items = append(out.Items, it)
		}
		if err := rows.Err(); err != nil {
			return translate(err, "list "+l.what)
		}
		if len(out.Items) > limit {
			out.Items = out.Items[:limit]
			p := pos(out.Items[limit-1])
			out.Next = &p
		}
		return nil
	}
	if tx != nil {
		return out, read(tx)
	}
	return out, s.listTx(ctx, func(tx *sql.Tx) error { return read(tx) })
}
