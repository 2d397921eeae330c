package app

import (
	"context"

	"github.com/bankrail/bankrail/internal/errs"
	"github.com/bankrail/bankrail/internal/httpapi"
	"github.com/bankrail/bankrail/internal/payment"
	"github.com/bankrail/bankrail/internal/seed"
)

// demoMerchant is the demo merchant the start page creates demo payments
// for: its customer, application and user, and the banner's demo payment.
// It is nil unless this is a sandbox whose demo merchant exists (never in
// production, never with a seed file), so that the page acts for no one
// else.
func (a *App) demoMerchant(ctx context.Context) (*httpapi.DemoMerchant, error) {
	if !a.demo {
		return nil, nil
	}
	u, err := a.store.GetUserByUsername(ctx, seed.DemoUsername)
	if err != nil {
		return nil, err
	}
	app, err := a.store.GetApplicationByClientID(ctx, seed.DemoClientID)
	if errs.Is(err, errs.NotFound) { // removed by hand: the page offers no demo payment
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return &httpapi.DemoMerchant{
		Creator: payment.Creator{CustomerID: u.CustomerID, ClientID: app.ClientID, UserID: u.ID},
		Request: []byte(demoPayment),
	}, nil
}
