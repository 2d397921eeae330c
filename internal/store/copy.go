package store

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"
)

// Bulk inserts by COPY (PostgreSQL). A statement import's batch writes
// hundreds of rows of a few tables (ledger transactions and postings,
// payment events, notifications); a multi-row INSERT of them costs the
// backend a bind of every value as a parameter and the executor a tuple
// at a time, where COPY ... FROM STDIN (binary) reads the rows as a stream
// and writes them to the heap in groups. The copy runs on the unit of
// work's own connection and transaction: a pipeConn's Exec marked by
// copying (below) flushes the writes queued before it, then copies
// instead of running its query, so what it writes commits or rolls back
// with the unit, and a copy that fails (a unique violation) aborts the
// transaction as a failed INSERT would.

// copyMinRows is the fewest rows copyRows copies: fewer go in INSERTs (a
// COPY's round trips are not worth a handful of rows).
const copyMinRows = 32

// copyKey marks a context whose Exec on a pipeConn is a copy.
type copyKey struct{}

// copyRequest is the copy a context marked by copying asks for.
type copyRequest struct {
	table string
	cols  []string
	rows  [][]any
}

// copying returns ctx marked so that an Exec with it inside a transaction
// on a pipeConn copies rows (each of len(cols) values) into table's cols.
func copying(ctx context.Context, table string, cols []string, rows [][]any) context.Context {
	return context.WithValue(ctx, copyKey{}, &copyRequest{table: table, cols: cols, rows: rows})
}

// copyRows inserts rows into table's cols with COPY when tx is a
// PostgreSQL transaction and there are at least copyMinRows of them, and
// reports whether it did (false: nothing was written, the caller
// inserts). The error is the driver's (callers translate it).
func (s *Store) copyRows(ctx context.Context, tx *sql.Tx, table string, cols []string, rows [][]any) (bool, error) {
	if s.dialect != Postgres || tx == nil || len(rows) < copyMinRows {
		return false, nil
	}
	res, err := tx.ExecContext(copying(ctx, table, cols, rows), "COPY "+table) // the text alone is no statement: only a pipeConn runs it
	if err != nil {
		return true, err
	}
	if n, err := res.RowsAffected(); err != nil || n != int64(len(rows)) {
		return true, fmt.Errorf("copy into %s: %d of %d rows (%v)", table, n, len(rows), err)
	}
	return true, nil
}

// copied is the result of a copy.
type copied int64

func (copied) LastInsertId() (int64, error)   { return 0, errors.New("store: a copy has no insert id") }
func (n copied) RowsAffected() (int64, error) { return int64(n), nil }

// copy runs ctx's copy, if it is marked by copying and c is in a
// transaction: the queued writes first, then the rows.
func (c *pipeConn) copy(ctx context.Context) (driver.Result, bool, error) {
	cp, ok := ctx.Value(copyKey{}).(*copyRequest)
	if !ok || !c.inTx {
		return nil, false, nil
	}
	if err := c.flush(ctx); err != nil {
		return nil, true, err
	}
	n, err := c.Conn.Conn().CopyFrom(ctx, pgx.Identifier{cp.table}, cp.cols, pgx.CopyFromRows(cp.rows))
	if err != nil {
		return nil, true, err
	}
	return copied(n), true, nil
}

// bulkInsert inserts rows (each a value of every column of cols) into
// table in tx: by COPY (copyRows), else in INSERTs of up to per rows, the
// statement of n rows being insert(dialect, n) (prepared once for a full
// part when it is one of batchWrites). Errors are translated as what.
func (s *Store) bulkInsert(ctx context.Context, tx *sql.Tx, table string, cols []string, rows [][]any, per int,
	insert func(d Dialect, n int) string, what string) error {
	if ok, err := s.copyRows(ctx, tx, table, cols, rows); ok {
		return translate(err, what)
	}
	for lo := 0; lo < len(rows); lo += per {
		part := rows[lo:min(lo+per, len(rows))]
		args := make([]any, 0, len(cols)*len(part))
		for _, row := range part {
			args = append(args, row...)
		}
		if _, err := s.txExec(ctx, tx, insert(s.dialect, len(part)), args...); err != nil {
			return translate(err, what)
		}
	}
	return nil
}
