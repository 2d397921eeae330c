package dbtest

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
)

// PostgreSQL cannot copy a schema, so this file writes, once per binary,
// the SQL that rebuilds the migrated template schema (its functions,
// tables, rows, constraints, indexes and triggers, under their own names)
// in whatever schema is first on the search path. Replaying it in one
// transaction costs far less than the migrations it stands for (fewer
// statements, no data moves, no migration lock). fingerprint, compared
// once per binary between the template and a copy, makes sure the script
// missed nothing a migration may add one day.

// catalogQuerier is a connection whose search path is the template schema
// alone, so that the catalog's definitions name its objects unqualified.
type catalogQuerier interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
}

// cloneScript returns the SQL that rebuilds schema tpl in the current
// schema. q's search path must be tpl.
func cloneScript(ctx context.Context, q catalogQuerier, tpl string) (string, error) {
	var script strings.Builder
	add := func(query string, fromTemplate bool) error {
		lines, err := strs(ctx, q, query, tpl)
		for _, l := range lines {
			if !fromTemplate {
				l = unqualify(l, tpl)
			}
			script.WriteString(l)
			script.WriteString(";\n")
		}
		return err
	}
	steps := []struct {
		what, query  string
		fromTemplate bool // the statements read the template: its name stays
	}{
		{"functions", `SELECT pg_get_functiondef(p.oid) FROM pg_proc p WHERE p.pronamespace = $1::regnamespace AND p.prokind IN ('f', 'p')
			ORDER BY p.proname`, false},
		// Columns, defaults, identities, NOT NULL and CHECK constraints
		// (under their names); indexes and keys come later, by name.
		{"tables", `SELECT format('CREATE TABLE %I (LIKE %I.%I INCLUDING DEFAULTS INCLUDING IDENTITY INCLUDING GENERATED
			INCLUDING CONSTRAINTS INCLUDING STORAGE INCLUDING COMMENTS)', c.relname, $1::text, c.relname)
			FROM pg_class c WHERE c.relnamespace = $1::regnamespace AND c.relkind = 'r' ORDER BY c.relname`, true},
		{"rows", "", true}, // by addRows
		{"sequences", `SELECT format('SELECT setval(%L, %s, true)', s.sequencename, s.last_value)
			FROM pg_sequences s WHERE s.schemaname = $1 AND s.last_value IS NOT NULL ORDER BY s.sequencename`, false},
		// Keys before foreign keys, which need them.
		{"keys", `SELECT format('ALTER TABLE %I ADD CONSTRAINT %I %s', c.relname, k.conname, pg_get_constraintdef(k.oid))
			FROM pg_constraint k JOIN pg_class c ON c.oid = k.conrelid
			WHERE k.connamespace = $1::regnamespace AND k.contype IN ('p', 'u', 'x', 'f')
			ORDER BY k.contype = 'f', c.relname, k.conname`, false},
		{"indexes", `SELECT pg_get_indexdef(i.indexrelid) FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid
			WHERE c.relnamespace = $1::regnamespace
			AND NOT EXISTS (SELECT 1 FROM pg_constraint k WHERE k.conindid = i.indexrelid AND k.contype IN ('p', 'u', 'x'))
			ORDER BY c.relname`, false},
		{"triggers", `SELECT pg_get_triggerdef(g.oid) FROM pg_trigger g JOIN pg_class c ON c.oid = g.tgrelid
			WHERE c.relnamespace = $1::regnamespace AND NOT g.tgisinternal ORDER BY c.relname, g.tgname`, false},
	}
	for _, s := range steps {
		var err error
		if s.query == "" {
			err = addRows(ctx, q, tpl, &script)
		} else {
			err = add(s.query, s.fromTemplate)
		}
		if err != nil {
			return "", fmt.Errorf("%s: %w", s.what, err)
		}
	}
	return script.String(), nil
}

// addRows copies the rows the migrations wrote into the template (goose's
// versions, fixed rows) table by table, generated columns left out.
func addRows(ctx context.Context, q catalogQuerier, tpl string, script *strings.Builder) error {
	tables, err := strs(ctx, q, `SELECT c.relname || ' ' || string_agg(quote_ident(a.attname), ', ' ORDER BY a.attnum)
		FROM pg_class c JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped AND a.attgenerated = ''
		WHERE c.relnamespace = $1::regnamespace AND c.relkind = 'r' GROUP BY c.relname ORDER BY c.relname`, tpl)
	if err != nil {
		return err
	}
	for _, t := range tables {
		name, cols, _ := strings.Cut(t, " ")
		from := quoteIdent(tpl) + "." + quoteIdent(name)
		some, err := strs(ctx, q, `SELECT 'x' FROM `+from+` LIMIT 1`)
		if err != nil {
			return err
		}
		if len(some) > 0 {
			fmt.Fprintf(script, "INSERT INTO %s (%s) OVERRIDING SYSTEM VALUE SELECT %s FROM %s;\n", quoteIdent(name), cols, cols, from)
		}
	}
	return nil
}

// fingerprint describes schema s, its name left out: every object's
// definition and every table's rows. A copy must have the template's.
func fingerprint(ctx context.Context, q catalogQuerier, s string) ([]string, error) {
	var out []string
	for _, query := range []string{
		`SELECT format('relation %s %s', relname, relkind) FROM pg_class WHERE relnamespace = $1::regnamespace`,
		`SELECT format('column %s.%s %s notnull=%s default=%s identity=%s generated=%s', c.relname, a.attname,
			format_type(a.atttypid, a.atttypmod), a.attnotnull, pg_get_expr(d.adbin, d.adrelid), a.attidentity, a.attgenerated)
			FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid LEFT JOIN pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum
			WHERE c.relnamespace = $1::regnamespace AND a.attnum > 0 AND NOT a.attisdropped`,
		`SELECT 'index ' || pg_get_indexdef(i.indexrelid) FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid
			WHERE c.relnamespace = $1::regnamespace`,
		`SELECT format('constraint %s %s %s %s', c.relname, k.conname, k.contype, pg_get_constraintdef(k.oid))
			FROM pg_constraint k LEFT JOIN pg_class c ON c.oid = k.conrelid WHERE k.connamespace = $1::regnamespace`,
		`SELECT 'trigger ' || pg_get_triggerdef(g.oid) FROM pg_trigger g JOIN pg_class c ON c.oid = g.tgrelid
			WHERE c.relnamespace = $1::regnamespace AND NOT g.tgisinternal`,
		`SELECT 'function ' || pg_get_functiondef(p.oid) FROM pg_proc p WHERE p.pronamespace = $1::regnamespace AND p.prokind IN ('f', 'p')`,
		`SELECT format('type %s %s', typname, typtype) FROM pg_type WHERE typnamespace = $1::regnamespace AND typcategory <> 'A'`,
		`SELECT 'rule ' || r.rulename FROM pg_rewrite r JOIN pg_class c ON c.oid = r.ev_class WHERE c.relnamespace = $1::regnamespace`,
		`SELECT 'policy ' || policyname FROM pg_policies WHERE schemaname = $1`,
		`SELECT format('sequence %s %s', sequencename, last_value) FROM pg_sequences WHERE schemaname = $1`,
		`SELECT 'other ' || p.proname FROM pg_proc p WHERE p.pronamespace = $1::regnamespace AND p.prokind NOT IN ('f', 'p')`,
	} {
		lines, err := strs(ctx, q, query, s)
		if err != nil {
			return nil, err
		}
		out = append(out, lines...)
	}
	tables, err := strs(ctx, q, `SELECT relname FROM pg_class WHERE relnamespace = $1::regnamespace AND relkind = 'r'`, s)
	if err != nil {
		return nil, err
	}
	for _, t := range tables {
		rows, err := strs(ctx, q, fmt.Sprintf(`SELECT format('rows %%s %%s', %s, md5(coalesce(string_agg(r::text, '|' ORDER BY r::text), '')))
			FROM %s.%s r`, quoteLiteral(t), quoteIdent(s), quoteIdent(t)))
		if err != nil {
			return nil, err
		}
		out = append(out, rows...)
	}
	for i, l := range out {
		out[i] = unqualify(l, s)
	}
	return out, nil
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
