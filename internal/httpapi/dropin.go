package httpapi

import (
	"net/http"

	"github.com/bankrail/bankrail/api"
	legacyapi "github.com/bankrail/bankrail/internal/legacy"
	"github.com/bankrail/bankrail/internal/payment"
)

// createDropin serves POST /dropin: an embedded checkout session. The
// payment is created like a legacy one (same table, same core) and the
// answer is 201 {id, token} with Location: /payments/{id}; the token lets
// the merchant's page mount the checkout (/js/v1/checkout.js) and expires.
func (s *Server) createDropin(w http.ResponseWriter, r *http.Request) error {
	req := &legacyapi.Dropin{}
	return createMapped(s, w, r, "POST /dropin", req, func(p payment.Payment) api.DropinCreated {
		return api.DropinCreated{ID: p.ID, Token: s.Legacy.DropinToken(p, req)}
	})
}
