package store

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"testing"
)

// RunUnitsTwiceEnv names the test mode in which every unit of work runs
// twice: set to 1 in a test binary's environment (never read outside
// one, testing.Testing), each store opened runs the work of each unit
// (InTx) once, rolls it back to a savepoint and drops what it asked to run
// once committed, then runs it again for real. Group commit may run a
// unit more than once (group_commit.go), so every unit must be safe to run
// twice: a unit that keeps state outside the database across runs (a
// slice it appends to, a cache it fills, a message it sends) gets a
// different answer, or leaves a different trace, under this mode, and the
// tests that run under it (.ci/run) fail.
const RunUnitsTwiceEnv = "BANKRAIL_TEST_RUN_UNITS_TWICE"

// runUnitsTwice reports whether the test mode of RunUnitsTwiceEnv is on.
func runUnitsTwice() bool { return testing.Testing() && os.Getenv(RunUnitsTwiceEnv) == "1" }

// rehearsed returns work that runs work once in a savepoint and rolls it
// back, whatever its outcome, then runs it for real (RunUnitsTwiceEnv).
func (s *Store) rehearsed(work func(*sql.Tx) error) func(*sql.Tx) error {
	return func(tx *sql.Tx) error {
		ctx := context.Background() // the savepoint's; the unit's statements use its own context
		if _, err := tx.ExecContext(ctx, "SAVEPOINT rehearsal"); err != nil {
			return fmt.Errorf("rehearse the unit of work: %w", err)
		}
		_ = work(tx)
		if _, err := tx.ExecContext(ctx, "ROLLBACK TO SAVEPOINT rehearsal"); err != nil {
			return fmt.Errorf("roll the rehearsal back: %w", err)
		}
		if _, err := tx.ExecContext(ctx, "RELEASE SAVEPOINT rehearsal"); err != nil {
			return fmt.Errorf("roll the rehearsal back: %w", err)
		}
		if hooks, ok := s.afterCommit.Load(tx); ok {
			clear(hooks.(map[string]func()))
		}
		if d, ok := s.txCounts.Load(tx); ok {
			clear(d.(countDeltas))
		}
		return work(tx)
	}
}
