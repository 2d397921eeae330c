package httpapi

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"

	"github.com/bankrail/bankrail/api"
	"github.com/bankrail/bankrail/internal/errs"
	"github.com/bankrail/bankrail/internal/identity"
	"github.com/bankrail/bankrail/internal/sandbox"
)

// SandboxState resets, snapshots and restores the whole sandbox (the
// operator's) or the caller's own customer tree (a tenant ADMIN's), in
// internal/sandbox.
type SandboxState interface {
	ResetInstance(ctx context.Context) (sandbox.State, error)
	ResetTree(ctx context.Context) (sandbox.State, error)
	Check(scope sandbox.Scope) error
	SnapshotInstance(ctx context.Context, w io.Writer) error
	SnapshotTree(ctx context.Context, w io.Writer) error
	RestoreInstance(ctx context.Context, r io.Reader) (sandbox.State, error)
	RestoreTree(ctx context.Context, r io.Reader) (sandbox.State, error)
}

// stateOf renders the result of a reset or a restore.
func stateOf(st sandbox.State) api.SandboxState {
	return api.SandboxState{Scope: api.SandboxScope(st.Scope), SchemaVersion: st.SchemaVersion, Tables: int64(st.Tables), Rows: st.Rows}
}

// sandboxScope is the scope of a sandbox control: the scope parameter, by
// default the caller's own (the operator's is the instance, anyone else's
// its customer tree). The service refuses a scope the caller's role lacks.
func sandboxScope(r *http.Request) (sandbox.Scope, error) {
	sc, err := sandbox.ParseScope(r.URL.Query().Get("scope"))
	if err != nil || sc != "" {
		return sc, err
	}
	if p, ok := identity.PrincipalFrom(r.Context()); ok && p.Can(identity.InstanceControl.Needs()) {
		return sandbox.ScopeInstance, nil
	}
	return sandbox.ScopeTree, nil
}

// resetSandbox serves POST /sandbox/reset: the instance's tables back to
// the seed state and every sandbox clock back to the wall clock (scope
// INSTANCE), or the caller's customer tree's rows (scope TREE).
func (s *Server) resetSandbox(w http.ResponseWriter, r *http.Request) error {
	scope, err := sandboxScope(r)
	if err != nil {
		return err
	}
	reset := s.SandboxState.ResetTree
	if scope == sandbox.ScopeInstance {
		reset = s.SandboxState.ResetInstance
	}
	st, err := reset(r.Context())
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, stateOf(st))
	return nil
}

// snapshotSandbox serves GET /sandbox/snapshot: the sandbox state of the
// scope as a file, streamed. A failure after the first bytes cuts the file
// short before its end line, so that a restore refuses it. The caller's
// permission is checked before the first byte.
func (s *Server) snapshotSandbox(w http.ResponseWriter, r *http.Request) error {
	scope, err := sandboxScope(r)
	if err != nil {
		return err
	}
	snapshot, op := s.SandboxState.SnapshotTree, identity.SandboxTree
	if scope == sandbox.ScopeInstance {
		snapshot, op = s.SandboxState.SnapshotInstance, identity.InstanceControl
	}
	if _, err := identity.Authorize(r.Context(), op); err != nil {
		return err
	}
	if err := s.SandboxState.Check(scope); err != nil {
		return err
	}
	w.Header().Set("Content-Type", "application/x-ndjson")
	w.Header().Set("Content-Disposition", `attachment; filename="bankrail-sandbox.snapshot.jsonl"`)
	w.WriteHeader(http.StatusOK)
	if err := snapshot(r.Context(), w); err != nil {
		s.log.Error("sandbox snapshot cut short", "err", err, "request_id", requestIDFrom(r.Context()))
	}
	return nil
}

// restoreSandbox serves POST /sandbox/restore: the body is a snapshot file
// (at most sandbox.MaxFileBytes).
func (s *Server) restoreSandbox(w http.ResponseWriter, r *http.Request) error {
	scope, err := sandboxScope(r)
	if err != nil {
		return err
	}
	restore, op := s.SandboxState.RestoreTree, identity.SandboxTree
	if scope == sandbox.ScopeInstance {
		restore, op = s.SandboxState.RestoreInstance, identity.InstanceControl
	}
	if mt, err := mediaType(r); err != nil || (mt != "" && mt != "application/x-ndjson" && mt != "application/octet-stream") {
		return errs.E(errs.UnsupportedMediaType, "Content-Type %q is not supported; send the snapshot file as application/x-ndjson.",
			r.Header.Get("Content-Type"))
	}
	if _, err := identity.Authorize(r.Context(), op); err != nil {
		return err // before a body of up to 256 MiB is read
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, sandbox.MaxFileBytes))
	var tooLarge *http.MaxBytesError
	switch {
	case errors.As(err, &tooLarge):
		return errs.E(errs.PayloadTooLarge, "The snapshot file is larger than %d bytes.", tooLarge.Limit)
	case err != nil:
		return errs.Wrap(errs.BadRequest, err, "The snapshot file could not be read.")
	}
	st, err := restore(r.Context(), bytes.NewReader(body))
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, stateOf(st))
	return nil
}
