package store

import (
	"context"
	"database/sql"
	"time"

	"github.com/pressly/goose/v3"

	"github.com/bankrail/bankrail/internal/notify"
)

// EnqueueThen enqueues msgs inside a transaction that then returns fail:
// committed when fail is nil, rolled back otherwise. It stands for a
// feature's state change that writes its notification in its own
// transaction.
func (s *Store) EnqueueThen(ctx context.Context, now time.Time, fail error, msgs ...notify.Message) ([]string, error) {
	var ids []string
	err := s.inTx(ctx, func(tx *sql.Tx) error {
		var err error
		if ids, err = s.enqueue(ctx, tx, now, msgs...); err != nil {
			return err
		}
		return fail
	})
	return ids, err
}

// MigrateTo applies the migrations up to version (for tests of a
// migration's data move).
func (s *Store) MigrateTo(ctx context.Context, version int64) error {
	return s.migrate(ctx, func(p *goose.Provider) ([]*goose.MigrationResult, error) { return p.UpTo(ctx, version) })
}

// Exec runs a statement on the write pool (for tests that set up old data).
func (s *Store) Exec(ctx context.Context, query string, args ...any) error {
	_, err := s.write.ExecContext(ctx, query, args...)
	return err
}

// JobState reads a job's state, attempts and due time (for tests of the
// queue).
func (s *Store) JobState(ctx context.Context, id string) (state string, attempt int, runAt time.Time, err error) {
	var at int64
	err = s.read.QueryRowContext(ctx, `SELECT state, attempt, run_at FROM jobs WHERE id = $1`, id).Scan(&state, &attempt, &at)
	return state, attempt, fromMicros(at), err
}

// DatabaseBytes is the size of the SQLite database as its connections see
// it (page_count x page_size, the WAL's frames included).
func (s *Store) DatabaseBytes(ctx context.Context) (int64, error) {
	var pages, size int64
	if err := s.read.QueryRowContext(ctx, "PRAGMA page_count").Scan(&pages); err != nil {
		return 0, err
	}
	err := s.read.QueryRowContext(ctx, "PRAGMA page_size").Scan(&size)
	return pages * size, err
}

// HoldGroupWorkers occupies every group-commit worker with a unit of work
// that waits for release, so that the units started meanwhile queue and
// then run as one group; it returns once every worker holds.
func (s *Store) HoldGroupWorkers(ctx context.Context) (release func()) {
	hold := make(chan struct{})
	n := s.groupWorkers()
	running := make(chan struct{}, n)
	done := make(chan struct{}, n)
	for range n { // one at a time: a worker free when a unit queues takes it into its own group
		go func() {
			_ = s.InTx(ctx, func(*Tx) error { running <- struct{}{}; <-hold; return nil })
			done <- struct{}{}
		}()
		<-running
	}
	return func() {
		close(hold)
		for range n {
			<-done
		}
	}
}

// GroupWorkers is how many groups may run at once (1 on SQLite).
func (s *Store) GroupWorkers() int { return s.groupWorkers() }

// QueuedUnits is how many units of work wait for a group-commit worker.
func (s *Store) QueuedUnits() int {
	g := &s.group
	g.mu.Lock()
	defer g.mu.Unlock()
	return len(g.queue)
}

// GroupPasses counts the groups run without savepoints between their
// units and those run with them.
func (s *Store) GroupPasses() (together, withSavepoints int64) {
	g := &s.group
	return g.together.Load(), g.withSavepoints.Load()
}

// Translate is the store's translation of a driver error (for tests of an
// error that only a statement outside the store's methods can provoke).
func Translate(err error, what string) error { return translate(err, what) }

// Exec runs a statement inside the unit of work (for tests of how a
// failing or cancelled statement affects a group).
func (t *Tx) Exec(ctx context.Context, query string, args ...any) error {
	_, err := t.tx.ExecContext(ctx, query, args...)
	return err
}

// RunsOfEachUnit is how often the work of a unit that commits at once
// runs: 2 in the test mode of RunUnitsTwiceEnv, else 1.
func (s *Store) RunsOfEachUnit() int32 {
	if s.runTwice {
		return 2
	}
	return 1
}

// KeyLease reads the lease end of an idempotency key (zero when it is not
// in flight), for tests of the holder's heartbeat.
func (s *Store) KeyLease(ctx context.Context, customerID, key string) (time.Time, error) {
	var at sql.NullInt64
	err := s.read.QueryRowContext(ctx, `SELECT locked_until FROM idempotency_keys WHERE customer_id = $1 AND idem_key = $2`,
		customerID, key).Scan(&at)
	return fromNullMicros(at), err
}

// NotificationLease reads the lease end of a notification (zero when not
// claimed), for tests of the dispatcher's heartbeat.
func (s *Store) NotificationLease(ctx context.Context, id string) (time.Time, error) {
	var at sql.NullInt64
	err := s.read.QueryRowContext(ctx, `SELECT locked_until FROM notifications WHERE id = $1`, id).Scan(&at)
	return fromNullMicros(at), err
}

// PipelinedWrites is how many writes were queued and sent in a batch
// (PostgreSQL; always 0 on SQLite).
func (s *Store) PipelinedWrites() int64 {
	if s.pipelined == nil {
		return 0
	}
	return s.pipelined.Load()
}

// RateLimitStatements is how many upserts the rate limit's counter sent,
// and how many requests of application wait for the next one.
func (s *Store) RateLimitStatements(application string) (sent, waiting int64) {
	c := &s.counts
	c.mu.Lock()
	defer c.mu.Unlock()
	for k, st := range c.keys {
		if k.application == application && st.next != nil {
			waiting += st.next.n
		}
	}
	return c.statements, waiting
}

// ViewReads is what the coalesced reads of details records did: reads and
// batches on their way, batches sent, the reads they carried, and the
// reads gathered for the next batch.
func (s *Store) ViewReads() (inFlight int, sent, carried int64, waiting int) { return s.views.counts() }

// ViewReadsInFlight is how many reads of details records may be on their
// way at once.
const ViewReadsInFlight = viewReadsInFlight

// SetWALRestartFrames sets the WAL size at which the checkpointer starts
// it over, for the test's duration.
func SetWALRestartFrames(t interface{ Cleanup(func()) }, frames int) {
	old := walRestartFrames
	walRestartFrames = frames
	t.Cleanup(func() { walRestartFrames = old })
}

// ExecInUnit runs a statement in a unit of work of its own on the writer,
// as the store's use cases do (the commit marks the WAL for the
// checkpointer).
func (s *Store) ExecInUnit(ctx context.Context, query string, args ...any) error {
	return s.inTx(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, query, args...)
		return err
	})
}
