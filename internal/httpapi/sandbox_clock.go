package httpapi

import (
	"errors"
	"net/http"
	"time"

	"github.com/bankrail/bankrail/api"
	"github.com/bankrail/bankrail/internal/clock"
	"github.com/bankrail/bankrail/internal/errs"
)

// clockState describes a tenant's sandbox clock.
func clockState(c clock.Reading) api.SandboxClock {
	return api.SandboxClock{Now: c.Now, OffsetSeconds: int64(c.Offset / time.Second), TenantID: c.TenantID,
		MaxOffsetSeconds: int64(clock.MaxOffset / time.Second)}
}

// sandboxClock serves GET /sandbox/clock: the clock of the caller's
// top-level customer.
func (s *Server) sandboxClock(w http.ResponseWriter, r *http.Request) error {
	c, err := s.Sandbox.Read(r.Context(), principal(r).CustomerID)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, clockState(c))
	return nil
}

// advanceSandboxClock serves POST /sandbox/clock/advance {"seconds": N}: it
// moves the clock of the caller's top-level customer, at most MaxAdvance
// per call and MaxOffset in total.
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
		v.Add(errs.TooLow, "seconds", "seconds must be at least 1; POST /sandbox/clock/reset brings the sandbox clock back to the wall clock.")
	case *req.Seconds > maxSeconds:
		v.Add(errs.TooHigh, "seconds", "seconds must be at most %d (400 days) per call.", maxSeconds)
	}
	if err := v.Err(); err != nil {
		return err
	}
	c, err := s.Sandbox.Advance(r.Context(), principal(r).CustomerID, time.Duration(*req.Seconds)*time.Second)
	if errors.Is(err, clock.ErrOffsetBound) {
		return offsetBound(c)
	}
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, clockState(c))
	return nil
}

// offsetBound is the refusal of an advance past clock.MaxOffset: how far the
// clock c is ahead, how much more it may move, and the way back.
func offsetBound(c clock.Reading) error {
	maxOffset, ahead := int64(clock.MaxOffset/time.Second), int64(c.Offset/time.Second)
	var v errs.Validation
	v.Add(errs.TooHigh, "seconds", "seconds must be at most %d: the sandbox clock is %d seconds ahead of the wall clock "+
		"and may be at most %d seconds (10 years) ahead; POST /sandbox/clock/reset brings it back.",
		max(maxOffset-ahead, 0), ahead, maxOffset)
	return v.Err()
}

// resetSandboxClock serves POST /sandbox/clock/reset: the clock of the
// caller's top-level customer goes back to the wall clock.
func (s *Server) resetSandboxClock(w http.ResponseWriter, r *http.Request) error {
	c, err := s.Sandbox.Reset(r.Context(), principal(r).CustomerID)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, clockState(c))
	return nil
}
