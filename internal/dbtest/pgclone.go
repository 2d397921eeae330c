package dbtest

import (
	"context"
	"database/sql"
	"fmt"
	"slices"
	"strings"
)

// PostgreSQL cannot copy a schema, so this file writes, once per binary,
// the SQL that rebuilds the migrated template schema (its functions,
// tables, rows, constraints, indexes and triggers, under their own names)
// in whatever schema is first on the search path. Replaying it in one
// transaction costs far less than the migrations it stands for (fewer
// statements, no data moves, no migration lock). A test's copy is then
// reset (its rows deleted, the template's put back) and handed to the next
// test, which spares both the copy and its drop. fingerprint, compared
// between the template and a copy once per binary, and at every reset,
// makes sure the scripts missed nothing a migration may add one day, and
// that no test's change to its schema reaches another test.

// catalogQuerier is a connection whose search path is the template schema
// alone, so that the catalog's definitions name its objects unqualified.
type catalogQuerier interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
}

// schemaPlan is what copies and resets a schema like the template.
type schemaPlan struct {
	copy   string   // rebuilds the template in the current schema
	reset  string   // brings a copy's rows back to the template's
	tables []string // the template's tables
	want   []string // the template's fingerprint, sorted
}

// planSchema writes the scripts that copy and reset schema tpl. q's search
// path must be tpl.
func planSchema(ctx context.Context, q catalogQuerier, tpl string) (schemaPlan, error) {
	var plan schemaPlan
	var err error
	if plan.tables, err = strs(ctx, q, `SELECT relname FROM pg_class WHERE relnamespace = $1::regnamespace AND relkind = 'r'
		ORDER BY relname`, tpl); err != nil {
		return plan, fmt.Errorf("tables: %w", err)
	}
	order, err := parentsFirst(ctx, q, tpl, plan.tables)
	if err != nil {
		return plan, err
	}
	rows, err := rowsScript(ctx, q, tpl, order)
	if err != nil {
		return plan, fmt.Errorf("rows: %w", err)
	}
	var create, keys strings.Builder
	for _, s := range []struct {
		into         *strings.Builder
		what, query  string
		fromTemplate bool // the statements read the template: its name stays
	}{
		{&create, "functions", `SELECT pg_get_functiondef(p.oid) FROM pg_proc p WHERE p.pronamespace = $1::regnamespace
			AND p.prokind IN ('f', 'p') ORDER BY p.proname`, false},
		// Columns, defaults, identities, NOT NULL and CHECK constraints
		// (under their names); indexes and keys come later, by name.
		{&create, "tables", `SELECT format('CREATE TABLE %I (LIKE %I.%I INCLUDING DEFAULTS INCLUDING IDENTITY INCLUDING GENERATED
			INCLUDING CONSTRAINTS INCLUDING STORAGE INCLUDING COMMENTS)', c.relname, $1::text, c.relname)
			FROM pg_class c WHERE c.relnamespace = $1::regnamespace AND c.relkind = 'r' ORDER BY c.relname`, true},
		// Keys before foreign keys, which need them.
		{&keys, "keys", `SELECT format('ALTER TABLE %I ADD CONSTRAINT %I %s', c.relname, k.conname, pg_get_constraintdef(k.oid))
			FROM pg_constraint k JOIN pg_class c ON c.oid = k.conrelid
			WHERE k.connamespace = $1::regnamespace AND k.contype IN ('p', 'u', 'x', 'f')
			ORDER BY k.contype = 'f', c.relname, k.conname`, false},
		{&keys, "indexes", `SELECT pg_get_indexdef(i.indexrelid) FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid
			WHERE c.relnamespace = $1::regnamespace
			AND NOT EXISTS (SELECT 1 FROM pg_constraint k WHERE k.conindid = i.indexrelid AND k.contype IN ('p', 'u', 'x'))
			ORDER BY c.relname`, false},
		{&keys, "triggers", `SELECT pg_get_triggerdef(g.oid) FROM pg_trigger g JOIN pg_class c ON c.oid = g.tgrelid
			WHERE c.relnamespace = $1::regnamespace AND NOT g.tgisinternal ORDER BY c.relname, g.tgname`, false},
	} {
		lines, err := strs(ctx, q, s.query, tpl)
		if err != nil {
			return plan, fmt.Errorf("%s: %w", s.what, err)
		}
		for _, l := range lines {
			if !s.fromTemplate {
				l = unqualify(l, tpl)
			}
			s.into.WriteString(l + ";\n")
		}
	}
	// The rows go in before the keys (as pg_dump does), so in any order.
	plan.copy = create.String() + rows + keys.String()
	triggered, err := strs(ctx, q, `SELECT DISTINCT c.relname FROM pg_trigger g JOIN pg_class c ON c.oid = g.tgrelid
		WHERE c.relnamespace = $1::regnamespace AND NOT g.tgisinternal`, tpl)
	if err != nil {
		return plan, fmt.Errorf("triggers: %w", err)
	}
	var reset strings.Builder
	for _, t := range slices.Backward(order) { // children first
		if slices.Contains(triggered, t) { // such as an append-only table's
			fmt.Fprintf(&reset, "ALTER TABLE %[1]s DISABLE TRIGGER USER;\nDELETE FROM %[1]s;\nALTER TABLE %[1]s ENABLE TRIGGER USER;\n", quoteIdent(t))
		} else {
			fmt.Fprintf(&reset, "DELETE FROM %s;\n", quoteIdent(t))
		}
	}
	plan.reset = reset.String() + rows
	if plan.want, err = fingerprint(ctx, q, tpl, plan.tables); err != nil {
		return plan, fmt.Errorf("describe %s: %w", tpl, err)
	}
	return plan, nil
}

// parentsFirst orders tables so that a table comes after every table its
// foreign keys refer to (a table's keys to itself aside).
func parentsFirst(ctx context.Context, q catalogQuerier, tpl string, tables []string) ([]string, error) {
	edges, err := strs(ctx, q, `SELECT DISTINCT format('%s %s', c.relname, r.relname) FROM pg_constraint k
		JOIN pg_class c ON c.oid = k.conrelid JOIN pg_class r ON r.oid = k.confrelid
		WHERE k.connamespace = $1::regnamespace AND k.contype = 'f' AND k.conrelid <> k.confrelid`, tpl)
	if err != nil {
		return nil, fmt.Errorf("foreign keys: %w", err)
	}
	parents := map[string][]string{}
	for _, e := range edges {
		child, parent, _ := strings.Cut(e, " ")
		parents[child] = append(parents[child], parent)
	}
	var order []string
	done := map[string]bool{}
	for len(order) < len(tables) {
		before := len(order)
		for _, t := range tables {
			if !done[t] && !slices.ContainsFunc(parents[t], func(p string) bool { return !done[p] }) {
				done[t] = true
				order = append(order, t)
			}
		}
		if len(order) == before {
			return nil, fmt.Errorf("the foreign keys of %s form a cycle; teach internal/dbtest/pgclone.go to reset it", tpl)
		}
	}
	return order, nil
}

// rowsScript copies the rows the migrations wrote into the template
// (goose's versions, fixed rows), parents first, generated columns left
// out, and sets the sequences where the template's are.
func rowsScript(ctx context.Context, q catalogQuerier, tpl string, order []string) (string, error) {
	cols, err := strs(ctx, q, `SELECT c.relname || ' ' || string_agg(quote_ident(a.attname), ', ' ORDER BY a.attnum)
		FROM pg_class c JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped AND a.attgenerated = ''
		WHERE c.relnamespace = $1::regnamespace AND c.relkind = 'r' GROUP BY c.relname`, tpl)
	if err != nil {
		return "", err
	}
	colsOf := map[string]string{}
	for _, c := range cols {
		name, list, _ := strings.Cut(c, " ")
		colsOf[name] = list
	}
	var script strings.Builder
	for _, t := range order {
		from := quoteIdent(tpl) + "." + quoteIdent(t)
		some, err := strs(ctx, q, `SELECT 'x' FROM `+from+` LIMIT 1`)
		if err != nil {
			return "", err
		}
		if len(some) > 0 {
			fmt.Fprintf(&script, "INSERT INTO %s (%s) OVERRIDING SYSTEM VALUE SELECT %[2]s FROM %s;\n", quoteIdent(t), colsOf[t], from)
		}
	}
	seqs, err := strs(ctx, q, `SELECT format('SELECT setval(%L, %s, true)', sequencename, last_value) FROM pg_sequences
		WHERE schemaname = $1 AND last_value IS NOT NULL ORDER BY sequencename`, tpl)
	for _, s := range seqs {
		script.WriteString(s + ";\n")
	}
	return script.String(), err
}

// fingerprint describes schema s, its name left out: every object's
// definition and the rows of tables (the template's). A copy, and a reset
// copy, must have the template's. One query: it runs at every reset.
func fingerprint(ctx context.Context, q catalogQuerier, s string, tables []string) ([]string, error) {
	parts := []string{
		`SELECT format('relation %s %s', relname, relkind) FROM pg_class WHERE relnamespace = $1::text::regnamespace`,
		`SELECT format('column %s.%s %s notnull=%s default=%s identity=%s generated=%s', c.relname, a.attname,
			format_type(a.atttypid, a.atttypmod), a.attnotnull, pg_get_expr(d.adbin, d.adrelid), a.attidentity, a.attgenerated)
			FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid LEFT JOIN pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum
			WHERE c.relnamespace = $1::text::regnamespace AND a.attnum > 0 AND NOT a.attisdropped`,
		`SELECT 'index ' || pg_get_indexdef(i.indexrelid) FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid
			WHERE c.relnamespace = $1::text::regnamespace`,
		`SELECT format('constraint %s %s %s %s', c.relname, k.conname, k.contype, pg_get_constraintdef(k.oid))
			FROM pg_constraint k LEFT JOIN pg_class c ON c.oid = k.conrelid WHERE k.connamespace = $1::text::regnamespace`,
		`SELECT format('trigger %s %s', pg_get_triggerdef(g.oid), g.tgenabled) FROM pg_trigger g JOIN pg_class c ON c.oid = g.tgrelid
			WHERE c.relnamespace = $1::text::regnamespace AND NOT g.tgisinternal`,
		`SELECT 'function ' || pg_get_functiondef(p.oid) FROM pg_proc p WHERE p.pronamespace = $1::text::regnamespace AND p.prokind IN ('f', 'p')`,
		`SELECT format('type %s %s', typname, typtype) FROM pg_type WHERE typnamespace = $1::text::regnamespace AND typcategory <> 'A'`,
		`SELECT 'rule ' || r.rulename FROM pg_rewrite r JOIN pg_class c ON c.oid = r.ev_class WHERE c.relnamespace = $1::text::regnamespace`,
		`SELECT 'policy ' || policyname FROM pg_policies WHERE schemaname = $1::text`,
		`SELECT format('sequence %s %s', sequencename, last_value) FROM pg_sequences WHERE schemaname = $1::text`,
		`SELECT 'other ' || p.proname FROM pg_proc p WHERE p.pronamespace = $1::text::regnamespace AND p.prokind NOT IN ('f', 'p')`,
	}
	for _, t := range tables {
		parts = append(parts, fmt.Sprintf(`SELECT format('rows %%s %%s', %s, md5(coalesce(string_agg(r::text, '|' ORDER BY r::text), '')))
			FROM %s.%s r`, quoteLiteral(t), quoteIdent(s), quoteIdent(t)))
	}
	out, err := strs(ctx, q, "("+strings.Join(parts, ")\nUNION ALL (")+")", s)
	for i, l := range out {
		out[i] = unqualify(l, s)
	}
	slices.Sort(out)
	return out, err
}

// unqualify takes schema's name off the names in a definition.
func unqualify(def, schema string) string {
	def = strings.ReplaceAll(def, quoteIdent(schema)+".", "")
	return strings.ReplaceAll(def, schema+".", "")
}

// strs runs a query of one text column.
func strs(ctx context.Context, q catalogQuerier, query string, args ...any) ([]string, error) {
	rows, err := q.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var s sql.NullString
		if err := rows.Scan(&s); err != nil {
			return nil, err
		}
		out = append(out, s.String)
	}
	return out, rows.Err()
}

func quoteIdent(s string) string   { return `"` + strings.ReplaceAll(s, `"`, `""`) + `"` }
func quoteLiteral(s string) string { return `'` + strings.ReplaceAll(s, `'`, `''`) + `'` }
