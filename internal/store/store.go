// Package store is bankrail's storage adapter: one implementation of the
// domain packages' store interfaces over database/sql, for SQLite (modernc,
// pure Go) and PostgreSQL (pgx). SQL is written once in the subset both
// engines share ($n placeholders, RETURNING, ON CONFLICT, BIGINT times in
// Unix microseconds); the few dialect differences live in Dialect. Driver
// errors are translated into errs codes here and nowhere else.
package store

import (
	"cmp"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/stdlib" // PostgreSQL driver
	_ "modernc.org/sqlite"           // SQLite driver

	"github.com/bankrail/bankrail/internal/replica"
)

// Dialect is the SQL engine behind a Store.
type Dialect string

// Engines.
const (
	SQLite   Dialect = "sqlite"
	Postgres Dialect = "postgres"
)

// Options say where the database is.
type Options struct {
	DatabaseURL string // postgres://...; empty for SQLite
	SQLitePath  string // file used when DatabaseURL is empty
	MaxConns    int    // PostgreSQL pool size (default 20)
	// ReplicaURL is a PostgreSQL standby that list pages and reports read
	// on while UseReplica says it is fresh (replica.go); empty: none.
	ReplicaURL string
	// ReplicaMaxLag bounds how long a report waits for the replica to
	// catch up before it reads on the primary (replica.DefaultMaxLag).
	ReplicaMaxLag time.Duration
	// Timeouts bound the connections (dial.go); the zero value: none.
	Timeouts Timeouts
}

// Store is the database behind bankrail. It is safe for concurrent use.
type Store struct {
	dialect Dialect
	write   *sql.DB // on SQLite a single connection: one writer, no SQLITE_BUSY
	read    *sql.DB // on SQLite a pool of read connections; on PostgreSQL the same pool as write
	log     *slog.Logger
	stmts   stmtCache // prepared statements of hot queries

	afterCommit sync.Map               // *sql.Tx -> map[string]func(): run once the transaction commits
	txCounts    sync.Map               // *sql.Tx -> countDeltas: payments it inserted or moved, counted before its commit (payment_counts.go)
	queued      atomic.Pointer[func()] // told when committed notifications are due (see notifications.go)
	warm        atomic.Bool            // hotWrites are prepared (stmt.go)
	jobsQueued  atomic.Pointer[func()] // told when committed jobs were enqueued (see jobs.go)
	ckpt        *checkpointer          // SQLite: WAL checkpoints off the commit path (checkpoint.go)
	group       groupCommit            // units of work waiting for, or in, a group (group_commit.go)
	runTwice    bool                   // the test mode of RunUnitsTwiceEnv (run_twice.go)
	pipelined   *atomic.Int64          // PostgreSQL: queued writes sent (pipeline.go); nil on SQLite
	counts      requestCounts          // the rate limit's upserts, coalesced (ratelimit.go)
	views       viewReads              // PostgreSQL: reads of details records, coalesced under load (view_reads.go)

	replica          *sql.DB           // a standby's pool (replica.go), nil without one
	replicaFresh     atomic.Bool       // the replica may serve list pages and reports
	replicaMaxLag    time.Duration     // the longest a report waits for the replica
	replicaFallbacks atomic.Uint64     // reads meant for the replica read on the primary
	positions        replica.Positions // WAL positions (replaced in tests)
	timeouts         Timeouts          // the connections' bounds (dial.go)
}

// Open connects to the database described by opts. It does not migrate.
func Open(ctx context.Context, opts Options, log *slog.Logger) (*Store, error) {
	if opts.DatabaseURL != "" {
		cfg, err := pgx.ParseConfig(opts.DatabaseURL)
		if err != nil {
			return nil, fmt.Errorf("open postgres: %w", err)
		}
		plainOnLoopback(cfg, opts.DatabaseURL)
		opts.Timeouts.bound(cfg)
		sent := new(atomic.Int64)
		db := sql.OpenDB(pipeConnector{Connector: stdlib.GetConnector(*cfg), sent: sent})
		maxConns := opts.MaxConns
		if maxConns <= 0 {
			maxConns = 20
		}
		db.SetMaxOpenConns(maxConns)
		db.SetMaxIdleConns(maxConns)
		db.SetConnMaxIdleTime(5 * time.Minute)
		s := &Store{dialect: Postgres, write: db, read: db, log: log, runTwice: runUnitsTwice(), pipelined: sent, timeouts: opts.Timeouts}
		if err := s.Ping(ctx); err != nil {
			db.Close()
			return nil, fmt.Errorf("connect to postgres: %w", err)
		}
		if opts.ReplicaURL != "" {
			if s.replica, err = openReplica(opts.ReplicaURL, maxConns, opts.Timeouts); err != nil {
				db.Close()
				return nil, err
			}
			s.replicaMaxLag = cmp.Or(opts.ReplicaMaxLag, replica.DefaultMaxLag)
			s.positions = walPositions{s: s}
		}
		return s, nil
	}
	if opts.ReplicaURL != "" {
		return nil, errors.New("a read replica needs PostgreSQL: SQLite has none (its readers already run beside its writer)")
	}
	if err := os.MkdirAll(filepath.Dir(opts.SQLitePath), 0o700); err != nil {
		return nil, fmt.Errorf("create data directory: %w", err)
	}
	// WAL lets readers run beside the writer; synchronous(NORMAL) is durable
	// across a process crash (the WAL is fsynced at checkpoints).
	dsn := "file:" + opts.SQLitePath + "?_pragma=journal_mode(WAL)&_pragma=busy_timeout(10000)" +
		"&_pragma=foreign_keys(1)&_pragma=synchronous(NORMAL)&_pragma=temp_store(MEMORY)&_time_format=sqlite"
	// temp_store(MEMORY) keeps the journals of the savepoints of group
	// commit in memory; the writer leaves checkpoints to the checkpointer.
	write, err := sql.Open("sqlite", dsn+"&_txlock=immediate&_pragma=wal_autocheckpoint(0)")
	if err != nil {
		return nil, fmt.Errorf("open sqlite: %w", err)
	}
	write.SetMaxOpenConns(1)
	write.SetMaxIdleConns(1)
	write.SetConnMaxIdleTime(0)
	write.SetConnMaxLifetime(0)
	// Eight readers (report generation holds one per report, up to the job
	// worker's four at once), each with a page cache of 1 MiB (SQLite's
	// default is 2 MiB): the caches were most of the memory under load, and
	// the operating system's page cache serves what they miss
	// (docs/performance.md, peak RSS under load).
	read, err := sql.Open("sqlite", dsn+"&_pragma=query_only(1)&_pragma=cache_size(-1024)")
	if err != nil {
		write.Close()
		return nil, fmt.Errorf("open sqlite: %w", err)
	}
	read.SetMaxOpenConns(8)
	read.SetMaxIdleConns(8)
	s := &Store{dialect: SQLite, write: write, read: read, log: log, runTwice: runUnitsTwice()}
	if err := s.Ping(ctx); err != nil {
		_ = s.Close() // the open's error is the one to report
		return nil, fmt.Errorf("open sqlite %s: %w", opts.SQLitePath, err)
	}
	if s.ckpt, err = startCheckpointer(dsn, log); err != nil {
		_ = s.Close() // the open's error is the one to report
		return nil, fmt.Errorf("open sqlite %s: %w", opts.SQLitePath, err)
	}
	return s, nil
}

// Dialect names the engine.
func (s *Store) Dialect() Dialect { return s.dialect }

// Ping checks that the database answers (used by /readyz).
func (s *Store) Ping(ctx context.Context) error {
	// SQLite's writer is one connection: while a long unit of work holds
	// it, the database is answering (that unit), and a ping that waited
	// for it would call a busy instance unready. PostgreSQL's pool is
	// pinged as it is.
	if st := s.write.Stats(); s.write == s.read || st.MaxOpenConnections == 0 || st.InUse < st.MaxOpenConnections {
		if err := s.write.PingContext(ctx); err != nil {
			return err
		}
	}
	return s.read.PingContext(ctx)
}

// Close closes every connection.
func (s *Store) Close() error {
	s.closeStatements()
	err := s.ckpt.close()
	err = errors.Join(err, s.write.Close())
	if s.replica != nil {
		err = errors.Join(err, s.replica.Close())
	}
	if s.read != s.write {
		err = errors.Join(err, s.read.Close())
	}
	return err
}

// querier is what *sql.DB and *sql.Tx share.
type querier interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

// inTx runs fn in one transaction: committed when fn returns nil, rolled back
// otherwise. One use case, one transaction.
func (s *Store) inTx(ctx context.Context, fn func(tx *sql.Tx) error) error {
	s.warmWrites(ctx)
	tx, err := s.write.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("begin transaction: %w", err)
	}
	if err := fn(tx); err != nil {
		_ = tx.Rollback()
		s.afterCommit.Delete(tx)
		s.txCounts.Delete(tx)
		return err
	}
	if err := s.writeCounts(ctx, tx, s.takeCounts(tx)); err != nil {
		_ = tx.Rollback()
		s.afterCommit.Delete(tx)
		return err
	}
	err = tx.Commit()
	hook, _ := s.afterCommit.LoadAndDelete(tx)
	if err != nil {
		if commitMayHaveHappened(s.dialect, err) {
			s.group.outcomeLost(s.log, 1, err)
			return fmt.Errorf("commit (%w): %w", errOutcomeUnknown, err)
		}
		return fmt.Errorf("commit: %w", err)
	}
	s.ckpt.committed()
	if hook != nil {
		for _, fn := range hook.(map[string]func()) {
			fn()
		}
	}
	return nil
}

// onCommit runs fn after tx commits (not if it rolls back), once per name
// however often it is asked. Only for transactions of inTx; a transaction
// is used by one goroutine, so its map needs no lock.
func (s *Store) onCommit(tx *sql.Tx, name string, fn func()) {
	hooks, _ := s.afterCommit.LoadOrStore(tx, map[string]func(){})
	hooks.(map[string]func())[name] = fn
}

// forUpdate is the row-lock suffix of a SELECT inside a transaction. SQLite
// needs none: a write transaction (txlock=immediate) already excludes others.
func (s *Store) forUpdate() string {
	if s.dialect == Postgres {
		return " FOR UPDATE"
	}
	return ""
}

// skipLocked is the suffix that lets several workers claim different rows.
func (s *Store) skipLocked() string {
	if s.dialect == Postgres {
		return " FOR UPDATE SKIP LOCKED"
	}
	return ""
}

// visibleTo is the condition that column names a customer the viewer may
// see: the viewer (placeholder $n) itself or a customer below it.
func visibleTo(column string, n int) string {
	return fmt.Sprintf(`%s IN (SELECT descendant_id FROM customer_tree WHERE ancestor_id = $%d)`, column, n)
}

// micros converts a time to the stored form: Unix microseconds.
func micros(t time.Time) int64 { return t.UnixMicro() }

// fromMicros converts a stored time back, in UTC.
func fromMicros(us int64) time.Time { return time.UnixMicro(us).UTC() }

// nullMicros converts a nullable stored time; the zero time means NULL.
func nullMicros(t time.Time) sql.NullInt64 {
	if t.IsZero() {
		return sql.NullInt64{}
	}
	return sql.NullInt64{Int64: t.UnixMicro(), Valid: true}
}

// fromNullMicros converts a nullable stored time; NULL gives the zero time.
func fromNullMicros(v sql.NullInt64) time.Time {
	if !v.Valid {
		return time.Time{}
	}
	return fromMicros(v.Int64)
}

// readTx runs fn in a read-only transaction, so that several queries see
// one snapshot (REPEATABLE READ on PostgreSQL; a WAL read transaction on
// SQLite).
func (s *Store) readTx(ctx context.Context, fn func(tx *sql.Tx) error) error {
	return readTxOn(ctx, s.read, s.dialect, fn)
}
