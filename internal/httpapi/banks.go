package httpapi

import (
	"net/http"
	"strings"

	"github.com/bankrail/bankrail/api"
	"github.com/bankrail/bankrail/internal/bank"
	"github.com/bankrail/bankrail/internal/errs"
	"github.com/bankrail/bankrail/internal/iso"
)

// listBanks serves GET /banks?country=&paymentSystem=: the institutions a
// payer can pay from, by country then name.
func (s *Server) listBanks(w http.ResponseWriter, r *http.Request) error {
	q, err := listQuery(r, bankFilters)
	if err != nil {
		return err
	}
	f := bank.Filter{Country: q.Get("country"), System: bank.PaymentSystem(q.Get("paymentSystem"))}
	if f.Country != "" && !iso.IsCountry(f.Country) {
		return errs.E(errs.InvalidQueryParam, "country %q is not an ISO 3166-1 alpha-2 code in upper case (e.g. DE, GB).", q.Get("country"))
	}
	if f.System != "" && !f.System.Valid() {
		return errs.E(errs.InvalidQueryParam, "paymentSystem %q is not OPEN_BANKING_EU or OPEN_BANKING_UK.", f.System)
	}
	banks := s.Payments.Banks().List(f)
	out := make([]api.Bank, 0, len(banks))
	for _, b := range banks {
		out = append(out, s.bankWire(b))
	}
	w.Header().Set("Cache-Control", "private, max-age=3600")
	writeJSON(w, http.StatusOK, out)
	return nil
}

// getBank serves GET /banks/{id}.
func (s *Server) getBank(w http.ResponseWriter, r *http.Request) error {
	id := r.PathValue("id")
	if !isUUID(id) {
		return errs.E(errs.MalformedPathParam, "The bank id %q is not a uuid.", id)
	}
	b, ok := s.Payments.Banks().Get(strings.ToLower(id))
	if !ok {
		return errs.NotFoundf("No bank with id %s.", id)
	}
	writeJSON(w, http.StatusOK, s.bankWire(b))
	return nil
}

// bankImage serves GET /banks/{id}/logo.svg and /banks/{id}/icon.svg
// (public: the payer's checkout shows them).
func (s *Server) bankImage(w http.ResponseWriter, r *http.Request) error {
	b, ok := s.Payments.Banks().Get(strings.ToLower(r.PathValue("id")))
	if !ok {
		return errs.NotFoundf("No bank with id %s.", r.PathValue("id"))
	}
	img := b.Logo
	if strings.HasSuffix(r.URL.Path, "/icon.svg") {
		img = b.Icon
	}
	h := w.Header()
	h.Set("Content-Type", "image/svg+xml")
	h.Set("Cache-Control", "public, max-age=86400")
	h.Set("Content-Security-Policy", "default-src 'none'; style-src 'unsafe-inline'")
	h.Set("X-Content-Type-Options", "nosniff")
	_, _ = w.Write(img)
	return nil
}
