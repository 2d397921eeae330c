package store

// Reads on a replica (docs/decisions.md, "Read replicas and their
// freshness"): list pages read on the replica while internal/replica's
// monitor finds it within its lag bound; report generation reads there
// once the replica has replayed the primary's position of the moment the
// report began reading; everything else reads on the primary.

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/stdlib"

	"github.com/bankrail/bankrail/internal/errs"
	"github.com/bankrail/bankrail/internal/replica"
)

// replicaSessionSettings are the replica's session settings unless its
// URL names them (?jit=on&max_parallel_workers_per_gather=2): one read
// of a list or a report takes one backend, one core, not a leader and
// its parallel workers (a filtered list's exact count over a million
// rows was three processes for 2-3 s each), and no JIT compilation,
// which costs more than it saves on reads of a second or less
// (docs/performance.md, "Reports and list pages on a replica at
// 1,000,000 rows").
var replicaSessionSettings = map[string]string{"max_parallel_workers_per_gather": "0", "jit": "off"}

// openReplica opens the pool of the replica at url (plain on loopback,
// as the primary's). It does not connect: a replica down at the start is
// only skipped until it answers.
func openReplica(url string, maxConns int, t Timeouts) (*sql.DB, error) {
	cfg, err := pgx.ParseConfig(url)
	if err != nil {
		return nil, fmt.Errorf("open the replica: %w", err)
	}
	for k, v := range replicaSessionSettings {
		if _, set := cfg.RuntimeParams[k]; !set {
			cfg.RuntimeParams[k] = v
		}
	}
	plainOnLoopback(cfg, url)
	t.bound(cfg)
	db := sql.OpenDB(stdlib.GetConnector(*cfg))
	db.SetMaxOpenConns(maxConns)
	db.SetMaxIdleConns(maxConns)
	db.SetConnMaxIdleTime(5 * time.Minute)
	return db, nil
}

// HasReplica reports whether a replica was configured.
func (s *Store) HasReplica() bool { return s.replica != nil }

// UseReplica lets the replica serve the reads that may (replica.Switch);
// without a replica it does nothing.
func (s *Store) UseReplica(fresh bool) { s.replicaFresh.Store(fresh && s.replica != nil) }

// ReplicaPool is the replica's connection pool, nil without one (metrics).
func (s *Store) ReplicaPool() *sql.DB { return s.replica }

// ReplicaPositions reads the primary's WAL position and the replica's
// replayed one (replica.Positions).
func (s *Store) ReplicaPositions() replica.Positions { return walPositions{s: s} }

// walPositions reads WAL positions with PostgreSQL's functions.
type walPositions struct{ s *Store }

// Primary is pg_current_wal_lsn() on the primary.
func (p walPositions) Primary(ctx context.Context) (uint64, error) {
	var lsn string
	if err := p.s.write.QueryRowContext(ctx, `SELECT pg_current_wal_lsn()::text`).Scan(&lsn); err != nil {
		return 0, translate(err, "the primary's WAL position")
	}
	return parseLSN(lsn)
}

// Replayed is pg_last_wal_replay_lsn() on the replica, which must be a
// standby (in recovery): a server that is not replays nothing of the
// primary's, and its data may be another's (a promoted old standby).
func (p walPositions) Replayed(ctx context.Context) (uint64, error) {
	if p.s.replica == nil {
		return 0, errors.New("no replica is configured")
	}
	var standby bool
	var lsn sql.NullString
	err := p.s.replica.QueryRowContext(ctx, `SELECT pg_is_in_recovery(), pg_last_wal_replay_lsn()::text`).Scan(&standby, &lsn)
	switch {
	case err != nil:
		return 0, fmt.Errorf("read the replica's replayed WAL position: %w", err)
	case !standby:
		return 0, errors.New("the replica is not a standby (pg_is_in_recovery() is false): its data is not the primary's")
	case !lsn.Valid:
		return 0, errors.New("the replica has replayed nothing yet")
	}
	return parseLSN(lsn.String)
}

// parseLSN reads a pg_lsn's text, two hexadecimal halves: "16/B374D848".
func parseLSN(text string) (uint64, error) {
	hi, lo, ok := strings.Cut(text, "/")
	h, err1 := strconv.ParseUint(hi, 16, 32)
	l, err2 := strconv.ParseUint(lo, 16, 32)
	if !ok || err1 != nil || err2 != nil {
		return 0, fmt.Errorf("a WAL position %q is not of the form X/X", text)
	}
	return h<<32 | l, nil
}

// listTx runs fn in a read transaction on the replica while it is within
// its bound, else on the primary's read pool (readTx). A failure on the
// replica that is not the answer itself (a lost connection, classified
// SERVICE_UNAVAILABLE or not, even in the middle of the page's read; a
// query cancelled by a conflict with the replica's recovery) runs fn
// again on the primary: fn only reads, and must start its results
// afresh. Only when the primary fails too is the answer an error (503
// with Retry-After for a lost connection).
func (s *Store) listTx(ctx context.Context, fn func(tx *sql.Tx) error) error {
	if !s.replicaFresh.Load() {
		return s.readTx(ctx, fn)
	}
	err := readTxOn(ctx, s.replica, s.dialect, fn)
	if code := errs.CodeOf(err); err == nil || ctx.Err() != nil || (code != errs.Internal && code != errs.Unavailable) {
		return err
	}
	s.log.Warn("a read on the replica failed; it is read on the primary", "err", err)
	s.replicaFallbacks.Add(1)
	return s.readTx(ctx, fn)
}

// reportPool is the pool a report's query reads on: the replica when it
// is within its bound and has replayed, within that bound of waiting, the
// primary's position of now (so that the report sees every change
// committed before it began, as on the primary); else the primary's read
// pool.
func (s *Store) reportPool(ctx context.Context) *sql.DB {
	if !s.replicaFresh.Load() {
		return s.read
	}
	if err := s.replicaCaughtUp(ctx); err != nil {
		s.log.Warn("a report reads on the primary: the replica did not catch up", "err", err)
		s.replicaFallbacks.Add(1)
		return s.read
	}
	return s.replica
}

// replicaCaughtUp waits, at most the lag bound, until the replica has
// replayed the primary's position of now.
func (s *Store) replicaCaughtUp(ctx context.Context) error {
	want, err := s.positions.Primary(ctx)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, s.replicaMaxLag)
	defer cancel()
	for wait := time.Millisecond; ; wait = min(2*wait, 50*time.Millisecond) {
		got, err := s.positions.Replayed(ctx)
		if err != nil {
			return err
		}
		if got >= want {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("the replica is at %X, the primary was at %X %s ago", got, want, s.replicaMaxLag)
		case <-time.After(wait):
		}
	}
}

// ReplicaFallbacks counts the reads meant for the replica that were read
// on the primary because it failed or had not caught up (metrics).
func (s *Store) ReplicaFallbacks() uint64 { return s.replicaFallbacks.Load() }

// readTxOn is readTx on db.
func readTxOn(ctx context.Context, db *sql.DB, d Dialect, fn func(tx *sql.Tx) error) error {
	opts := &sql.TxOptions{ReadOnly: true}
	if d == Postgres {
		opts.Isolation = sql.LevelRepeatableRead
	}
	tx, err := db.BeginTx(ctx, opts)
	if err != nil {
		return fmt.Errorf("begin read transaction: %w", err)
	}
	defer func() { _ = tx.Rollback() }()
	return fn(tx)
}
