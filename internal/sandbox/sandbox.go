// Package sandbox is the state of a whole sandbox instance: its baseline
// (the seed state, taken once right after the first start seeded the
// database), the reset that brings every table back to it, and snapshot
// files of every table that a restore takes back. It knows nothing of HTTP;
// the store reads and replaces tables whatever they are (every table of the
// schema but the kept ones), so a table added by a later migration is
// covered without change here. A reset or restore whose books do not
// balance (ledger.Verify, inside its transaction) is refused and rolled
// back.
package sandbox

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/bankrail/bankrail/internal/clock"
	"github.com/bankrail/bankrail/internal/errs"
	"github.com/bankrail/bankrail/internal/identity"
	"github.com/bankrail/bankrail/internal/ledger"
)

// ClockTable is the table of the sandbox clocks: a reset empties it (every
// clock back to the wall clock) whatever the baseline holds.
const ClockTable = "tenant_clocks"

// TableWriter receives tables and their rows.
type TableWriter interface {
	Table(name string, columns []string) error
	Row(values []any) error
}

// Store reads and replaces every table of the instance except those it
// keeps (the migrations' bookkeeping, the token signing keys, the
// baseline itself).
type Store interface {
	SchemaVersion(ctx context.Context) (int64, error)
	Engine() string
	// DumpTables writes every table, parents before children, in one
	// consistent read.
	DumpTables(ctx context.Context, w TableWriter) error
	// ReplaceTables empties every table and writes tables instead, in one
	// transaction. Each table and column named must exist; a column of the
	// database the table leaves out takes its default. check (when not
	// nil) reads the books as written, before they commit: its error rolls
	// the whole replacement back.
	ReplaceTables(ctx context.Context, tables []Table, check BooksCheck) (rows int64, err error)
	// Baseline returns the stored baseline file, if any.
	Baseline(ctx context.Context) ([]byte, bool, error)
	// SaveBaseline stores data as the baseline unless one exists.
	SaveBaseline(ctx context.Context, schemaVersion int64, data []byte, at time.Time) error
	// DumpTree writes the rows of the tree of customer root (it and every
	// customer below it) of every table but TreeKept, parents first, in
	// one consistent read.
	DumpTree(ctx context.Context, root string, w TableWriter) error
	// ReplaceTree deletes the rows DumpTree would write and writes what
	// keep keeps of tables instead, in one transaction. keep is given the
	// tables of a tree (parents first), the tree's customers and the owned
	// values of the kept tables (its applications, users, customers). A
	// row that collides with a row outside the tree is VALIDATION_FAILURE.
	// It returns how many tables and rows it wrote.
	ReplaceTree(ctx context.Context, root string, tables []Table, keep TreeFilter, check BooksCheck) (written int, rows int64, err error)
}

// TreeFilter keeps the rows of tables that belong to the tree (TreeRows).
type TreeFilter func(schema []TreeTable, tree []string, kept Owned, tables []Table) ([]Table, error)

// BooksCheck reads the books inside the transaction of a reset or restore.
type BooksCheck func(ctx context.Context, books ledger.BooksReader) error

// State is the result of a reset or a restore.
type State struct {
	Scope         Scope
	SchemaVersion int64
	Tables        int
	Rows          int64
}

// Service resets, snapshots and restores the sandbox.
type Service struct {
	store   Store
	clock   clock.Clock
	forget  func() // drops the clocks' caches after tables were replaced
	enabled bool   // --sandbox-instance-controls
}

// NewService returns the sandbox state service. forget is called after
// every reset and restore (the sandbox clock's cache); enabled false makes
// every call ACCESS_DENIED (a shared sandbox).
func NewService(store Store, clk clock.Clock, forget func(), enabled bool) *Service {
	if forget == nil {
		forget = func() {}
	}
	return &Service{store: store, clock: clk, forget: forget, enabled: enabled}
}

// denied is the refusal of an instance that turned the controls off.
func (s *Service) denied() error {
	if s.enabled {
		return nil
	}
	return errs.E(errs.AccessDenied, "Reset, snapshot and restore are turned off on this sandbox (--sandbox-instance-controls=false): they would affect every customer of the instance.")
}

// EnsureBaseline takes the baseline when the database has none: at the
// first start, right after the seed. It reports whether it took one.
func (s *Service) EnsureBaseline(ctx context.Context) (bool, error) {
	if _, found, err := s.store.Baseline(ctx); err != nil || found {
		return false, err
	}
	var buf bytes.Buffer
	version, err := s.snapshot(ctx, &buf)
	if err != nil {
		return false, fmt.Errorf("take the sandbox baseline: %w", err)
	}
	// basetime: the baseline is the whole instance's, no tenant's
	if err := s.store.SaveBaseline(ctx, version, buf.Bytes(), clock.Base(s.clock)); err != nil {
		return false, fmt.Errorf("store the sandbox baseline: %w", err)
	}
	return true, nil
}

// SnapshotInstance writes the whole sandbox state, every customer's, to
// w: the operator's.
func (s *Service) SnapshotInstance(ctx context.Context, w io.Writer) error {
	if _, err := identity.Authorize(ctx, identity.InstanceControl); err != nil {
		return err
	}
	if err := s.denied(); err != nil {
		return err
	}
	_, err := s.snapshot(ctx, w)
	return err
}

func (s *Service) snapshot(ctx context.Context, w io.Writer) (int64, error) {
	version, err := s.store.SchemaVersion(ctx)
	if err != nil {
		return 0, err
	}
	sw := NewWriter(w, Header{SchemaVersion: version, Engine: s.store.Engine(), TakenAt: clock.Base(s.clock), Scope: ScopeInstance}) // basetime: a snapshot of every tenant
	if err := s.store.DumpTables(ctx, sw); err != nil {
		return 0, err
	}
	return version, sw.Close()
}

// Check returns nil when the instance allows snapshots of scope (before a
// download starts streaming): a tree's always, the instance's unless the
// controls are off.
func (s *Service) Check(scope Scope) error {
	if scope == ScopeTree {
		return nil
	}
	return s.denied()
}

// RestoreInstance replaces the whole sandbox state, every customer's, with
// the snapshot file r: the operator's. A file of another schema version,
// or a tree's file, is VALIDATION_FAILURE and changes nothing; so is a
// file whose books do not balance (ledger.Verify, run on the restored
// tables before they commit): the restore is rolled back.
func (s *Service) RestoreInstance(ctx context.Context, r io.Reader) (State, error) {
	if _, err := identity.Authorize(ctx, identity.InstanceControl); err != nil {
		return State{}, err
	}
	if err := s.denied(); err != nil {
		return State{}, err
	}
	h, tables, version, err := s.readFile(ctx, r)
	if err != nil {
		return State{}, err
	}
	if h.Scope == ScopeTree {
		var v errs.Validation
		v.Add(errs.NotEqual, "scope", "The snapshot is of customer %s's tree, not of the whole instance: restore it with scope=TREE as a user of that customer.", h.CustomerID)
		return State{}, v.Err()
	}
	return s.replace(ctx, version, tables, refuseUnbalanced(s.clock, "The snapshot's books do not balance"))
}

// readFile reads a snapshot file and checks that it was taken at this
// database's schema version, which it returns.
func (s *Service) readFile(ctx context.Context, r io.Reader) (Header, []Table, int64, error) {
	h, tables, err := Read(r)
	if err != nil {
		return h, nil, 0, err
	}
	version, err := s.store.SchemaVersion(ctx)
	if err != nil {
		return h, nil, 0, err
	}
	if h.SchemaVersion != version {
		var v errs.Validation
		v.Add(errs.NotEqual, "schemaVersion", "The snapshot was taken at schema version %d; this instance's database is at "+
			"schema version %d. Restore it on a bankrail whose database is at version %d, or take a new snapshot here.",
			h.SchemaVersion, version, h.SchemaVersion)
		return h, nil, 0, v.Err()
	}
	return h, tables, version, nil
}

// ResetInstance brings every table back to the baseline and every sandbox
// clock back to the wall clock: the operator's. A baseline whose books do
// not balance is refused as a snapshot is (RestoreInstance), and nothing
// changes.
func (s *Service) ResetInstance(ctx context.Context) (State, error) {
	if _, err := identity.Authorize(ctx, identity.InstanceControl); err != nil {
		return State{}, err
	}
	if err := s.denied(); err != nil {
		return State{}, err
	}
	tables, err := s.baseline(ctx)
	if err != nil {
		return State{}, err
	}
	tables = slices.DeleteFunc(tables, func(t Table) bool { return t.Name == ClockTable })
	version, err := s.store.SchemaVersion(ctx)
	if err != nil {
		return State{}, err
	}
	return s.replace(ctx, version, tables, refuseUnbalanced(s.clock, "The sandbox baseline's books do not balance"))
}

// baseline reads the stored baseline's tables.
func (s *Service) baseline(ctx context.Context) ([]Table, error) {
	data, found, err := s.store.Baseline(ctx)
	if err != nil {
		return nil, err
	}
	if !found {
		return nil, errs.E(errs.Conflict, "This database has no baseline to reset to; restart the instance to take one.")
	}
	_, tables, err := Read(bytes.NewReader(data))
	if err != nil {
		return nil, fmt.Errorf("read the sandbox baseline: %w", err)
	}
	return tables, nil
}

func (s *Service) replace(ctx context.Context, version int64, tables []Table, check BooksCheck) (State, error) {
	rows, err := s.store.ReplaceTables(ctx, tables, check)
	s.forget()
	if err != nil {
		return State{}, err
	}
	return State{Scope: ScopeInstance, SchemaVersion: version, Tables: len(tables), Rows: rows}, nil
}

// shownDiscrepancies is how many discrepancies a refusal names.
const shownDiscrepancies = 3

// refuseUnbalanced is the check of a reset or restore: books that do not
// balance are VALIDATION_FAILURE on "tables", naming the first
// discrepancies, and roll the replacement back.
func refuseUnbalanced(clk clock.Clock, what string) BooksCheck {
	return func(ctx context.Context, books ledger.BooksReader) error {
		// basetime: the whole instance's books are checked; the time only stamps the report
		r, err := ledger.Verify(ctx, books, clk.Now())
		if err != nil || r.Balanced() {
			return err
		}
		var shown []string
		for _, d := range r.Balances[:min(len(r.Balances), shownDiscrepancies)] {
			shown = append(shown, d.String())
		}
		for _, d := range r.Imbalanced[:min(len(r.Imbalanced), shownDiscrepancies-len(shown))] {
			shown = append(shown, d.String())
		}
		var v errs.Validation
		v.Add(errs.InvalidValue, "tables", "%s: %d discrepancies (%s); nothing was restored. "+
			"Run 'bankrail ledger verify' on the database the file was taken from.", what, r.Discrepancies(), strings.Join(shown, "; "))
		return v.Err()
	}
}
