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
