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
	writeJSON(w, http.StatusCreated, s.amendmentOf(a))
	return nil
}

// getAmendment serves GET /amendments/{id}; a recalled one is 404.
func (s *Server) getAmendment(w http.ResponseWriter, r *http.Request) error {
	a, err := s.Mandates.GetAmendment(r.Context(), principal(r).CustomerID, r.PathValue("id"))
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, s.amendmentOf(a))
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

// amendmentOf is the wire record of a.
func (s *Server) amendmentOf(a mandate.Amendment) api.Amendment {
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
	if a.Open() && s.Sandbox != nil {
		u := s.Mandates.ApprovalURL(a)
		out.ApprovalURL = &u
	}
	return out
}
