package store

import (
	"log/slog"
	"runtime"
	"time"
)

// How a committed transaction of units of work ran (CommitObserver).
const (
	PassAlone          = "alone"      // one unit in a transaction of its own
	PassTogether       = "together"   // a group, nothing between its units
	PassWithSavepoints = "savepoints" // a group, each unit in a savepoint
)

// Why a unit of work of a group runs again alone (CommitObserver.RanAgain).
const (
	// AgainLostToAnother: its work lost to another transaction (a
	// deadlock, a serialisation failure, a lock not had; PostgreSQL).
	AgainLostToAnother = "lost_to_another"
	// AgainGroupFailed: its group did not commit (the transaction broke,
	// or its commit failed with nothing written), or, for a unit refused
	// in it, may not have (the commit's outcome unknown).
	AgainGroupFailed = "group_failed"
)

// CommitObserver is told about the transactions of units of work (the
// metrics of internal/metrics implement it).
type CommitObserver interface {
	// Committed: a transaction of pass (PassAlone, PassTogether or
	// PassWithSavepoints) committed units units, took after its start,
	// and its writer (the goroutine that ran it, locked to its thread)
	// used cpu of CPU time in this process meanwhile (0 where the thread's
	// CPU time cannot be read, and on PostgreSQL: lockWriter).
	Committed(pass string, units int, took, cpu time.Duration)
	// CommitOutcomeUnknown: a transaction of units units lost its
	// connection after COMMIT was sent; each unit was answered with the
	// error.
	CommitOutcomeUnknown(units int)
	// RanAgain: a unit of a group is to run again alone, for why
	// (AgainLostToAnother or AgainGroupFailed).
	RanAgain(why string)
}

// ObserveCommits registers o, told about every transaction of units of
// work from now on.
func (s *Store) ObserveCommits(o CommitObserver) { s.group.observer.Store(&o) }

// txStart is when a transaction of units of work began, on the wall clock
// and on its writer's thread's CPU clock.
type txStart struct {
	at  time.Time
	cpu time.Duration
	ok  bool // cpu was read
}

// lockWriter locks the calling goroutine, the writer of the transactions
// it is about to run, to its OS thread, so that the thread's CPU clock
// measures their work alone (startTx, observe); unlock undoes it. Cheap on
// SQLite: the goroutine stays where it runs, the engine's work is all in
// it. Not on PostgreSQL: its writer waits on the network for every round
// trip, and a locked goroutine that waits hands its thread over and must
// be handed it back (two thread switches a round trip, 4% of a keyed
// create's CPU in a profile), to measure a share of the work that leaves
// out the server's. There it locks nothing and its transactions' CPU is
// not measured (0).
func (s *Store) lockWriter() (unlock func()) {
	if s.dialect == Postgres {
		return func() {}
	}
	runtime.LockOSThread()
	return runtime.UnlockOSThread
}

// startTx is the start of a transaction run by a writer locked to its
// thread (lockWriter): on PostgreSQL, whose writer is not, its wall clock
// only.
func (s *Store) startTx() txStart {
	if s.dialect == Postgres {
		return txStart{at: time.Now()}
	}
	cpu, ok := threadCPU()
	return txStart{at: time.Now(), cpu: cpu, ok: ok}
}

// observe tells the observer that a transaction of pass, begun at start,
// committed units units.
func (g *groupCommit) observe(pass string, units int, start txStart) {
	if o := g.observer.Load(); o != nil && units > 0 {
		var cpu time.Duration
		if now, ok := threadCPU(); ok && start.ok {
			cpu = now - start.cpu
		}
		(*o).Committed(pass, units, time.Since(start.at), cpu)
	}
}

// outcomeLost logs and tells the observer that the commit of a transaction
// of units units failed with err, outcome unknown (commitMayHaveHappened).
func (g *groupCommit) outcomeLost(log *slog.Logger, units int, err error) {
	log.Error("commit failed after it was sent; its outcome is unknown and its units of work are not run again",
		"units", units, "err", err)
	if o := g.observer.Load(); o != nil {
		(*o).CommitOutcomeUnknown(units)
	}
}

// ranAgain tells the observer that a unit of a group runs again alone.
func (g *groupCommit) ranAgain(why string) {
	if o := g.observer.Load(); o != nil {
		(*o).RanAgain(why)
	}
}
