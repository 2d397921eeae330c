package store

import (
	"context"
	"database/sql"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"
)

// SQLite writes every commit to its write-ahead log (WAL); a checkpoint
// copies the log into the database file and fsyncs it. Left to SQLite
// (wal_autocheckpoint), the commit that crosses 1,000 frames runs the
// checkpoint itself, on the one writer connection: every unit of work of
// every group waits for the copy and the fsync. The Store turns that off
// and checkpoints from a connection of its own instead, beside the writer,
// as SQLite's documentation suggests for applications that want the commit
// path short. Durability is unchanged: a committed transaction is in the
// WAL either way, and a checkpoint is PASSIVE (it copies what no reader
// still needs and never blocks the writer or the readers).
//
// A PASSIVE checkpoint never starts the WAL over: under a steady load some
// reader nearly always holds a snapshot older than the last commit, so
// the log is never wholly copied at a moment no reader uses it, and the
// writer keeps appending (SQLite's "checkpoint starvation"). A 10-minute
// soak grew the WAL to 1.5 GB, with every read and write slower for it.
// So once the WAL holds more than walRestartFrames, the checkpointer
// truncates it (TRUNCATE: a FULL checkpoint, then it waits for the readers
// of the old log to finish and empties it). While it waits it holds off
// new writers, for walRestartWait at most (its connection's busy timeout;
// new readers are not held); if readers outlast that (a long report), it
// gives up and tries again after a back-off that doubles up to
// walRestartBackoffMax, so that it cannot stall the writer often.

// Checkpointing cadence: the WAL is checkpointed at most every
// checkpointEvery while commits come in, and every checkpointIdle anyway,
// for writes that did not mark the log dirty.
const (
	checkpointEvery = 100 * time.Millisecond
	checkpointIdle  = 2 * time.Second
)

// The WAL's restart: its size, how long it may hold off the writer, and
// the longest back-off after readers outlasted it.
const (
	walRestartWait       = 50 * time.Millisecond
	walRestartBackoffMax = 10 * time.Second
)

// walRestartFrames is the WAL's size, in frames (pages: 4 KiB by default),
// above which the checkpointer starts it over: 32 MiB. A variable for the
// tests (read when a store opens).
var walRestartFrames = 8192

// checkpointer runs PASSIVE WAL checkpoints on its own connection.
type checkpointer struct {
	db            *sql.DB
	log           *slog.Logger
	dirty         atomic.Bool // set by each commit of the writer
	restartFrames int         // walRestartFrames when it started
	// retryAt and backoff delay the next restart after readers outlasted
	// one (only the loop's goroutine reads and writes them).
	retryAt time.Time
	backoff time.Duration
	stop    chan struct{}
	done    chan struct{}
	once    sync.Once // close
}

// startCheckpointer opens the checkpointing connection on dsn and starts
// its loop; stop ends it.
func startCheckpointer(dsn string, log *slog.Logger) (*checkpointer, error) {
	// The later busy_timeout wins: a restart holds off the writer while it waits.
	db, err := sql.Open("sqlite", fmt.Sprintf("%s&_pragma=busy_timeout(%d)", dsn, walRestartWait.Milliseconds()))
	if err != nil {
		return nil, err
	}
	db.SetMaxOpenConns(1)
	db.SetMaxIdleConns(1)
	db.SetConnMaxIdleTime(0)
	c := &checkpointer{db: db, log: log, restartFrames: walRestartFrames, stop: make(chan struct{}), done: make(chan struct{})}
	go c.run()
	return c, nil
}

// committed tells the checkpointer that the WAL grew.
func (c *checkpointer) committed() {
	if c != nil && !c.dirty.Load() {
		c.dirty.Store(true)
	}
}

func (c *checkpointer) run() {
	defer close(c.done)
	tick := time.NewTicker(checkpointEvery)
	defer tick.Stop()
	last := time.Now()
	for {
		select {
		case <-c.stop:
			return
		case <-tick.C:
		}
		if !c.dirty.Swap(false) && time.Since(last) < checkpointIdle {
			continue
		}
		last = time.Now()
		if err := c.checkpoint(); err != nil {
			c.log.Warn("sqlite checkpoint failed; retrying on the next tick", "err", err)
			c.dirty.Store(true)
		}
	}
}

// checkpoint copies what it can of the WAL into the database file, and
// starts the WAL over once it has grown past walRestartFrames.
func (c *checkpointer) checkpoint() error {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var busy, logFrames, copied int
	if err := c.db.QueryRowContext(ctx, "PRAGMA wal_checkpoint(PASSIVE)").Scan(&busy, &logFrames, &copied); err != nil {
		return fmt.Errorf("passive checkpoint: %w", err)
	}
	if logFrames <= c.restartFrames || time.Now().Before(c.retryAt) {
		return nil
	}
	if err := c.db.QueryRowContext(ctx, "PRAGMA wal_checkpoint(TRUNCATE)").Scan(&busy, &logFrames, &copied); err != nil {
		return fmt.Errorf("truncating checkpoint: %w", err)
	}
	if busy == 0 {
		c.backoff = 0
		return nil
	}
	c.backoff = min(max(2*c.backoff, walRestartWait), walRestartBackoffMax)
	c.retryAt = time.Now().Add(c.backoff)
	c.log.Debug("sqlite WAL not restarted: readers still use it; trying again later",
		"wal_frames", logFrames, "retry_in", c.backoff)
	return nil
}

// close stops the loop and closes the connection (SQLite checkpoints
// what is left when the last connection closes); later calls do nothing.
func (c *checkpointer) close() error {
	if c == nil {
		return nil
	}
	var err error
	c.once.Do(func() {
		close(c.stop)
		<-c.done
		err = c.db.Close()
	})
	return err
}
