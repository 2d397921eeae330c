package store

import (
	"context"
	"database/sql"
	"fmt"
	"slices"
	"strings"

	"github.com/bankrail/bankrail/internal/errs"
	"github.com/bankrail/bankrail/internal/sandbox"
)

var _ sandbox.Store = (*Store)(nil)

// keptTables are never dumped nor replaced: the migrations' bookkeeping,
// the token signing keys (tokens of seed users keep working across a reset,
// and every instance caches them), the baseline itself, the API rate
// limit's counts (the operator's limit, not sandbox data: a reset or a
// restore must not start a new window), SQLite's unlock of the ledger
// postings (migration_postings.go), the instance's recorded mode
// (instance.go: a restore must not carry another instance's mode in) and
// the payments' counts, which the store keeps as it writes payments (a
// restore's too) and their delete triggers as a reset deletes them
// (payment_counts.go, migration_payment_counts.go).
var keptTables = []string{"goose_db_version", "signing_keys", "sandbox_baseline", "api_rate_limits", postingsUnlockTable,
	"instance_settings", paymentCountsTable}

// tableInfo describes one table of the schema.
type tableInfo struct {
	name    string
	columns []string
	parents []string      // tables it references (itself excluded)
	self    [][2]string   // its references to itself: (column, referenced column)
	refs    []sandbox.Ref // its references to other tables, sorted
}

// Engine names the database engine.
func (s *Store) Engine() string { return string(s.dialect) }

// SchemaVersion is the database's migration version.
func (s *Store) SchemaVersion(ctx context.Context) (int64, error) {
	var v int64
	err := s.read.QueryRowContext(ctx, `SELECT COALESCE(MAX(version_id), 0) FROM goose_db_version`).Scan(&v)
	return v, translate(err, "schema version")
}

// schemaTables lists the tables of the schema, but the kept ones, parents
// before children.
func (s *Store) schemaTables(ctx context.Context, q querier) ([]tableInfo, error) {
	var namesSQL, columnsSQL, refsSQL string
	if s.dialect == Postgres {
		namesSQL = `SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema() AND table_type = 'BASE TABLE'`
		columnsSQL = `SELECT column_name FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = $1
			ORDER BY ordinal_position`
		refsSQL = `SELECT rf.relname, a1.attname, a2.attname FROM pg_constraint c
			JOIN pg_class cl ON cl.oid = c.conrelid JOIN pg_class rf ON rf.oid = c.confrelid
			JOIN pg_namespace n ON n.oid = cl.relnamespace
			CROSS JOIN LATERAL unnest(c.conkey, c.confkey) AS k(f, t)
			JOIN pg_attribute a1 ON a1.attrelid = c.conrelid AND a1.attnum = k.f
			JOIN pg_attribute a2 ON a2.attrelid = c.confrelid AND a2.attnum = k.t
			WHERE c.contype = 'f' AND n.nspname = current_schema() AND cl.relname = $1`
	} else {
		namesSQL = `SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'`
		columnsSQL = `SELECT name FROM pragma_table_info($1) ORDER BY cid`
		refsSQL = `SELECT "table", "from", COALESCE("to", 'id') FROM pragma_foreign_key_list($1)`
	}
	names, err := queryStrings(ctx, q, namesSQL)
	if err != nil {
		return nil, translate(err, "list tables")
	}
	names = slices.DeleteFunc(names, func(n string) bool { return slices.Contains(keptTables, n) })
	slices.Sort(names)
	byName := map[string]*tableInfo{}
	for _, n := range names {
		t := &tableInfo{name: n}
		if t.columns, err = queryStrings(ctx, q, columnsSQL, n); err != nil {
			return nil, translate(err, "columns of "+n)
		}
		rows, err := q.QueryContext(ctx, refsSQL, n)
		if err != nil {
			return nil, translate(err, "references of "+n)
		}
		for rows.Next() {
			var parent, from, to string
			if err := rows.Scan(&parent, &from, &to); err != nil {
				rows.Close()
				return nil, translate(err, "references of "+n)
			}
			if parent == n {
				t.self = append(t.self, [2]string{from, to})
				continue
			}
			t.refs = append(t.refs, sandbox.Ref{Column: from, Parent: parent, ParentColumn: to})
			if !slices.Contains(t.parents, parent) {
				t.parents = append(t.parents, parent)
			}
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return nil, translate(err, "references of "+n)
		}
		slices.SortFunc(t.refs, func(a, b sandbox.Ref) int { return strings.Compare(a.Column+a.Parent, b.Column+b.Parent) })
		byName[n] = t
	}
	// Parents first (depth-first, names sorted, so the order is stable).
	var order []tableInfo
	state := map[string]int{}
	var visit func(n string) error
	visit = func(n string) error {
		t, ok := byName[n]
		switch {
		case !ok || state[n] == 2:
			return nil // a kept table, or placed already
		case state[n] == 1:
			return fmt.Errorf("tables reference each other in a cycle through %s", n)
		}
		state[n] = 1
		for _, p := range t.parents {
			if err := visit(p); err != nil {
				return err
			}
		}
		state[n] = 2
		order = append(order, *t)
		return nil
	}
	for _, n := range names {
		if err := visit(n); err != nil {
			return nil, err
		}
	}
	return order, nil
}

// queryStrings reads one text column.
func queryStrings(ctx context.Context, q querier, query string, args ...any) ([]string, error) {
	rows, err := q.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var v string
		if err := rows.Scan(&v); err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, rows.Err()
}

// quote quotes an identifier read from the catalog.
func quote(name string) string { return `"` + strings.ReplaceAll(name, `"`, `""`) + `"` }

// DumpTables writes every table but the kept ones, parents first, in one
// read transaction (one snapshot of the database).
func (s *Store) DumpTables(ctx context.Context, w sandbox.TableWriter) error {
	return s.readTx(ctx, func(tx *sql.Tx) error {
		tables, err := s.schemaTables(ctx, tx)
		if err != nil {
			return err
		}
		for _, t := range tables {
			if err := dumpRows(ctx, tx, t, "", w); err != nil {
				return err
			}
		}
		return nil
	})
}

// ReplaceTables empties every table but the kept ones and writes tables
// instead, in one transaction: parents before children, and within a table
// that references itself (customers) each row after the row it names.
// check reads the books as written, before the commit: its error rolls
// everything back.
//
// On PostgreSQL, TRUNCATE locks the tables one by one while the instance's
// workers keep running; a worker holding one of them and waiting for another
// makes a deadlock that PostgreSQL may settle by aborting this transaction.
// Nothing of it has then happened, so it is tried again, a few times.
func (s *Store) ReplaceTables(ctx context.Context, tables []sandbox.Table, check sandbox.BooksCheck) (int64, error) {
	for attempt := 1; ; attempt++ {
		n, err := s.replaceTables(ctx, tables, check)
		if err == nil || !isDeadlock(err) || attempt == 5 {
			return n, err
		}
	}
}

// replaceTables is one attempt of ReplaceTables.
func (s *Store) replaceTables(ctx context.Context, tables []sandbox.Table, check sandbox.BooksCheck) (int64, error) {
	var written int64
	err := s.inTx(ctx, func(tx *sql.Tx) error {
		schema, err := s.schemaTables(ctx, tx)
		if err != nil {
			return err
		}
		byName := map[string]tableInfo{}
		for _, t := range schema {
			byName[t.name] = t
		}
		given := map[string]sandbox.Table{}
		for _, t := range tables {
			info, ok := byName[t.Name]
			if !ok {
				return notInSchema("table %s is not in this database", t.Name)
			}
			for _, c := range t.Columns {
				if !slices.Contains(info.columns, c) {
					return notInSchema("table %s has no column %s in this database", t.Name, c)
				}
			}
			given[t.Name] = t
		}
		if err := s.emptyTables(ctx, tx, schema); err != nil {
			return err
		}
		for _, info := range schema {
			t, ok := given[info.name]
			if !ok || len(t.Rows) == 0 {
				continue
			}
			n, err := s.insertRows(ctx, tx, t, selfOrder(t, info.self))
			if err != nil {
				return refusedRow(err, t.Name)
			}
			written += n
		}
		if check != nil {
			if err := check(ctx, booksReader{q: tx}); err != nil {
				return err
			}
		}
		s.wakeAfterCommit(tx)
		return nil
	})
	return written, err
}

// notInSchema is the refusal of a file whose tables do not fit the database.
func notInSchema(format string, args ...any) error {
	var v errs.Validation
	v.Add(errs.InvalidValue, "tables", "The snapshot does not fit this database: "+format+".", args...)
	return v.Err()
}

// refusedRow is the refusal of an instance's snapshot whose row the
// database refused (a null where none may be, a broken reference or check):
// VALIDATION_FAILURE, not an internal error.
func refusedRow(err error, table string) error {
	if !isConstraintViolation(err) {
		return err
	}
	return notInSchema("a row of table %s breaks a constraint (%v)", table, constraintOf(err))
}

// emptyTables deletes every row of tables, children first. It is the one
// deliberate removal of ledger postings: it unlocks them (triggers of
// version 47) for the time of its statements, inside tx.
func (s *Store) emptyTables(ctx context.Context, tx *sql.Tx, tables []tableInfo) error {
	lock, err := s.unlockPostings(ctx, tx)
	if err != nil {
		return err
	}
	if err := s.deleteRows(ctx, tx, tables); err != nil {
		return err
	}
	return lock()
}

// deleteRows deletes every row of tables: TRUNCATE on PostgreSQL (with
// the payments' counts, which TRUNCATE's lack of row triggers would leave
// behind), DELETE children first on SQLite (whose triggers count down).
func (s *Store) deleteRows(ctx context.Context, tx *sql.Tx, tables []tableInfo) error {
	if s.dialect == Postgres {
		names := make([]string, len(tables))
		for i, t := range tables {
			names[i] = quote(t.name)
			if t.name == "payments" {
				names = append(names, paymentCountsTable)
			}
		}
		_, err := tx.ExecContext(ctx, `TRUNCATE `+strings.Join(names, ", "))
		return translate(err, "empty tables")
	}
	if _, err := tx.ExecContext(ctx, `PRAGMA defer_foreign_keys = ON`); err != nil {
		return translate(err, "defer foreign keys")
	}
	for _, t := range slices.Backward(tables) {
		if _, err := tx.ExecContext(ctx, `DELETE FROM `+quote(t.name)); err != nil {
			return translate(err, "empty table "+t.name)
		}
	}
	return nil
}

// selfOrder orders the rows of t so that a row naming another row of t
// (a customer's parent) comes after it.
func selfOrder(t sandbox.Table, self [][2]string) [][]any {
	if len(self) == 0 {
		return t.Rows
	}
	col := func(name string) int { return slices.Index(t.Columns, name) }
	type ref struct{ from, to int }
	var refs []ref
	for _, r := range self {
		if f, to := col(r[0]), col(r[1]); f >= 0 && to >= 0 {
			refs = append(refs, ref{f, to})
		}
	}
	key := func(v any) string { return fmt.Sprintf("%T:%v", v, v) }
	index := map[string]int{} // referenced value -> row (per referenced column)
	for i, row := range t.Rows {
		for _, r := range refs {
			index[fmt.Sprint(r.to)+"|"+key(row[r.to])] = i
		}
	}
	done := make([]bool, len(t.Rows))
	out := make([][]any, 0, len(t.Rows))
	var place func(i int, depth int)
	place = func(i, depth int) {
		if done[i] || depth > len(t.Rows) {
			return
		}
		done[i] = true
		for _, r := range refs {
			if v := t.Rows[i][r.from]; v != nil {
				if j, ok := index[fmt.Sprint(r.to)+"|"+key(v)]; ok && j != i {
					place(j, depth+1)
				}
			}
		}
		out = append(out, t.Rows[i])
	}
	for i := range t.Rows {
		place(i, 0)
	}
	return out
}

// insertRows writes rows into t's columns, many rows per statement; the
// payments among them are counted when tx commits (countRestored).
func (s *Store) insertRows(ctx context.Context, tx *sql.Tx, t sandbox.Table, rows [][]any) (int64, error) {
	n, err := insertRows(ctx, tx, t, rows)
	if err != nil || t.Name != "payments" {
		return n, err
	}
	return n, s.countRestored(ctx, tx, t.Columns, rows)
}

// insertRows writes rows into t's columns, many rows per statement.
func insertRows(ctx context.Context, tx *sql.Tx, t sandbox.Table, rows [][]any) (int64, error) {
	cols := make([]string, len(t.Columns))
	for i, c := range t.Columns {
		cols[i] = quote(c)
	}
	per := max(1, 30000/len(cols)) // under both engines' bound on parameters
	var n int64
	for chunk := range slices.Chunk(rows, per) {
		args := make([]any, 0, len(chunk)*len(cols))
		values := make([]string, len(chunk))
		for i, row := range chunk {
			ph := make([]string, len(row))
			for j, v := range row {
				args = append(args, v)
				ph[j] = fmt.Sprintf("$%d", len(args))
			}
			values[i] = "(" + strings.Join(ph, ", ") + ")"
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO `+quote(t.Name)+` (`+strings.Join(cols, ", ")+`) VALUES `+
			strings.Join(values, ", "), args...); err != nil {
			return n, fmt.Errorf("write table %s: %w", t.Name, err)
		}
		n += int64(len(chunk))
	}
	return n, nil
}
