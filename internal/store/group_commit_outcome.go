package store

import (
	"context"
	"database/sql"
	"fmt"
)

// How a group's transaction ends and how its units are answered: the
// commit and its fate, and a unit run alone.

// groupFate is what became of a group's transaction.
type groupFate int

const (
	groupCommitted  groupFate = iota
	groupRolledBack           // nothing of it was written
	groupUnknown              // its commit's outcome is unknown
)

// commitUnits commits tx, in which every unit of kept succeeded, and
// returns the group's fate, and the commit's error when it failed. Committed, it runs their hooks and answers
// them. When the commit failed and nothing of tx was written
// (groupRolledBack), kept are left to run again alone. When the commit
// failed in a way that leaves its outcome unknown (PostgreSQL's connection
// lost after COMMIT was sent: commitMayHaveHappened), running them again
// could do their work twice (a refund, a payout): each unit of kept gets
// the error instead, and a client that retries under its Idempotency-Key
// gets the committed result if there is one.
//
// Just before the commit it writes the kept units' payment counts
// (payment_counts.go) with ctx, the group's; should that fail, nothing is
// written (groupRolledBack).
//
// pass (PassTogether or PassWithSavepoints) and start (the group's
// beginning) are for the CommitObserver.
func (g *groupCommit) commitUnits(ctx context.Context, s *Store, tx *sql.Tx, kept []*unit, pass string, start txStart) (groupFate, error) {
	counts := countDeltas{}
	for _, u := range kept {
		counts.add(u.counts)
	}
	if err := s.writeCounts(ctx, tx, counts); err != nil {
		_ = tx.Rollback()
		return groupRolledBack, err
	}
	if err := tx.Commit(); err != nil {
		if !commitMayHaveHappened(s.dialect, err) {
			return groupRolledBack, err
		}
		g.outcomeLost(s.log, len(kept), err)
		for _, u := range kept {
			u.finish(fmt.Errorf("commit (%w): %w", errOutcomeUnknown, err))
		}
		return groupUnknown, err
	}
	s.ckpt.committed()
	g.observe(pass, len(kept), start)
	for _, u := range kept {
		for _, fn := range u.hooks {
			fn()
		}
		u.finish(nil)
	}
	return groupCommitted, nil
}

// runAlone runs u in a transaction of its own and answers it; while it
// loses to another transaction it runs again, up to aloneAttempts times.
func (g *groupCommit) runAlone(s *Store, u *unit) {
	defer s.lockWriter()()
	for attempt := 1; ; attempt++ {
		start := s.startTx()
		err := s.inTx(u.ctx, u.work)
		if err == nil {
			g.observe(PassAlone, 1, start)
		}
		if attempt == aloneAttempts || !lostToAnother(err) || u.ctx.Err() != nil {
			u.finish(err)
			return
		}
		g.contended.Store(contendedGroups)
		g.ranAgain(AgainLostToAnother)
	}
}
