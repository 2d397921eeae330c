package store

import (
	"context"
	"database/sql"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"time"
)

// Group commit. Units of work (InTx) queue; a worker takes every unit
// queued, up to maxGroup, and runs them in one transaction, then commits
// once: on SQLite, whose one writer serialises transactions anyway, the
// pages the units share are written to the WAL once per group instead of
// once per unit, and BEGIN and COMMIT are paid once; on PostgreSQL, one
// commit (WAL flush) serves the group. A unit waits only while the group
// before it commits: alone, it runs at once.
//
// Outcomes stay per unit. A group first runs its units one after another
// with nothing between them (runTogether): most units succeed, and a
// savepoint around each cost two statements per unit (on PostgreSQL two
// round trips, a third of a payment's creation). When one fails, that
// pass is rolled back, nothing of it committed, and the group runs again
// with each unit between SAVEPOINT and RELEASE (runWithSavepoints): a unit
// whose work fails is rolled back to its savepoint and gets its error; the
// others go on. After a failure the next carefulGroups groups start with
// savepoints at once, so that a run of failing units (conflicts, refused
// moves) does not make every group run twice. When the transaction itself
// breaks before its commit (a savepoint fails, say a lost connection), or
// its commit fails with nothing written, every unit not yet answered runs
// again alone, in a transaction of its own, as does a unit that lost a
// deadlock to another transaction (PostgreSQL). A commit whose outcome is
// unknown (the connection lost after COMMIT was sent) is not run again:
// its units get the error (commitUnits). A unit's work may therefore run
// more than once; only the run that commits counts (what it asked to run
// once committed, onCommit, runs once, after that commit).

// unit is one unit of work waiting for, or in, a group.
type unit struct {
	ctx   context.Context
	work  func(*sql.Tx) error // fn and the audit entry
	hooks map[string]func()   // what it asked to run once committed
	err   error
	done  chan struct{} // closed once err is its outcome
}

func (u *unit) finish(err error) {
	u.err = err
	close(u.done)
}

func (u *unit) finished() bool {
	select {
	case <-u.done:
		return true
	default:
		return false
	}
}

// groupCommit is a Store's queue of units and its workers.
type groupCommit struct {
	mu      sync.Mutex
	queue   []*unit
	workers int
	// careful counts the groups still to run with savepoints from the
	// start, after a unit failed in a group run without them.
	careful atomic.Int32
	// together and withSavepoints count the passes of each kind (tests).
	together, withSavepoints atomic.Int64
	// observer is told about each committed transaction (commit_observer.go).
	observer atomic.Pointer[CommitObserver]
}

// Limits of group commit.
const (
	maxGroup = 64 // units in one transaction
	// pgGroupWorkers is how many groups run at once on PostgreSQL (SQLite
	// has one writer: one). More overlap the round trips of one group with
	// another's commit; each group still needs only one commit.
	pgGroupWorkers = 4
	// carefulGroups is how many groups run with savepoints from the start
	// after a unit failed in a group run without them.
	carefulGroups = 32
)

// grouped queues u and returns its outcome. With a worker slot free, the
// caller works itself (no hand-over when nothing else waits) until its own
// unit is done, then leaves what is still queued to a new worker.
func (s *Store) grouped(u *unit) error {
	g := &s.group
	limit := s.groupWorkers()
	g.mu.Lock()
	g.queue = append(g.queue, u)
	work := g.workers < limit
	if work {
		g.workers++
	}
	g.mu.Unlock()
	if work {
		g.work(s, u)
	}
	<-u.done
	return u.err
}

// groupWorkers is how many groups may run at once.
func (s *Store) groupWorkers() int {
	if s.dialect == Postgres {
		return pgGroupWorkers
	}
	return 1
}

// work runs groups while units are queued; with own set, only until own is
// done (the slot then goes to a new goroutine if units wait).
func (g *groupCommit) work(s *Store, own *unit) {
	for {
		g.mu.Lock()
		if len(g.queue) == 0 {
			g.workers--
			g.mu.Unlock()
			return
		}
		if own != nil && own.finished() {
			g.mu.Unlock()
			go g.work(s, nil)
			return
		}
		n := min(len(g.queue), maxGroup)
		batch := slices.Clone(g.queue[:n])
		clear(g.queue[:n])
		g.queue = g.queue[n:]
		g.mu.Unlock()
		g.commitGroup(s, batch)
	}
}

// commitGroup runs batch in one transaction and answers every unit.
func (g *groupCommit) commitGroup(s *Store, batch []*unit) {
	if len(batch) == 1 { // no savepoint needed
		g.runAlone(s, batch[0])
		return
	}
	if g.careful.Load() > 0 {
		g.careful.Add(-1)
		g.withSavepoints.Add(1)
		g.runWithSavepoints(s, batch)
		return
	}
	g.together.Add(1)
	if rest := g.runTogether(s, batch); rest != nil {
		g.careful.Store(carefulGroups)
		g.withSavepoints.Add(1)
		g.runWithSavepoints(s, rest)
	}
}

// runTogether runs batch in one transaction with nothing between its
// units. It returns nil once every unit is answered; when a unit fails it
// rolls everything back and returns the units still to answer (all but
// those whose context ended before their turn), for runWithSavepoints.
func (g *groupCommit) runTogether(s *Store, batch []*unit) []*unit {
	start := time.Now()
	tx := g.beginGroup(s, batch)
	if tx == nil {
		return nil
	}
	var ran []*unit
	for i, u := range batch {
		if !g.enter(s, tx, u) {
			continue
		}
		if err := u.work(tx); err != nil {
			s.afterCommit.Delete(tx)
			_ = tx.Rollback()
			return append(ran, batch[i:]...)
		}
		ran = append(ran, u)
	}
	s.afterCommit.Delete(tx)
	for _, u := range g.commitUnits(s, tx, ran, PassTogether, start) {
		g.runAlone(s, u)
	}
	return nil
}

// runWithSavepoints runs batch in one transaction, each unit between
// SAVEPOINT and RELEASE, and answers every unit.
func (g *groupCommit) runWithSavepoints(s *Store, batch []*unit) {
	ctx := context.Background() // the group's; each unit's statements use its own context
	start := time.Now()
	tx := g.beginGroup(s, batch)
	if tx == nil {
		return
	}
	var kept, alone []*unit
	broken := false
	for i, u := range batch {
		if !g.enter(s, tx, u) {
			continue
		}
		if _, err := tx.ExecContext(ctx, "SAVEPOINT unit"); err != nil {
			alone, broken = append(alone, batch[i:]...), true
			break
		}
		werr := u.work(tx)
		if werr == nil {
			if _, err := tx.ExecContext(ctx, "RELEASE SAVEPOINT unit"); err != nil {
				alone, broken = append(alone, batch[i:]...), true
				break
			}
			kept = append(kept, u)
			continue
		}
		if _, err := tx.ExecContext(ctx, "ROLLBACK TO SAVEPOINT unit"); err != nil {
			alone, broken = append(alone, batch[i:]...), true // its error may be the broken transaction's
			break
		}
		if _, err := tx.ExecContext(ctx, "RELEASE SAVEPOINT unit"); err != nil {
			alone, broken = append(alone, batch[i:]...), true
			break
		}
		if lostToAnother(werr) {
			alone = append(alone, u)
		} else {
			u.finish(werr)
		}
	}
	s.afterCommit.Delete(tx)
	if broken {
		_ = tx.Rollback()
		alone = append(kept, alone...)
	} else {
		alone = append(g.commitUnits(s, tx, kept, PassWithSavepoints, start), alone...)
	}
	for _, u := range alone {
		g.runAlone(s, u)
	}
}

// enter begins u's turn in tx: false, u answered, when its context ended
// before its turn; otherwise u's hooks collect what it asks to run once tx
// commits (onCommit).
func (g *groupCommit) enter(s *Store, tx *sql.Tx, u *unit) bool {
	if err := u.ctx.Err(); err != nil {
		u.finish(err)
		return false
	}
	u.hooks = map[string]func(){}
	s.afterCommit.Store(tx, u.hooks)
	return true
}

// beginGroup begins the transaction of a group; when it cannot, it answers
// every unit with that error and returns nil.
func (g *groupCommit) beginGroup(s *Store, batch []*unit) *sql.Tx {
	tx, err := s.write.BeginTx(context.Background(), nil) // the group's; each unit's statements use its own context
	if err != nil {
		for _, u := range batch {
			u.finish(fmt.Errorf("begin transaction: %w", err))
		}
		return nil
	}
	return tx
}

// commitUnits commits tx, in which every unit of kept succeeded. Committed,
// it runs their hooks and answers them. When the commit failed and nothing
// of tx was written, it returns kept, to run again alone. When the commit
// failed in a way that leaves its outcome unknown (PostgreSQL's connection
// lost after COMMIT was sent: commitMayHaveHappened), running them again
// could do their work twice (a refund, a payout): each unit gets the error
// instead, and a client that retries under its Idempotency-Key gets the
// committed result if there is one.
//
// pass (PassTogether or PassWithSavepoints) and start (the group's
// beginning) are for the CommitObserver.
func (g *groupCommit) commitUnits(s *Store, tx *sql.Tx, kept []*unit, pass string, start time.Time) (alone []*unit) {
	if err := tx.Commit(); err != nil {
		if !commitMayHaveHappened(s.dialect, err) {
			return kept
		}
		g.outcomeLost(s.log, len(kept), err)
		for _, u := range kept {
			u.finish(fmt.Errorf("commit (its outcome is unknown): %w", err))
		}
		return nil
	}
	s.ckpt.committed()
	g.observe(pass, len(kept), start)
	for _, u := range kept {
		for _, fn := range u.hooks {
			fn()
		}
		u.finish(nil)
	}
	return nil
}

// runAlone runs u in a transaction of its own and answers it.
func (g *groupCommit) runAlone(s *Store, u *unit) {
	start := time.Now()
	err := s.inTx(u.ctx, u.work)
	if err == nil {
		g.observe(PassAlone, 1, start)
	}
	u.finish(err)
}
