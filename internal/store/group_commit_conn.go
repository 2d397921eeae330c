package store

import (
	"context"
	"database/sql"
	"fmt"
)

// beginGroup begins the transaction of a group; on PostgreSQL on a
// connection of its own, which flushUnit reaches the queue of its writes
// through (the caller closes it, closeGroupConn, as soon as the transaction
// ended; nil on SQLite, which queues nothing). The group's context (ctx,
// its BEGIN, SAVEPOINT and COMMIT; each unit's statements use the unit's
// own) is bounded by Timeouts.Statement: a database that stops answering
// (a network partition) fails the group instead of holding its units for
// ever. When it cannot begin, it answers every unit with that error and
// returns a nil transaction.
func (g *groupCommit) beginGroup(s *Store, batch []*unit) (*sql.Tx, groupConn, context.Context) {
	ctx, cancel := s.statementContext()
	gc := groupConn{cancel: cancel}
	var tx *sql.Tx
	var err error
	if s.dialect != Postgres {
		tx, err = s.write.BeginTx(ctx, nil)
	} else if gc.conn, err = s.write.Conn(ctx); err == nil {
		tx, err = gc.conn.BeginTx(ctx, nil)
	}
	if err != nil {
		closeGroupConn(gc) // the begin's error is the one to report
		for _, u := range batch {
			u.finish(fmt.Errorf("begin transaction: %w", err))
		}
		return nil, groupConn{}, nil
	}
	return tx, gc, ctx
}

// groupConn is a group's connection (nil on SQLite) and the end of its
// context.
type groupConn struct {
	conn   *sql.Conn
	cancel context.CancelFunc
}

// closeGroupConn gives a group's connection back to the pool and ends its
// context.
func closeGroupConn(c groupConn) {
	if c.conn != nil {
		_ = c.conn.Close() // the transaction's outcome is known: nothing to report
	}
	if c.cancel != nil {
		c.cancel()
	}
}
