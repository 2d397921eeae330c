package httpapi

import (
	"net/http"
	"strings"

	"github.com/bankrail/bankrail/api"
	"github.com/bankrail/bankrail/internal/errs"
	"github.com/bankrail/bankrail/internal/mandate"
)

// authoriseSandboxMandate serves POST /sandbox/mandates/{id}/authorise
// {"outcome": "AUTHORISED" | "DECLINED"}: the payer's answer without a
// browser.
func (s *Server) authoriseSandboxMandate(w http.ResponseWriter, r *http.Request) error {
	var req api.SandboxMandateAuthoriseRequest
	if err := s.decodeJSON(w, r, &req); err != nil {
		return err
	}
	if strings.TrimSpace(string(req.Outcome)) == "" {
		var v errs.Validation
		v.Add(errs.ValueRequired, "outcome", "outcome is required: AUTHORISED or DECLINED.")
		return v.Err()
	}
	m, err := s.Mandates.Authorise(r.Context(), principal(r).CustomerID, r.PathValue("id"), mandate.Outcome(req.Outcome))
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, s.mandateOf(m))
	return nil
}

// approveSandboxAmendment serves POST /sandbox/amendments/{id}/approve.
func (s *Server) approveSandboxAmendment(w http.ResponseWriter, r *http.Request) error {
	return s.answerSandboxAmendment(w, r, true)
}

// declineSandboxAmendment serves POST /sandbox/amendments/{id}/decline.
func (s *Server) declineSandboxAmendment(w http.ResponseWriter, r *http.Request) error {
	return s.answerSandboxAmendment(w, r, false)
}

// answerSandboxAmendment plays the payer's answer to an amendment.
func (s *Server) answerSandboxAmendment(w http.ResponseWriter, r *http.Request, approve bool) error {
	a, err := s.Mandates.Answer(r.Context(), principal(r).CustomerID, r.PathValue("id"), approve)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, amendmentOf(a))
	return nil
}
