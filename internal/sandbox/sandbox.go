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
}

// BooksCheck reads the books inside the transaction of a reset or restore.
type BooksCheck func(ctx context.Context, books ledger.BooksReader) error

// State is the result of a reset or a restore.
type State struct {
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

// Snapshot writes the whole sandbox state to w.
func (s *Service) Snapshot(ctx context.Context, w io.Writer) error {
	if _, err := identity.Authorize(ctx, identity.SandboxWhole); err != nil {
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
	sw := NewWriter(w, Header{SchemaVersion: version, Engine: s.store.Engine(), TakenAt: clock.Base(s.clock)}) // basetime: a snapshot of every tenant
	if err := s.store.DumpTables(ctx, sw); err != nil {
		return 0, err
	}
	return version, sw.Close()
}

// Check returns nil when the instance allows snapshots (before a download
// starts streaming).
func (s *Service) Check() error { return s.denied() }

// Restore replaces the whole sandbox state with the snapshot file r. A file
// of another schema version is VALIDATION_FAILURE and changes nothing; so
// is a file whose books do not balance (ledger.Verify, run on the restored
// tables before they commit): the restore is rolled back.
func (s *Service) Restore(ctx context.Context, r io.Reader) (State, error) {
	if _, err := identity.Authorize(ctx, identity.SandboxWhole); err != nil {
		return State{}, err
	}
	if err := s.denied(); err != nil {
		return State{}, err
	}
	h, tables, err := Read(r)
	if err != nil {
		return State{}, err
	}
	version, err := s.store.SchemaVersion(ctx)
	if err != nil {
		return State{}, err
	}
	if h.SchemaVersion != version {
		var v errs.Validation
		v.Add(errs.NotEqual, "schemaVersion", "The snapshot was taken at schema version %d; this instance's database is at "+
			"schema version %d. Restore it on a bankrail whose database is at version %d, or take a new snapshot here.",
			h.SchemaVersion, version, h.SchemaVersion)
		return State{}, v.Err()
	}
	return s.replace(ctx, version, tables, refuseUnbalanced(s.clock, "The snapshot's books do not balance"))
}

// Reset brings every table back to the baseline and every sandbox clock
// back to the wall clock. A baseline whose books do not balance is
// refused as a snapshot is (Restore), and nothing changes.
func (s *Service) Reset(ctx context.Context) (State, error) {
	if _, err := identity.Authorize(ctx, identity.SandboxWhole); err != nil {
		return State{}, err
	}
	if err := s.denied(); err != nil {
		return State{}, err
	}
	data, found, err := s.store.Baseline(ctx)
	if err != nil {
		return State{}, err
	}
	if !found {
		return State{}, errs.E(errs.Conflict, "This database has no baseline to reset to; restart the instance to take one.")
	}
	_, tables, err := Read(bytes.NewReader(data))
	if err != nil {
		return State{}, fmt.Errorf("read the sandbox baseline: %w", err)
	}
	tables = slices.DeleteFunc(tables, func(t Table) bool { return t.Name == ClockTable })
	version, err := s.store.SchemaVersion(ctx)
	if err != nil {
		return State{}, err
	}
	return s.replace(ctx, version, tables, refuseUnbalanced(s.clock, "The sandbox baseline's books do not balance"))
}

func (s *Service) replace(ctx context.Context, version int64, tables []Table, check BooksCheck) (State, error) {
	rows, err := s.store.ReplaceTables(ctx, tables, check)
	s.forget()
	if err != nil {
		return State{}, err
	}
	return State{SchemaVersion: version, Tables: len(tables), Rows: rows}, nil
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
