package dashboard

import (
	"net/http"
	"strings"
	"time"

	"github.com/bankrail/bankrail/internal/event"
	"github.com/bankrail/bankrail/internal/identity"
	"github.com/bankrail/bankrail/internal/mandate"
	"github.com/bankrail/bankrail/internal/paging"
)

func (h *mandatePages) register(mux *http.ServeMux) {
	mux.HandleFunc("GET /dashboard/mandates", h.page(identity.MandateRead, h.mandates))
	mux.HandleFunc("GET /dashboard/mandates/{id}", h.page(identity.MandateRead, h.mandate))
	if h.sandbox() {
		mux.HandleFunc("POST /dashboard/mandates/{id}/authorise", h.action(identity.SandboxAct, h.authorise))
		mux.HandleFunc("POST /dashboard/amendments/{id}/approve", h.action(identity.SandboxAct, h.answer(true)))
		mux.HandleFunc("POST /dashboard/amendments/{id}/decline", h.action(identity.SandboxAct, h.answer(false)))
	}
}

// mandateRow is a mandate in the list.
type mandateRow struct {
	ID, Type, Status, Payer, Limit, Customer string
	From, To, CreatedAt                      time.Time
}

// mandatesData fills the mandates page.
type mandatesData struct {
	Rows  []mandateRow
	Pager pagerView
}

// mandates is GET /dashboard/mandates: PayTo and VRP mandates, newest first.
func (h *mandatePages) mandates(w http.ResponseWriter, q *req) error {
	page := pageParam(q.Request)
	items, total, err := paging.Unpack(h.Mandates.List(q.ctx(), q.viewer(), mandate.ListFilter{Page: page, Limit: listLimit}))
	if err != nil {
		return err
	}
	names := h.namer(q)
	var d mandatesData
	for _, m := range items {
		d.Rows = append(d.Rows, mandateRowOf(m, names(m.CustomerID)))
	}
	d.Pager = pager(q.URL, page, listLimit, total)
	h.show(w, q, http.StatusOK, "mandates", "Mandates", "Mandates", d, "", nil)
	return nil
}

// mandateRowOf is a mandate as the pages show it.
func mandateRowOf(m mandate.Mandate, customer string) mandateRow {
	limit := "—"
	if m.PaymentLimit > 0 {
		limit = formatAmount(m.PaymentLimit, m.Currency)
	}
	return mandateRow{ID: m.ID, Type: string(m.Type), Status: string(m.Status), Payer: m.Payer.Name, Limit: limit,
		Customer: customer, From: m.Validity.From, To: m.Validity.To, CreatedAt: m.CreatedAt}
}

// eventItem is an event of a record's history.
type eventItem struct {
	Type, Status string
	At           time.Time
}

// amendmentItem is an amendment of the mandate.
type amendmentItem struct {
	ID, Status, Initiator, Changes, Reason string
	Open                                   bool
	CreatedAt, UpdatedAt                   time.Time
}

// mandateData fills a mandate's page.
type mandateData struct {
	mandateRow
	Used        time.Time
	History     []eventItem
	Amendments  []amendmentItem
	Authorising bool // REQUESTED: the payer has not answered (the sandbox's buttons)
}

// mandate is GET /dashboard/mandates/{id}: the mandate, its history and
// its amendments, and in the sandbox the payer's answers as buttons.
func (h *mandatePages) mandate(w http.ResponseWriter, q *req) error {
	return h.mandatePage(w, q, http.StatusOK, notice(q), nil)
}

// mandatePage writes a mandate's page, with a refused answer's problem.
func (h *mandatePages) mandatePage(w http.ResponseWriter, q *req, status int, note string, problem *problemView) error {
	ctx, viewer := q.ctx(), q.viewer()
	m, err := h.Mandates.Get(ctx, viewer, q.PathValue("id"))
	if err != nil {
		return err
	}
	d := mandateData{mandateRow: mandateRowOf(m, h.namer(q)(m.CustomerID)), Used: m.UsedAt, Authorising: m.Status == mandate.Requested}
	evs, err := h.Events.List(ctx, viewer, event.Filter{SubjectType: mandate.SubjectMandate, SubjectID: m.ID, Limit: event.MaxLimit})
	if err != nil {
		return err
	}
	for _, e := range evs {
		d.History = append(d.History, eventItem{Type: e.Type, Status: e.Status, At: e.OccurredAt})
	}
	as, err := h.Mandates.AmendmentsOf(ctx, viewer, m.ID)
	if err != nil {
		return err
	}
	for _, a := range as {
		if a.Open() { // an overdue one is abandoned as it is read
			if a, err = h.Mandates.GetAmendment(ctx, viewer, a.ID); err != nil {
				return err
			}
		}
		d.Amendments = append(d.Amendments, amendmentItemOf(a, m.Currency))
	}
	h.show(w, q, status, "mandate", "Mandate of "+m.Payer.Name, "Mandates", d, note, problem)
	return nil
}

// amendmentItemOf is an amendment as the mandate page shows it.
func amendmentItemOf(a mandate.Amendment, currency string) amendmentItem {
	it := amendmentItem{ID: a.ID, Status: string(a.Status), Initiator: a.Initiator, Open: a.Open(), CreatedAt: a.CreatedAt, UpdatedAt: a.UpdatedAt}
	var changes []string
	if c := a.Changes; c.ValidityFrom != nil {
		changes = append(changes, "valid from "+when(*c.ValidityFrom))
	}
	if c := a.Changes; c.ValidityTo != nil {
		changes = append(changes, "valid to "+when(*c.ValidityTo))
	}
	if c := a.Changes; c.PaymentLimit != nil {
		changes = append(changes, "per payment "+formatAmount(*c.PaymentLimit, currency))
	}
	it.Changes = strings.Join(changes, "; ")
	if a.Details != nil {
		it.Reason = a.Details.Reason
	}
	return it
}

// authorise is POST /dashboard/mandates/{id}/authorise (sandbox): the
// payer authorises or declines the mandate, as POST
// /sandbox/mandates/{id}/authorise.
func (h *mandatePages) authorise(w http.ResponseWriter, q *req) error {
	id := q.PathValue("id")
	if _, err := h.Mandates.Authorise(q.ctx(), q.viewer(), id, mandate.Outcome(q.PostForm.Get("outcome"))); err != nil {
		return h.refused(w, q, err)
	}
	return done(w, q, Prefix+"mandates/"+id, "mandate")
}

// answer is POST /dashboard/amendments/{id}/approve and /decline
// (sandbox): the payer's answer to an amendment, as POST
// /sandbox/amendments/{id}/approve and /decline.
func (h *mandatePages) answer(approve bool) pageFunc {
	return func(w http.ResponseWriter, q *req) error {
		a, err := h.Mandates.Answer(q.ctx(), q.viewer(), q.PathValue("id"), approve)
		if err != nil {
			if a, gerr := h.Mandates.GetAmendment(q.ctx(), q.viewer(), q.PathValue("id")); gerr == nil {
				q.SetPathValue("id", a.MandateID)
				return h.refused(w, q, err)
			}
			return err
		}
		return done(w, q, Prefix+"mandates/"+a.MandateID, "amendment")
	}
}

// refused shows the mandate page (the path's id) again with a refused
// answer's problem.
func (h *mandatePages) refused(w http.ResponseWriter, q *req, err error) error {
	problem, perr := problemOf(err)
	if perr != nil {
		return perr
	}
	return h.mandatePage(w, q, statusOf(err), "", problem)
}
