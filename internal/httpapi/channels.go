package httpapi

import (
	"net/http"

	"github.com/bankrail/bankrail/api"
	"github.com/bankrail/bankrail/internal/channel"
	"github.com/bankrail/bankrail/internal/errs"
)

// createChannel serves POST /channels (sandbox): 201 with the ACTIVE
// channel and a Location header; 404 in production.
func (s *Server) createChannel(w http.ResponseWriter, r *http.Request) error {
	if s.Sandbox == nil {
		return errs.NotFoundf("Channels are opened only in the sandbox.")
	}
	var body api.ChannelCreateRequest
	if err := s.decodeJSON(w, r, &body); err != nil {
		return err
	}
	who := principal(r)
	c, err := s.Channels.Create(r.Context(), channel.Creator{CustomerID: who.CustomerID, ClientID: who.ClientID},
		channel.CreateInput{Token: string(body.Token), Network: string(body.Network), Currency: string(body.Currency),
			EndUserReference: body.EndUser.Reference})
	if err != nil {
		return err
	}
	w.Header().Set("Location", "/channels/"+c.ID)
	writeJSON(w, http.StatusCreated, channelOf(c))
	return nil
}

// getChannel serves GET /channels/{id}.
func (s *Server) getChannel(w http.ResponseWriter, r *http.Request) error {
	c, err := s.Channels.Get(r.Context(), principal(r).CustomerID, r.PathValue("id"))
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, channelOf(c))
	return nil
}

// listChannels serves GET /channels: newest first, with the paging headers.
func (s *Server) listChannels(w http.ResponseWriter, r *http.Request) error {
	q, err := listQuery(r, []string{"customerId", "page", "limit", "cursor"})
	if err != nil {
		return err
	}
	var f channel.ListFilter
	if f.CustomerID, err = uuidParam(q, "customerId"); err != nil {
		return err
	}
	lp, err := readPaging(q, channel.DefaultPageLimit, channel.MaxPageLimit)
	if err != nil {
		return err
	}
	f.Page, f.Limit, f.After = lp.Page, lp.Limit, lp.After
	pg, err := s.Channels.List(r.Context(), principal(r).CustomerID, f)
	return writeListOf(w, r, lp, pg, err, channelOf)
}

// listChannelPayments serves GET /channels/{id}/payments: the contract's
// list, oldest first, page and limit 1..100, without counts; next-cursor
// and Link lead past page 100 (the cursor takes the place of page).
func (s *Server) listChannelPayments(w http.ResponseWriter, r *http.Request) error {
	q, err := listQuery(r, []string{"page", "limit", "cursor"})
	if err != nil {
		return err
	}
	page, err := intParam(q.Get("page"), "page", 1, 1, channel.MaxPage)
	if err != nil {
		return err
	}
	limit, err := intParam(q.Get("limit"), "limit", channel.DefaultPageLimit, 1, channel.MaxPageLimit)
	if err != nil {
		return err
	}
	page, after, err := cursorParam(q, page)
	if err != nil {
		return err
	}
	pg, err := s.Channels.Payments(r.Context(), principal(r).CustomerID, r.PathValue("id"), page, limit, after)
	if err != nil {
		return err
	}
	out := make([]api.ChannelPayment, 0, len(pg.Items))
	for _, p := range pg.Items {
		out = append(out, channelPaymentOf(p))
	}
	if pg.Next != nil {
		writeNext(w, r, encodeCursor(page+1, *pg.Next))
	}
	writeJSON(w, http.StatusOK, out)
	return nil
}

// getChannelPayment serves GET /channel-payments/{id}.
func (s *Server) getChannelPayment(w http.ResponseWriter, r *http.Request) error {
	p, err := s.Channels.Payment(r.Context(), principal(r).CustomerID, r.PathValue("id"))
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, channelPaymentOf(p))
	return nil
}

// depositSandboxChannel serves POST /sandbox/channels/{id}/deposits: a
// detected deposit, 201.
func (s *Server) depositSandboxChannel(w http.ResponseWriter, r *http.Request) error {
	var body api.SandboxChannelDepositRequest
	if err := s.decodeJSON(w, r, &body); err != nil {
		return err
	}
	in := channel.DepositInput{Amount: body.Amount}
	if body.Hash != nil {
		in.Hash = *body.Hash
	}
	p, err := s.Channels.Deposit(r.Context(), principal(r).CustomerID, r.PathValue("id"), in)
	if err != nil {
		return err
	}
	w.Header().Set("Location", "/channel-payments/"+p.ID)
	writeJSON(w, http.StatusCreated, channelPaymentOf(p))
	return nil
}

// channelOf is the wire record of c.
func channelOf(c channel.Channel) api.Channel {
	return api.Channel{ID: c.ID, Token: api.ChannelToken(c.Token), Network: api.ChannelNetwork(c.Network),
		Currency: api.ChannelCurrency(c.Currency), Address: c.Address, Status: api.ChannelStatus(c.Status),
		EndUser: api.ChannelEndUser{Reference: c.EndUserReference}, CreatedAt: c.CreatedAt}
}

// channelPaymentOf is the wire record of p.
func channelPaymentOf(p channel.Payment) api.ChannelPayment {
	out := api.ChannelPayment{ID: p.ID, ChannelID: p.ChannelID, Status: api.ChannelPaymentStatus(p.Status),
		EndUser:     api.ChannelEndUser{Reference: p.EndUserReference},
		Transaction: api.ChannelPaymentTransaction{Hash: p.Hash, DetectedAt: p.DetectedAt},
		Paid:        api.ChannelPaymentPaid{Amount: p.Paid.String(), Currency: api.ChannelPaymentPaidCurrency(p.Token)},
		CreatedAt:   p.CreatedAt, UpdatedAt: p.UpdatedAt}
	if !p.ConfirmedAt.IsZero() {
		at := p.ConfirmedAt
		out.Transaction.ConfirmedAt = &at
	}
	if p.Credited != nil {
		out.Credited = &api.ChannelPaymentCredited{Amount: p.Credited.Amount, Currency: api.ChannelPaymentCreditedCurrency(p.Credited.Currency)}
	}
	if p.Rate != nil {
		out.Rate = &api.ChannelPaymentRate{Value: p.Rate.Value, Pair: p.Rate.Pair}
	}
	return out
}
