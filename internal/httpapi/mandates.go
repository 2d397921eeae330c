package httpapi

import (
	"context"
	"net/http"

	"github.com/bankrail/bankrail/api"
	"github.com/bankrail/bankrail/internal/errs"
	"github.com/bankrail/bankrail/internal/mandate"
	"github.com/bankrail/bankrail/internal/wire"
)

// mandateFilters are the query parameters of GET /mandates.
var mandateFilters = []string{"status", "type", "customerId", "page", "limit", "cursor"}

// createMandate serves POST /mandates (sandbox): 201 with the REQUESTED
// mandate and a Location header. In production it is 404 (the route stays
// so that GET /mandates does not make it a 405).
func (s *Server) createMandate(w http.ResponseWriter, r *http.Request) error {
	if s.Sandbox == nil {
		return errs.NotFoundf("Mandates are created only in the sandbox.")
	}
	var body api.MandateCreateRequest
	if err := s.decodeJSON(w, r, &body); err != nil {
		return err
	}
	who := principal(r)
	m, err := s.Mandates.Create(r.Context(), mandate.Creator{CustomerID: who.CustomerID, ClientID: who.ClientID, UserID: who.UserID},
		wire.MandateCreate(body))
	if err != nil {
		return err
	}
	w.Header().Set("Location", "/mandates/"+m.ID)
	writeJSON(w, http.StatusCreated, s.mandateOf(m))
	return nil
}

// getMandate serves GET /mandates/{id}.
func (s *Server) getMandate(w http.ResponseWriter, r *http.Request) error {
	m, err := s.Mandates.Get(r.Context(), principal(r).CustomerID, r.PathValue("id"))
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, s.mandateOf(m))
	return nil
}

// listMandates serves GET /mandates: newest first, with the paging headers.
func (s *Server) listMandates(w http.ResponseWriter, r *http.Request) error {
	q, err := listQuery(r, mandateFilters)
	if err != nil {
		return err
	}
	f := mandate.ListFilter{Status: mandate.Status(q.Get("status")), Type: mandate.Type(q.Get("type"))}
	switch f.Status {
	case "", mandate.Requested, mandate.Active, mandate.Suspended, mandate.Declined, mandate.Cancelled, mandate.Expired:
	default:
		return errs.E(errs.InvalidQueryParam, "status %q is not a mandate status (e.g. ACTIVE).", f.Status)
	}
	if f.Type != "" && f.Type != mandate.PayTo && f.Type != mandate.VRP {
		return errs.E(errs.InvalidQueryParam, "type %q is not PAYTO or VRP.", f.Type)
	}
	if f.CustomerID, err = uuidParam(q, "customerId"); err != nil {
		return err
	}
	lp, err := readPaging(q, mandate.DefaultPageLimit, mandate.MaxPageLimit)
	if err != nil {
		return err
	}
	f.Page, f.Limit, f.After = lp.Page, lp.Limit, lp.After
	pg, err := s.Mandates.List(r.Context(), principal(r).CustomerID, f)
	return writeListOf(w, r, lp, pg, err, s.mandateOf)
}

// suspendMandate serves POST /mandates/{id}/suspend.
func (s *Server) suspendMandate(w http.ResponseWriter, r *http.Request) error {
	return s.moveMandate(w, r, s.Mandates.Suspend)
}

// resumeMandate serves POST /mandates/{id}/resume.
func (s *Server) resumeMandate(w http.ResponseWriter, r *http.Request) error {
	return s.moveMandate(w, r, s.Mandates.Resume)
}

// cancelMandate serves POST /mandates/{id}/cancel.
func (s *Server) cancelMandate(w http.ResponseWriter, r *http.Request) error {
	return s.moveMandate(w, r, s.Mandates.Cancel)
}

// moveMandate applies a merchant's move to the mandate of the path and
// answers the mandate after it.
func (s *Server) moveMandate(w http.ResponseWriter, r *http.Request, move func(ctx context.Context, viewer, id string) (mandate.Mandate, error)) error {
	m, err := move(r.Context(), principal(r).CustomerID, r.PathValue("id"))
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, s.mandateOf(m))
	return nil
}

// mandateOf is the wire record of m.
func (s *Server) mandateOf(m mandate.Mandate) api.Mandate {
	ai := m.Payer.AccountIdentifiers
	out := api.Mandate{
		ID: m.ID, CustomerID: m.CustomerID, Type: api.MandateType(m.Type), Status: api.MandateStatus(m.Status),
		Currency: m.Currency, CreatedAt: m.CreatedAt, UpdatedAt: m.UpdatedAt,
		Payer: api.MandatePayer{Name: m.Payer.Name, AccountIdentifiers: api.MandateAccountIdentifiers{
			IBAN: wire.Opt(ai.IBAN), SortCode: wire.Opt(ai.SortCode), AccountNumber: wire.Opt(ai.AccountNumber), Bsb: wire.Opt(ai.BSB)}},
		Validity: api.MandateValidity{From: mandate.FormatTimestamp(m.Validity.From)},
	}
	if !m.Validity.To.IsZero() {
		to := mandate.FormatTimestamp(m.Validity.To)
		out.Validity.To = &to
	}
	if m.Type == mandate.PayTo {
		out.PayTo = wire.PayTo(m.PaymentLimit)
	}
	if m.Used() {
		used := m.UsedAt
		out.UsedAt = &used
	}
	if m.Status == mandate.Requested && s.Sandbox != nil {
		u := s.Mandates.AuthorisationURL(m)
		out.AuthorisationURL = &u
	}
	return out
}
