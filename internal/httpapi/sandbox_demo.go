package httpapi

import (
	"encoding/json"
	"fmt"
	"net/http"

	"github.com/bankrail/bankrail/api"
	"github.com/bankrail/bankrail/internal/errs"
	"github.com/bankrail/bankrail/internal/identity"
	"github.com/bankrail/bankrail/internal/payment"
	"github.com/bankrail/bankrail/internal/wire"
)

// DemoMerchant is the sandbox's demo merchant, for whom the start page's
// button creates payments.
type DemoMerchant struct {
	Creator payment.Creator
	Request []byte // the body of POST /payments the demo payment is
}

// sameOrigin refuses cross-site form posts (Sec-Fetch-Site, Origin).
var sameOrigin = http.NewCrossOriginProtection()

// createDemoPayment serves POST /sandbox/demo-payment: it creates the demo
// merchant's demo payment on the hosted channel and redirects (303) to its
// checkout.
func (s *Server) createDemoPayment(w http.ResponseWriter, r *http.Request) error {
	if s.Demo == nil {
		return errs.E(errs.NotFound, "This sandbox has no demo merchant (it was started with a seed file); create payments with POST /payments.")
	}
	if err := sameOrigin.Check(r); err != nil {
		return errs.E(errs.AccessDenied, "A demo payment is created from this instance's own start page (GET /), not from another site.")
	}
	var body api.PaymentCreateRequest
	if err := json.Unmarshal(s.Demo.Request, &body); err != nil {
		return fmt.Errorf("the demo payment request: %w", err)
	}
	var created payment.Payment
	c := s.Demo.Creator // the start page acts as the demo merchant's application
	ctx := identity.WithPrincipal(r.Context(), identity.Principal{CustomerID: c.CustomerID, ClientID: c.ClientID,
		UserID: c.UserID, Role: identity.RoleMerchant})
	_, err := s.Payments.Create(ctx, payment.CreateInput{
		Creator: s.Demo.Creator, Channel: payment.ChannelHosted, Operation: "POST " + demoPaymentPath,
		Request: wire.CreateRequest(body),
	}, func(p payment.Payment) ([]byte, error) { created = p; return nil, nil })
	if err != nil {
		return err
	}
	http.Redirect(w, r, s.Payments.RedirectOf(created).DirectURL, http.StatusSeeOther)
	return nil
}
