package httpapi

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"

	"github.com/bankrail/bankrail/api"
	"github.com/bankrail/bankrail/internal/errs"
	"github.com/bankrail/bankrail/internal/sandbox"
)

// SandboxState resets, snapshots and restores the whole sandbox
// (internal/sandbox).
type SandboxState interface {
	Reset(ctx context.Context) (sandbox.State, error)
	Check() error
	Snapshot(ctx context.Context, w io.Writer) error
	Restore(ctx context.Context, r io.Reader) (sandbox.State, error)
}

// stateOf renders the result of a reset or a restore.
func stateOf(st sandbox.State) api.SandboxState {
	return api.SandboxState{SchemaVersion: st.SchemaVersion, Tables: int64(st.Tables), Rows: st.Rows}
}

// resetSandbox serves POST /sandbox/reset: every table back to the seed
// state, every sandbox clock back to the wall clock.
func (s *Server) resetSandbox(w http.ResponseWriter, r *http.Request) error {
	st, err := s.SandboxState.Reset(r.Context())
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, stateOf(st))
	return nil
}

// snapshotSandbox serves GET /sandbox/snapshot: the whole sandbox state as
// a file, streamed. A failure after the first bytes cuts the file short
// before its end line, so that a restore refuses it.
func (s *Server) snapshotSandbox(w http.ResponseWriter, r *http.Request) error {
	if err := s.SandboxState.Check(); err != nil {
		return err
	}
	w.Header().Set("Content-Type", "application/x-ndjson")
	w.Header().Set("Content-Disposition", `attachment; filename="bankrail-sandbox.snapshot.jsonl"`)
	w.WriteHeader(http.StatusOK)
	if err := s.SandboxState.Snapshot(r.Context(), w); err != nil {
		s.log.Error("sandbox snapshot cut short", "err", err, "request_id", requestIDFrom(r.Context()))
	}
	return nil
}

// restoreSandbox serves POST /sandbox/restore: the body is a snapshot file
// (at most sandbox.MaxFileBytes).
func (s *Server) restoreSandbox(w http.ResponseWriter, r *http.Request) error {
	if mt, err := mediaType(r); err != nil || (mt != "" && mt != "application/x-ndjson" && mt != "application/octet-stream") {
		return errs.E(errs.UnsupportedMediaType, "Content-Type %q is not supported; send the snapshot file as application/x-ndjson.",
			r.Header.Get("Content-Type"))
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, sandbox.MaxFileBytes))
	var tooLarge *http.MaxBytesError
	switch {
	case errors.As(err, &tooLarge):
		return errs.E(errs.PayloadTooLarge, "The snapshot file is larger than %d bytes.", tooLarge.Limit)
	case err != nil:
		return errs.Wrap(errs.BadRequest, err, "The snapshot file could not be read.")
	}
	st, err := s.SandboxState.Restore(r.Context(), bytes.NewReader(body))
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, stateOf(st))
	return nil
}
