package store

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/stdlib"
)

// Pipelined writes (PostgreSQL). Every connection of the PostgreSQL pool
// is a pipeConn: pgx's database/sql connection with a queue. Inside a
// transaction, a write whose result nothing reads (an audit entry, an
// event, a payment whose id is made in Go) is run with a context marked by
// later: it is queued instead of sent, and answered with a result that has
// no row count. The queue goes to the server, in one round trip (a pgx
// Batch in the transaction already open on the connection), with the next
// statement that is not queued (a read, a savepoint: a unit always sees its
// own writes) just before it, or with the COMMIT, in the same round trip.
// A ROLLBACK (to a savepoint or of the transaction) drops it: every
// statement queued since the last one sent follows the last SAVEPOINT, so
// the rollback would undo it anyway.
//
// A queued write that fails fails what flushed it: the statement sent
// after it, or the commit, with the write's own error (as its caller would
// have translated it, and the driver's error beside it, so that errors.As
// still finds a PgError and a failed commit is told from a lost one). The
// group commit's savepoint pass flushes each unit before its RELEASE
// (flushUnit), which finds the unit. SQLite's driver is not wrapped: there
// later changes nothing and every write runs when it is asked.

// laterKey marks a context whose write may be queued (later).
type laterKey struct{}

// laterFailing returns ctx marked so that a write run with it inside a
// transaction on PostgreSQL may be queued; fail turns the write's error,
// should it fail when sent, into what its caller would have returned. The
// caller must not read the write's result (RowsAffected answers an error).
func laterFailing(ctx context.Context, fail func(error) error) context.Context {
	return context.WithValue(ctx, laterKey{}, fail)
}

// later is laterFailing for a write whose caller returns translate(err, what).
func later(ctx context.Context, what string) context.Context {
	return laterFailing(ctx, func(err error) error { return translate(err, what) })
}

// queuedWrite is a write waiting for the next round trip.
type queuedWrite struct {
	query string
	args  []any
	fail  func(error) error
}

// errQueued is what a queued write's result answers for its row count.
var errQueued = errors.New("store: the write is queued: its row count is not known")

type queuedResult struct{}

func (queuedResult) LastInsertId() (int64, error) { return 0, errQueued }
func (queuedResult) RowsAffected() (int64, error) { return 0, errQueued }

// flushError is a queued write's failure: its caller's error and the
// driver's.
type flushError struct{ caller, driver error }

func (e flushError) Error() string   { return e.caller.Error() }
func (e flushError) Unwrap() []error { return []error{e.caller, e.driver} }

// pipeConnector makes pipeConns; sent counts the queued writes they sent.
type pipeConnector struct {
	driver.Connector
	sent *atomic.Int64
}

// Connect implements driver.Connector.
func (c pipeConnector) Connect(ctx context.Context) (driver.Conn, error) {
	dc, err := c.Connector.Connect(ctx)
	if err != nil {
		return nil, err
	}
	sc, ok := dc.(*stdlib.Conn)
	if !ok {
		_ = dc.Close()
		return nil, fmt.Errorf("a pgx connection of type %T", dc)
	}
	return &pipeConn{Conn: sc, sent: c.sent}, nil
}

// pipeConn is a pgx connection that queues later writes inside a
// transaction. database/sql uses a connection from one goroutine at a
// time, so its queue needs no lock.
type pipeConn struct {
	*stdlib.Conn
	sent  *atomic.Int64
	inTx  bool
	queue []queuedWrite
}

// queued reports whether a write with ctx is to be queued, and queues it.
func (c *pipeConn) queued(ctx context.Context, query string, argsV []driver.NamedValue) bool {
	fail, ok := ctx.Value(laterKey{}).(func(error) error)
	if !ok || !c.inTx {
		return false
	}
	args := make([]any, len(argsV))
	for i, v := range argsV {
		args[i] = v.Value
	}
	c.queue = append(c.queue, queuedWrite{query: query, args: args, fail: fail})
	return true
}

// before is called before query is sent: it sends the queue first, or
// drops it when query rolls back.
func (c *pipeConn) before(ctx context.Context, query string) error {
	if len(c.queue) == 0 {
		return nil
	}
	if q := strings.TrimSpace(query); len(q) >= 8 && strings.EqualFold(q[:8], "ROLLBACK") {
		c.queue = nil
		return nil
	}
	_, err := c.send(ctx, "")
	return err
}

// send sends the queue, and tail after it when not empty, in one round
// trip, and returns tail's command tag. The first failure is returned;
// the server skips what follows it.
func (c *pipeConn) send(ctx context.Context, tail string) (string, error) {
	queue := c.queue
	c.queue = nil
	c.sent.Add(int64(len(queue)))
	b := &pgx.Batch{}
	for _, w := range queue {
		b.Queue(w.query, w.args...)
	}
	if tail != "" {
		b.Queue(tail)
	}
	br := c.Conn.Conn().SendBatch(ctx, b)
	var failed error
	for _, w := range queue {
		if _, err := br.Exec(); err != nil {
			failed = flushError{caller: w.fail(err), driver: err}
			break
		}
	}
	var tag string
	if failed == nil && tail != "" {
		t, err := br.Exec()
		tag, failed = t.String(), err
	}
	if err := br.Close(); failed == nil {
		failed = err
	}
	return tag, failed
}

// flush sends the queue now (flushUnit).
func (c *pipeConn) flush(ctx context.Context) error {
	if len(c.queue) == 0 {
		return nil
	}
	_, err := c.send(ctx, "")
	return err
}

// ExecContext implements driver.ExecerContext.
func (c *pipeConn) ExecContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Result, error) {
	if res, ok, err := c.copy(ctx); ok {
		return res, err
	}
	if c.queued(ctx, query, args) {
		return queuedResult{}, nil
	}
	if err := c.before(ctx, query); err != nil {
		return nil, err
	}
	return c.Conn.ExecContext(ctx, query, args)
}

// QueryContext implements driver.QueryerContext.
func (c *pipeConn) QueryContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Rows, error) {
	if err := c.before(ctx, query); err != nil {
		return nil, err
	}
	return c.Conn.QueryContext(ctx, query, args)
}

// PrepareContext implements driver.ConnPrepareContext.
// Preparing reads no data: the queue stays.
func (c *pipeConn) PrepareContext(ctx context.Context, query string) (driver.Stmt, error) {
	st, err := c.Conn.PrepareContext(ctx, query)
	if err != nil {
		return nil, err
	}
	return &pipeStmt{Stmt: st.(*stdlib.Stmt), c: c, query: query}, nil
}

// Prepare implements driver.Conn.
func (c *pipeConn) Prepare(query string) (driver.Stmt, error) {
	return c.PrepareContext(context.Background(), query)
}

// BeginTx implements driver.ConnBeginTx.
func (c *pipeConn) BeginTx(ctx context.Context, opts driver.TxOptions) (driver.Tx, error) {
	tx, err := c.Conn.BeginTx(ctx, opts)
	if err != nil {
		return nil, err
	}
	c.inTx, c.queue = true, nil
	return &pipeTx{Tx: tx, c: c, ctx: ctx}, nil
}

// Begin implements driver.Conn.
func (c *pipeConn) Begin() (driver.Tx, error) {
	return c.BeginTx(context.Background(), driver.TxOptions{})
}

// ResetSession implements driver.SessionResetter.
func (c *pipeConn) ResetSession(ctx context.Context) error {
	c.inTx, c.queue = false, nil
	return c.Conn.ResetSession(ctx)
}

// pipeTx is a transaction on a pipeConn: its commit carries the queue.
type pipeTx struct {
	driver.Tx
	c   *pipeConn
	ctx context.Context // the transaction's, as pgx's own commit uses
}

// Commit implements driver.Tx: with writes queued, they and the COMMIT go
// in one round trip. A queued write that failed leaves the transaction
// aborted: it is rolled back and the write's error returned (a PgError
// inside: the commit committed nothing). pgx's transaction object is left
// behind unused: it keeps no state on the connection.
func (t *pipeTx) Commit() error {
	c := t.c
	c.inTx = false
	if len(c.queue) == 0 {
		return t.Tx.Commit()
	}
	tag, err := c.send(t.ctx, "COMMIT")
	pc := c.Conn.Conn()
	if err != nil {
		if !pc.IsClosed() && pc.PgConn().TxStatus() != 'I' {
			if _, rerr := pc.Exec(context.Background(), "ROLLBACK"); rerr != nil {
				_ = pc.Close(context.Background()) // a connection in an unknown state is not reused
			}
		}
		return err
	}
	if tag == "ROLLBACK" {
		return pgx.ErrTxCommitRollback
	}
	return nil
}

// Rollback implements driver.Tx.
func (t *pipeTx) Rollback() error {
	t.c.inTx, t.c.queue = false, nil
	return t.Tx.Rollback()
}

// pipeStmt is a prepared statement on a pipeConn.
type pipeStmt struct {
	*stdlib.Stmt
	c     *pipeConn
	query string
}

// ExecContext implements driver.StmtExecContext.
func (s *pipeStmt) ExecContext(ctx context.Context, args []driver.NamedValue) (driver.Result, error) {
	if s.c.queued(ctx, s.query, args) {
		return queuedResult{}, nil
	}
	if err := s.c.before(ctx, s.query); err != nil {
		return nil, err
	}
	return s.Stmt.ExecContext(ctx, args)
}

// QueryContext implements driver.StmtQueryContext.
func (s *pipeStmt) QueryContext(ctx context.Context, args []driver.NamedValue) (driver.Rows, error) {
	if err := s.c.before(ctx, s.query); err != nil {
		return nil, err
	}
	return s.Stmt.QueryContext(ctx, args)
}

// flushUnit sends the writes queued on conn's transaction (PostgreSQL; on
// SQLite nothing is queued): the group commit's savepoint pass sends each
// unit's before its RELEASE, so that a failing write fails its unit.
func flushUnit(ctx context.Context, conn *sql.Conn) error {
	if conn == nil {
		return nil
	}
	return conn.Raw(func(dc any) error {
		if c, ok := dc.(*pipeConn); ok {
			return c.flush(ctx)
		}
		return nil
	})
}

// queuedWriteFailed reports an error of a queued write, sent with the
// commit or before another statement.
func queuedWriteFailed(err error) bool {
	var f flushError
	return errors.As(err, &f)
}
