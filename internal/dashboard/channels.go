package dashboard

import (
	"net/http"
	"strconv"
	"time"

	"github.com/bankrail/bankrail/internal/channel"
	"github.com/bankrail/bankrail/internal/identity"
	"github.com/bankrail/bankrail/internal/paging"
)

func (h *channelPages) register(mux *http.ServeMux) {
	mux.HandleFunc("GET /dashboard/channels", h.page(identity.ChannelRead, h.channels))
	mux.HandleFunc("GET /dashboard/channels/{id}", h.page(identity.ChannelRead, h.channel))
}

// channelRow is a stablecoin deposit channel in the list.
type channelRow struct {
	ID, Token, Network, Currency, Address, Status, Reference, Customer string
	CreatedAt                                                          time.Time
}

// channelsData fills the channels page.
type channelsData struct {
	Rows  []channelRow
	Pager pagerView
}

// channels is GET /dashboard/channels: stablecoin deposit channels.
func (h *channelPages) channels(w http.ResponseWriter, q *req) error {
	page := pageParam(q.Request)
	items, total, err := paging.Unpack(h.Channels.List(q.ctx(), q.viewer(), channel.ListFilter{Page: page, Limit: listLimit}))
	if err != nil {
		return err
	}
	names := h.namer(q)
	var d channelsData
	for _, c := range items {
		d.Rows = append(d.Rows, channelRowOf(c, names(c.CustomerID)))
	}
	d.Pager = pager(q.URL, page, listLimit, total)
	h.show(w, q, http.StatusOK, "channels", "Channels", "Channels", d, "", nil)
	return nil
}

// channelRowOf is a channel as the pages show it.
func channelRowOf(c channel.Channel, customer string) channelRow {
	return channelRow{ID: c.ID, Token: string(c.Token), Network: string(c.Network), Currency: c.Currency,
		Address: c.Address, Status: string(c.Status), Reference: c.EndUserReference, Customer: customer, CreatedAt: c.CreatedAt}
}

// depositRow is a deposit to a channel.
type depositRow struct {
	ID, Status, Paid, Credited, Rate, Hash, Reference, TransactionID string
	DetectedAt, ConfirmedAt                                          time.Time
}

// channelData fills a channel's page.
type channelData struct {
	channelRow
	Deposits   []depositRow
	Prev, Next string // the neighbouring pages of deposits; empty at the ends
	Page       int
	Beyond     bool // more deposits than the contract's pages reach (the API's cursor does)
}

// channel is GET /dashboard/channels/{id}: a channel and its deposits,
// oldest first, channel.MaxPageLimit a page (?page=, up to the contract's
// channel.MaxPage; the list has no count, so the pages are previous and
// next).
func (h *channelPages) channel(w http.ResponseWriter, q *req) error {
	c, err := h.Channels.Get(q.ctx(), q.viewer(), q.PathValue("id"))
	if err != nil {
		return err
	}
	page := min(pageParam(q.Request), channel.MaxPage)
	deposits, err := h.Channels.Payments(q.ctx(), q.viewer(), c.ID, page, channel.MaxPageLimit, nil)
	if err != nil {
		return err
	}
	d := channelData{channelRow: channelRowOf(c, h.namer(q)(c.CustomerID)), Page: page}
	at := func(n int) string { return Prefix + "channels/" + c.ID + "?page=" + strconv.Itoa(n) }
	if page > 1 {
		d.Prev = at(page - 1)
	}
	if deposits.Next != nil {
		if page < channel.MaxPage {
			d.Next = at(page + 1)
		} else {
			d.Beyond = true
		}
	}
	for _, p := range deposits.Items {
		r := depositRow{ID: p.ID, Status: string(p.Status), Paid: p.Paid.String() + " " + string(p.Token), Hash: p.Hash,
			Reference: p.EndUserReference, TransactionID: p.TransactionID, DetectedAt: p.DetectedAt, ConfirmedAt: p.ConfirmedAt}
		if p.Credited != nil {
			r.Credited = formatAmount(p.Credited.Amount, p.Credited.Currency)
		}
		if p.Rate != nil {
			r.Rate = p.Rate.Value + " " + p.Rate.Pair
		}
		d.Deposits = append(d.Deposits, r)
	}
	h.show(w, q, http.StatusOK, "channel", "Channel "+c.Address, "Channels", d, "", nil)
	return nil
}
