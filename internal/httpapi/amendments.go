package httpapi

import (
	"net/http"

	"github.com/bankrail/bankrail/api"
	"github.com/bankrail/bankrail/internal/mandate"
	"github.com/bankrail/bankrail/internal/wire"
)

// createAmendment serves POST /mandates/{id}/amendments: 201 with the
// amendment and a Location header.
func (s *Server) createAmendment(w http.ResponseWriter, r *http.Request) error {
	var body api.AmendmentRequest
	if err := s.decodeJSON(w, r, &body); err != nil {
		return err
	}
	a, err := s.Mandates.Amend(r.Context(), principal(r).CustomerID, r.PathValue("id"), wire.Amendment(body))
	if err != nil {
		return err
	}
	w.Header().Set("Location", "/amendments/"+a.ID)
	s.linkApproval(w, a)
	writeJSON(w, http.StatusCreated, amendmentOf(a))
	return nil
}

// getAmendment serves GET /amendments/{id}; a recalled one is 404.
func (s *Server) getAmendment(w http.ResponseWriter, r *http.Request) error {
	a, err := s.Mandates.GetAmendment(r.Context(), principal(r).CustomerID, r.PathValue("id"))
	if err != nil {
		return err
	}
	s.linkApproval(w, a)
	writeJSON(w, http.StatusOK, amendmentOf(a))
	return nil
}

// recallAmendment serves POST /amendments/{id}/recall: 204.
func (s *Server) recallAmendment(w http.ResponseWriter, r *http.Request) error {
	if _, err := s.Mandates.Recall(r.Context(), principal(r).CustomerID, r.PathValue("id")); err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

// linkApproval names, in the sandbox while a awaits the payer, the mock
// bank's page where the payer answers it: `Link: <url>; rel="approval"`.
// The contract's amendment has no field for a link (docs/decisions.md).
func (s *Server) linkApproval(w http.ResponseWriter, a mandate.Amendment) {
	if a.Open() && s.Sandbox != nil {
		w.Header().Add("Link", "<"+s.Mandates.ApprovalURL(a)+`>; rel="approval"`)
	}
}

// amendmentOf is the wire record of a: the contract's fields only.
func amendmentOf(a mandate.Amendment) api.Amendment {
	out := api.Amendment{ID: a.ID, MandateID: a.MandateID, Track: api.AmendmentTrack(a.Track),
		Initiator: api.AmendmentInitiator(a.Initiator), Status: api.AmendmentState{Status: api.AmendmentStatus(a.Status)},
		CreatedAt: a.CreatedAt, UpdatedAt: a.UpdatedAt}
	if a.Details != nil {
		out.Status.Details = &api.AmendmentDetails{Reason: a.Details.Reason, Code: a.Details.Code}
	}
	c := a.Changes
	if c.HasValidity() {
		out.Changes.Validity = &api.AmendmentValidity{}
		if c.ValidityFrom != nil {
			from := mandate.FormatTimestamp(*c.ValidityFrom)
			out.Changes.Validity.From = &from
		}
		if c.ValidityTo != nil {
			to := mandate.FormatTimestamp(*c.ValidityTo)
			out.Changes.Validity.To = &to
		}
	}
	if c.PaymentLimit != nil {
		out.Changes.PayTo = wire.PayTo(*c.PaymentLimit)
	}
	return out
}
