package sandbox

import (
	"context"
	"io"

	"github.com/bankrail/bankrail/internal/clock"
	"github.com/bankrail/bankrail/internal/errs"
	"github.com/bankrail/bankrail/internal/identity"
)

// SnapshotTree writes the caller's own customer tree to w: the rows of its
// customer and of every customer below it, but those of TreeKept (no
// credential, secret or password hash leaves in a tree's file).
func (s *Service) SnapshotTree(ctx context.Context, w io.Writer) error {
	p, err := identity.Authorize(ctx, identity.SandboxTree)
	if err != nil {
		return err
	}
	version, err := s.store.SchemaVersion(ctx)
	if err != nil {
		return err
	}
	// basetime: the file's stamp, as the instance's snapshot
	sw := NewWriter(w, Header{SchemaVersion: version, Engine: s.store.Engine(), TakenAt: clock.Base(s.clock),
		Scope: ScopeTree, CustomerID: p.CustomerID})
	if err := s.store.DumpTree(ctx, p.CustomerID, sw); err != nil {
		return err
	}
	return sw.Close()
}

// RestoreTree replaces the caller's own customer tree with the snapshot
// file r, a file of SnapshotTree taken by the same customer. Every row of
// the file must belong to the tree (its customer, and every row it names)
// and collide with no row of another tree; the kept tables (TreeKept) are
// neither read from the file nor changed, so a restore never writes a
// secret or a password hash. Anything else is VALIDATION_FAILURE and
// changes nothing, as are books that do not balance.
func (s *Service) RestoreTree(ctx context.Context, r io.Reader) (State, error) {
	p, err := identity.Authorize(ctx, identity.SandboxTree)
	if err != nil {
		return State{}, err
	}
	h, tables, version, err := s.readFile(ctx, r)
	if err != nil {
		return State{}, err
	}
	if h.Scope != ScopeTree || h.CustomerID != p.CustomerID {
		var v errs.Validation
		v.Add(errs.NotEqual, "scope", "The snapshot is not of your customer tree (customer %s): restore a file of GET /sandbox/snapshot "+
			"taken by a user of your customer.", p.CustomerID)
		return State{}, v.Err()
	}
	keep := func(schema []TreeTable, tree []string, kept Owned, tables []Table) ([]Table, error) {
		return TreeRows(schema, tree, kept, tables, true)
	}
	return s.replaceTree(ctx, p.CustomerID, version, tables, keep, "The snapshot's books do not balance")
}

// ResetTree brings the caller's own customer tree back to the baseline:
// its rows of the baseline (a customer made since has none), but the kept
// tables (TreeKept), which stay as they are: its users, applications and
// their secrets, its clock (POST /sandbox/clock/reset resets it).
func (s *Service) ResetTree(ctx context.Context) (State, error) {
	p, err := identity.Authorize(ctx, identity.SandboxTree)
	if err != nil {
		return State{}, err
	}
	tables, err := s.baseline(ctx)
	if err != nil {
		return State{}, err
	}
	version, err := s.store.SchemaVersion(ctx)
	if err != nil {
		return State{}, err
	}
	keep := func(schema []TreeTable, tree []string, kept Owned, tables []Table) ([]Table, error) {
		return TreeRows(schema, tree, kept, tables, false)
	}
	return s.replaceTree(ctx, p.CustomerID, version, tables, keep, "The sandbox baseline's books do not balance")
}

func (s *Service) replaceTree(ctx context.Context, root string, version int64, tables []Table, keep TreeFilter, unbalanced string) (State, error) {
	n, rows, err := s.store.ReplaceTree(ctx, root, tables, keep, refuseUnbalanced(s.clock, unbalanced))
	s.forget()
	if err != nil {
		return State{}, err
	}
	return State{Scope: ScopeTree, SchemaVersion: version, Tables: n, Rows: rows}, nil
}
