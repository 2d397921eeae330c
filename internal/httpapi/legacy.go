package httpapi

import (
	"net/http"

	"github.com/bankrail/bankrail/api"
	legacyapi "github.com/bankrail/bankrail/internal/legacy"
	"github.com/bankrail/bankrail/internal/payment"
)

// createLegacyPayment serves POST /legacy/payments: the legacy request is
// mapped onto the Global one (internal/legacy) and created on the hosted
// channel; 201 {id, checkoutUrl} with Location: /payments/{id}.
func (s *Server) createLegacyPayment(w http.ResponseWriter, r *http.Request) error {
	return createMapped(s, w, r, "POST /legacy/payments", &legacyapi.Request{}, func(p payment.Payment) api.LegacyPaymentCreated {
		return api.LegacyPaymentCreated{ID: p.ID, CheckoutURL: s.Legacy.CheckoutURL(p)}
	})
}

// createMapped serves a creation whose body the legacy mapping table maps
// onto the Global request (legacy payments, embedded checkout): the body is
// decoded into src, and the answer is view's JSON with status 201.
func createMapped[S legacyapi.Source, T any](s *Server, w http.ResponseWriter, r *http.Request, operation string, src S, view func(payment.Payment) T) error {
	in, err := s.creation(r, operation)
	if err != nil {
		return err
	}
	if err := s.decodeJSON(w, r, src); err != nil {
		return err
	}
	resp, err := s.Legacy.Create(r.Context(), in, src, render(view))
	if err != nil {
		return err
	}
	writeCreated(w, resp)
	return nil
}

// legacyNameMatchScore serves GET /legacy/payments/{id}/name-match-score
// ?allow_initials=: the Global score as {invocationId, nameMatchScore}.
func (s *Server) legacyNameMatchScore(w http.ResponseWriter, r *http.Request) error {
	m, err := s.scoreName(r, "allow_initials")
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, api.LegacyNameMatchScore{InvocationID: m.InvocationID, NameMatchScore: m.Score})
	return nil
}

// migrationGuide serves the migration guide from the legacy API to the
// Global API, rendered from the mapping table.
func (s *Server) migrationGuide(w http.ResponseWriter, _ *http.Request) error {
	w.Header().Set("Content-Type", "text/markdown; charset=utf-8")
	w.Header().Set("Cache-Control", "public, max-age=3600")
	_, _ = w.Write([]byte(legacyapi.Guide()))
	return nil
}
