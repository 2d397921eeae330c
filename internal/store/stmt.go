package store

import (
	"context"
	"database/sql"
	"fmt"
	"slices"
	"sync"
)

// stmtCache keeps prepared statements of the hot queries. SQLite (modernc)
// parses every statement it is given, which costs more than running a short
// one; a *sql.Stmt is prepared once per connection and reused. (pgx caches
// prepared statements by itself; the cache is harmless there.)
type stmtCache struct {
	mu    sync.RWMutex
	stmts map[stmtKey]*sql.Stmt
}

type stmtKey struct {
	db    *sql.DB
	query string
}

// prepared returns the cached statement of query on db, preparing it once.
func (s *Store) prepared(ctx context.Context, db *sql.DB, query string) (*sql.Stmt, error) {
	c := &s.stmts
	c.mu.Lock()
	defer c.mu.Unlock()
	if st, ok := c.stmts[stmtKey{db, query}]; ok {
		return st, nil
	}
	st, err := db.PrepareContext(ctx, query)
	if err != nil {
		return nil, fmt.Errorf("prepare statement: %w", err)
	}
	if c.stmts == nil {
		c.stmts = map[stmtKey]*sql.Stmt{}
	}
	c.stmts[stmtKey{db, query}] = st
	return st, nil
}

// closeStatements closes every cached statement.
func (s *Store) closeStatements() {
	s.stmts.mu.Lock()
	defer s.stmts.mu.Unlock()
	for k, st := range s.stmts.stmts {
		_ = st.Close()
		delete(s.stmts.stmts, k)
	}
}

// hotWrites are the statements of the hot write paths run inside units of
// work. They are prepared on the write pool before a transaction begins
// (warmWrites): preparing on the write pool from inside a SQLite
// transaction would wait for the one writer connection that transaction
// holds.
var hotWrites = []string{insertPayment, insertEventSQL, insertDoneKey}

// hotQueries are the statements of the hot paths that repositories run
// through a querier, inside a unit of work or on the read pool: the
// Connect account and alias look-ups of every POST /payments and the
// audit entry of every change. hotQuerier runs them prepared.
var hotQueries = []string{connectAccountsSQL, aliasByIBANSQL, insertAuditSQL}

// warmWrites prepares hotWrites and hotQueries once (hotQueries on the read
// pool too). A failure (say, before the tables exist) is tried again on the
// next transaction; txStmt then runs the SQL unprepared.
func (s *Store) warmWrites(ctx context.Context) {
	if s.warm.Load() {
		return
	}
	for _, q := range slices.Concat(hotWrites, hotQueries, batchWrites(s.dialect), countWrites(s.dialect)) {
		if _, err := s.prepared(ctx, s.write, q); err != nil {
			return
		}
	}
	if s.read != s.write {
		for _, q := range hotQueries {
			if _, err := s.prepared(ctx, s.read, q); err != nil {
				return
			}
		}
	}
	s.warm.Store(true)
}

// txExec runs query with args inside tx, through its prepared statement
// when warmWrites has made one.
func (s *Store) txExec(ctx context.Context, tx *sql.Tx, query string, args ...any) (sql.Result, error) {
	if st := s.warmStmt(query); st != nil {
		return tx.StmtContext(ctx, st).ExecContext(ctx, args...)
	}
	return tx.ExecContext(ctx, query, args...)
}

// warmStmt is the statement warmWrites prepared for query, or nil.
func (s *Store) warmStmt(query string) *sql.Stmt { return s.warmStmtOn(s.write, query) }

// warmStmtOn is the statement warmWrites prepared for query on db, or nil.
// It never prepares: preparing on the write pool from inside a SQLite
// transaction would wait for the writer that transaction holds.
func (s *Store) warmStmtOn(db *sql.DB, query string) *sql.Stmt {
	s.stmts.mu.RLock()
	defer s.stmts.mu.RUnlock()
	return s.stmts.stmts[stmtKey{db, query}]
}

// hotQuerier is a querier, a unit of work's transaction (tx set) or a pool,
// that runs the statements warmWrites prepared through them and any other
// SQL as it is.
type hotQuerier struct {
	s  *Store
	db *sql.DB
	tx *sql.Tx // nil on a pool
}

// inside is tx as a querier of prepared hot statements.
func (s *Store) inside(tx *sql.Tx) querier { return hotQuerier{s: s, db: s.write, tx: tx} }

// onPool is db as a querier of prepared hot statements.
func (s *Store) onPool(db *sql.DB) querier { return hotQuerier{s: s, db: db} }

// stmt is the prepared statement of query for this querier, or nil.
func (h hotQuerier) stmt(ctx context.Context, query string) *sql.Stmt {
	st := h.s.warmStmtOn(h.db, query)
	if st != nil && h.tx != nil {
		return h.tx.StmtContext(ctx, st)
	}
	return st
}

// ExecContext runs query, prepared when it is a hot one.
func (h hotQuerier) ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error) {
	if st := h.stmt(ctx, query); st != nil {
		return st.ExecContext(ctx, args...)
	}
	if h.tx != nil {
		return h.tx.ExecContext(ctx, query, args...)
	}
	return h.db.ExecContext(ctx, query, args...)
}

// QueryContext runs query, prepared when it is a hot one.
func (h hotQuerier) QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	if st := h.stmt(ctx, query); st != nil {
		return st.QueryContext(ctx, args...)
	}
	if h.tx != nil {
		return h.tx.QueryContext(ctx, query, args...)
	}
	return h.db.QueryContext(ctx, query, args...)
}

// QueryRowContext runs query, prepared when it is a hot one.
func (h hotQuerier) QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row {
	if st := h.stmt(ctx, query); st != nil {
		return st.QueryRowContext(ctx, args...)
	}
	if h.tx != nil {
		return h.tx.QueryRowContext(ctx, query, args...)
	}
	return h.db.QueryRowContext(ctx, query, args...)
}
