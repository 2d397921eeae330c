package store

import (
	"context"
	"database/sql"
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

// Checkpointing cadence: the WAL is checkpointed at most every
// checkpointEvery while commits come in, and every checkpointIdle anyway,
// for writes that did not mark the log dirty.
const (
	checkpointEvery = 100 * time.Millisecond
	checkpointIdle  = 2 * time.Second
)

// checkpointer runs PASSIVE WAL checkpoints on its own connection.
type checkpointer struct {
	db    *sql.DB
	log   *slog.Logger
	dirty atomic.Bool // set by each commit of the writer
	stop  chan struct{}
	done  chan struct{}
	once  sync.Once // close
}

// startCheckpointer opens the checkpointing connection on dsn and starts
// its loop; stop ends it.
func startCheckpointer(dsn string, log *slog.Logger) (*checkpointer, error) {
	db, err := sql.Open("sqlite", dsn)
	if err != nil {
		return nil, err
	}
	db.SetMaxOpenConns(1)
	db.SetMaxIdleConns(1)
	db.SetConnMaxIdleTime(0)
	c := &checkpointer{db: db, log: log, stop: make(chan struct{}), done: make(chan struct{})}
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

// checkpoint copies what it can of the WAL into the database file.
func (c *checkpointer) checkpoint() error {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var busy, logFrames, copied int
	return c.db.QueryRowContext(ctx, "PRAGMA wal_checkpoint(PASSIVE)").Scan(&busy, &logFrames, &copied)
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
