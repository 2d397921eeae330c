package httpapi

import (
	"net/http"
	"time"

	"github.com/bankrail/bankrail/api"
	"github.com/bankrail/bankrail/internal/clock"
	"github.com/bankrail/bankrail/internal/errs"
)

// clockState describes the sandbox clock.
func (s *Server) clockState() api.SandboxClock {
	return api.SandboxClock{Now: s.Sandbox.Now(), OffsetSeconds: int64(s.Sandbox.Offset() / time.Second)}
}

// sandboxClock serves GET /sandbox/clock.
func (s *Server) sandboxClock(w http.ResponseWriter, r *http.Request) error {
	writeJSON(w, http.StatusOK, s.clockState())
	return nil
}

// advanceSandboxClock serves POST /sandbox/clock/advance {"seconds": N}.
func (s *Server) advanceSandboxClock(w http.ResponseWriter, r *http.Request) error {
	var req api.SandboxClockAdvance
	if err := s.decodeJSON(w, r, &req); err != nil {
		return err
	}
	var v errs.Validation
	maxSeconds := int64(clock.MaxAdvance / time.Second)
	switch {
	case req.Seconds == nil:
		v.Add(errs.ValueRequired, "seconds", "seconds is required: how far to move the sandbox clock forward.")
	case *req.Seconds < 1:
		v.Add(errs.TooLow, "seconds", "seconds must be at least 1; the sandbox clock never goes back.")
	case *req.Seconds > maxSeconds:
		v.Add(errs.TooHigh, "seconds", "seconds must be at most %d (400 days) per call.", maxSeconds)
	}
	if err := v.Err(); err != nil {
		return err
	}
	if _, err := s.Sandbox.Advance(r.Context(), time.Duration(*req.Seconds)*time.Second); err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, s.clockState())
	return nil
}
