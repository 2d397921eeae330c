package store

import (
	"context"
	"database/sql"
	"fmt"
	"sync"
)

// stmtCache keeps prepared statements of the hot queries. SQLite (modernc)
// parses every statement it is given, which costs more than running a short
// one; a *sql.Stmt is prepared once per connection and reused. (pgx caches
// prepared statements by itself; the cache is harmless there.)
type stmtCache struct {
	mu    sync.Mutex
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
var hotWrites = []string{insertPayment, insertEventSQL}

// warmWrites prepares hotWrites once. A failure (say, before the tables
// exist) is tried again on the next transaction; txStmt then runs the SQL
// unprepared.
func (s *Store) warmWrites(ctx context.Context) {
	if s.warm.Load() {
		return
	}
	for _, q := range hotWrites {
		if _, err := s.prepared(ctx, s.write, q); err != nil {
			return
		}
	}
	s.warm.Store(true)
}

// txExec runs query with args inside tx, through its prepared statement
// when warmWrites has made one.
func (s *Store) txExec(ctx context.Context, tx *sql.Tx, query string, args ...any) (sql.Result, error) {
	s.stmts.mu.Lock()
	st, ok := s.stmts.stmts[stmtKey{s.write, query}]
	s.stmts.mu.Unlock()
	if ok {
		return tx.StmtContext(ctx, st).ExecContext(ctx, args...)
	}
	return tx.ExecContext(ctx, query, args...)
}
