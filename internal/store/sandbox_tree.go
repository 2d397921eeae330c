package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/jackc/pgx/v5/pgconn"
	"modernc.org/sqlite"

	"github.com/bankrail/bankrail/internal/errs"
	"github.com/bankrail/bankrail/internal/sandbox"
)

// treeCustomers is the subquery of the customers of the tree of $1.
const treeCustomers = `SELECT descendant_id FROM customer_tree WHERE ancestor_id = $1`

// treeSchema is the schema as a tree sees it: the tables a tree's file
// holds (parents first) and the SQL condition that picks each table's rows
// of the tree of $1, for those tables and for the kept ones they name.
type treeSchema struct {
	tables []tableInfo
	where  map[string]string // table -> condition on its rows
}

// treeOf reads which tables belong to a tree and how: a table with the
// owner column (customer_id) by its value, any other by its first
// reference to a table that belongs; sandbox.TreeKept never (but the kept
// tables still get a condition, for the values rows may name).
func (s *Store) treeOf(ctx context.Context, q querier) (treeSchema, error) {
	all, err := s.schemaTables(ctx, q)
	if err != nil {
		return treeSchema{}, err
	}
	ts := treeSchema{where: map[string]string{"customers": `id IN (` + treeCustomers + `)`}}
	for _, t := range all {
		cond, ok := ts.where[t.name]
		if !ok && slices.Contains(t.columns, sandbox.OwnerColumn) {
			cond, ok = quote(sandbox.OwnerColumn)+` IN (`+treeCustomers+`)`, true
		}
		for _, r := range t.refs {
			if ok {
				break
			}
			if pc, found := ts.where[r.Parent]; found {
				cond, ok = quote(r.Column)+` IN (SELECT `+quote(r.ParentColumn)+` FROM `+quote(r.Parent)+` WHERE `+pc+`)`, true
			}
		}
		if !ok {
			continue // no customer's: the instance's own (sign-in counts)
		}
		ts.where[t.name] = cond
		if !slices.Contains(sandbox.TreeKept, t.name) {
			ts.tables = append(ts.tables, t)
		}
	}
	return ts, nil
}

// DumpTree writes the rows of the tree of root of every table a tree's
// file holds, parents first, in one read transaction.
func (s *Store) DumpTree(ctx context.Context, root string, w sandbox.TableWriter) error {
	return s.readTx(ctx, func(tx *sql.Tx) error {
		ts, err := s.treeOf(ctx, tx)
		if err != nil {
			return err
		}
		for _, t := range ts.tables {
			if err := dumpRows(ctx, tx, t, ` WHERE `+ts.where[t.name], w, root); err != nil {
				return err
			}
		}
		return nil
	})
}

// ReplaceTree deletes the tree's rows of every table a tree's file holds
// and writes instead what keep keeps of tables, in one transaction, tried
// again on a deadlock as ReplaceTables.
func (s *Store) ReplaceTree(ctx context.Context, root string, tables []sandbox.Table, keep sandbox.TreeFilter, check sandbox.BooksCheck) (int, int64, error) {
	for attempt := 1; ; attempt++ {
		n, rows, err := s.replaceTree(ctx, root, tables, keep, check)
		if err == nil || !isDeadlock(err) || attempt == 5 {
			return n, rows, err
		}
	}
}

func (s *Store) replaceTree(ctx context.Context, root string, tables []sandbox.Table, keep sandbox.TreeFilter, check sandbox.BooksCheck) (int, int64, error) {
	var written int
	var rows int64
	err := s.inTx(ctx, func(tx *sql.Tx) error {
		ts, err := s.treeOf(ctx, tx)
		if err != nil {
			return err
		}
		tree, err := queryStrings(ctx, tx, treeCustomers, root)
		if err != nil {
			return translate(err, "customer tree")
		}
		kept, err := s.keptValues(ctx, tx, ts, root)
		if err != nil {
			return err
		}
		schema := make([]sandbox.TreeTable, len(ts.tables))
		byName := map[string]tableInfo{}
		for i, t := range ts.tables {
			schema[i] = sandbox.TreeTable{Name: t.name, Columns: t.columns, Refs: t.refs}
			byName[t.name] = t
		}
		for _, t := range tables {
			for _, c := range t.Columns {
				if info, ok := byName[t.Name]; ok && !slices.Contains(info.columns, c) {
					return notInSchema("table %s has no column %s in this database", t.Name, c)
				}
			}
		}
		mine, err := keep(schema, tree, kept, tables)
		if err != nil {
			return err
		}
		if err := s.deleteTree(ctx, tx, ts, root); err != nil {
			return err
		}
		for _, t := range mine {
			if len(t.Rows) == 0 {
				continue
			}
			n, err := s.insertRows(ctx, tx, t, selfOrder(t, byName[t.Name].self))
			if err != nil {
				return collision(err, t.Name)
			}
			written, rows = written+1, rows+n
		}
		if check != nil {
			if err := check(ctx, booksReader{q: tx}); err != nil {
				return err
			}
		}
		s.wakeAfterCommit(tx)
		return nil
	})
	return written, rows, err
}

// keptValues reads the values the tree's rows may name of the kept tables
// they reference (the tree's applications, users, customers), and the
// client ids of its applications.
func (s *Store) keptValues(ctx context.Context, tx *sql.Tx, ts treeSchema, root string) (sandbox.Owned, error) {
	kept := sandbox.Owned{}
	read := func(table, column string) error {
		vals, err := queryStrings(ctx, tx, `SELECT `+quote(column)+` FROM `+quote(table)+` WHERE `+ts.where[table], root)
		if err != nil {
			return translate(err, "values of "+table)
		}
		for _, v := range vals {
			kept.Add(table, column, v)
		}
		return nil
	}
	if err := read("applications", "client_id"); err != nil {
		return nil, err
	}
	for _, t := range ts.tables {
		for _, r := range t.refs {
			if _, ok := ts.where[r.Parent]; ok && slices.Contains(sandbox.TreeKept, r.Parent) {
				if err := read(r.Parent, r.ParentColumn); err != nil {
					return nil, err
				}
			}
		}
	}
	return kept, nil
}

// deleteTree deletes the tree's rows of every table of ts, children first,
// the ledger's postings unlocked for the time of it (as emptyTables).
func (s *Store) deleteTree(ctx context.Context, tx *sql.Tx, ts treeSchema, root string) error {
	lock, err := s.unlockPostings(ctx, tx)
	if err != nil {
		return err
	}
	if s.dialect == SQLite {
		if _, err := tx.ExecContext(ctx, `PRAGMA defer_foreign_keys = ON`); err != nil {
			return translate(err, "defer foreign keys")
		}
	}
	for _, t := range slices.Backward(ts.tables) {
		if _, err := tx.ExecContext(ctx, `DELETE FROM `+quote(t.name)+` WHERE `+ts.where[t.name], root); err != nil {
			return translate(err, "empty the tree's rows of "+t.name)
		}
	}
	return lock()
}

// collision is the refusal of a tree's row that the database refused: one
// that has the id or a unique value of a row outside the tree, names a row
// that does not exist, or breaks another constraint.
func collision(err error, table string) error {
	if !isConstraintViolation(err) {
		return err
	}
	var v errs.Validation
	v.Add(errs.InvalidValue, "tables", "The snapshot reaches outside your customer tree or does not fit this database: a row of table %s "+
		"has the id or a unique value of a row outside it, names a row that does not exist, or breaks a constraint (%v); nothing was restored.",
		table, constraintOf(err))
	return v.Err()
}

// constraintOf names what a refused row broke, without the row's values.
func constraintOf(err error) string {
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) {
		return pgErr.ConstraintName + " " + pgErr.Code
	}
	var sqErr *sqlite.Error
	if errors.As(err, &sqErr) {
		return sqlite.ErrorCodeString[sqErr.Code()]
	}
	return "a constraint"
}

// dumpRows writes t's rows that where (with args) picks, ordered by the
// first column.
func dumpRows(ctx context.Context, tx *sql.Tx, t tableInfo, where string, w sandbox.TableWriter, args ...any) error {
	if err := w.Table(t.name, t.columns); err != nil {
		return err
	}
	cols := make([]string, len(t.columns))
	for i, c := range t.columns {
		cols[i] = quote(c)
	}
	rows, err := tx.QueryContext(ctx, `SELECT `+strings.Join(cols, ", ")+` FROM `+quote(t.name)+where+` ORDER BY 1`, args...)
	if err != nil {
		return translate(err, "read table "+t.name)
	}
	defer rows.Close()
	for rows.Next() {
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			return translate(err, "read table "+t.name)
		}
		if err := w.Row(vals); err != nil {
			return err
		}
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("read table %s: %w", t.name, err)
	}
	return nil
}
