package dashboard

import (
	"errors"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/bankrail/bankrail/internal/errs"
	"github.com/bankrail/bankrail/internal/event"
	"github.com/bankrail/bankrail/internal/iso"
	"github.com/bankrail/bankrail/internal/money"
	"github.com/bankrail/bankrail/internal/notify"
	"github.com/bankrail/bankrail/internal/payment"
	"github.com/bankrail/bankrail/internal/refund"
)

// listLimit is the page size of the console's lists.
const listLimit = 25

// paymentRow is a payment in the list.
type paymentRow struct {
	ID, Reference, Amount, Status, Customer string
	CreatedAt                               time.Time
}

// paymentsData fills the payments page.
type paymentsData struct {
	Query, Status string
	Statuses      []string
	Searched      bool
	Rows          []paymentRow
	Pager         pagerView
	ShowCustomer  bool // some rows are of a customer below the viewer's
	Chart         chartView
}

// payments is GET /dashboard/payments: a search by reference (the payment
// reference, else the merchant's internal reference; a payment id opens
// that payment), a status filter, pages of 25, newest first, and the
// chart of payments per day by status.
func (h *paymentPages) payments(w http.ResponseWriter, q *req) error {
	qs := q.URL.Query()
	d := paymentsData{Query: strings.TrimSpace(qs.Get("q")), Status: qs.Get("status")}
	for _, s := range payment.Statuses {
		d.Statuses = append(d.Statuses, string(s))
	}
	if !slices.Contains(d.Statuses, d.Status) {
		d.Status = ""
	}
	d.Searched = d.Query != "" || d.Status != ""
	if err := uuid.Validate(d.Query); err == nil && len(d.Query) == 36 {
		if _, err := h.Payments.Get(q.ctx(), q.viewer(), d.Query); err == nil {
			http.Redirect(w, q.Request, Prefix+"payments/"+strings.ToLower(d.Query), http.StatusSeeOther)
			return nil
		}
	}
	f := payment.ListFilter{Page: pageParam(q.Request), Limit: listLimit, Status: payment.Status(d.Status), PaymentReference: d.Query}
	items, total, err := h.Payments.List(q.ctx(), q.viewer(), f)
	if err != nil {
		return err
	}
	if total == 0 && d.Query != "" { // not a payment reference: the merchant's own
		f.PaymentReference, f.InternalReference = "", d.Query
		if items, total, err = h.Payments.List(q.ctx(), q.viewer(), f); err != nil {
			return err
		}
	}
	names := h.namer(q)
	for _, p := range items {
		d.Rows = append(d.Rows, paymentRow{ID: p.ID, Reference: p.UniqueReference, Amount: formatAmount(p.Amount(), p.Request.Currency),
			Status: string(p.Status), Customer: names(p.CustomerID), CreatedAt: p.CreatedAt})
		if p.CustomerID != q.viewer() {
			d.ShowCustomer = true
		}
	}
	d.Pager = pager(q.URL, f.Page, f.Limit, total)
	if d.Chart, err = h.paymentsChart(q); err != nil {
		return err
	}
	h.show(w, q, http.StatusOK, "payments", "Payments", "Payments", d, "", nil)
	return nil
}

// timelineItem is one status a payment reached.
type timelineItem struct {
	Status string
	At     time.Time
}

// attemptItem is one delivery attempt of a notification.
type attemptItem struct {
	Number, ResponseStatus int
	At                     time.Time
	URL, Error             string
	Success                bool
	LatencyMS              string
}

// notificationItem is a notification with its attempts.
type notificationItem struct {
	ID, Type, Status, LastError, PaymentID string
	AttemptCount                           int
	CreatedAt, NextAttemptAt               time.Time
	Attempts                               []attemptItem
}

// refundItem is a refund of the payment.
type refundItem struct {
	ID, Amount, Status, Reference string
	CreatedAt                     time.Time
}

// refundForm is the refund form of a payment.
type refundForm struct {
	Available    bool
	Reason       string
	Currency     string
	Amount       string // as typed, after a refused try
	Reference    string
	Key          string // Idempotency-Key: a second submission of the same form is the same refund
	MaxDecimals  int
	AmountFormat string
}

// paymentData fills a payment's page.
type paymentData struct {
	ID, Amount, Status, Flow, Reference, InternalReference, Customer string
	Beneficiary, Payer, System, Bank, Channel, Sender                string
	CreatedAt, UpdatedAt                                             time.Time
	Timeline                                                         []timelineItem
	Notifications                                                    []notificationItem
	Refunds                                                          []refundItem
	Refund                                                           refundForm
	Outcomes                                                         []string // the sandbox's scenarios, while the payer still acts
}

// payment is GET /dashboard/payments/{id}.
func (h *paymentPages) payment(w http.ResponseWriter, q *req) error {
	return h.paymentPage(w, q, http.StatusOK, notice(q), nil, refundForm{})
}

// paymentPage writes a payment's page; after a refused action, with its
// problem and the form as it was sent.
func (h *paymentPages) paymentPage(w http.ResponseWriter, q *req, status int, note string, problem *problemView, form refundForm) error {
	ctx, viewer := q.ctx(), q.viewer()
	p, err := h.Payments.Get(ctx, viewer, q.PathValue("id"))
	if err != nil {
		return err
	}
	req := p.Request
	d := paymentData{ID: p.ID, Amount: formatAmount(p.Amount(), req.Currency), Status: string(p.Status), Flow: string(p.Status.Flow()),
		Reference: p.UniqueReference, InternalReference: req.InternalReference, Customer: h.namer(q)(p.CustomerID),
		Payer: req.Payer.Name(), System: string(req.PaymentSystem), Channel: string(p.Channel), CreatedAt: p.CreatedAt, UpdatedAt: p.UpdatedAt}
	if req.Beneficiary != nil {
		d.Beneficiary = req.Beneficiary.Name
	}
	if b, ok := h.Payments.Bank(p); ok {
		d.Bank = b.Name
	}
	if p.Sender != nil {
		d.Sender = strings.TrimSpace(p.Sender.Name + " " + p.Sender.IBAN + p.Sender.SortCode + " " + p.Sender.AccountNumber)
	}
	evs, err := h.Events.List(ctx, viewer, event.Filter{SubjectType: event.SubjectPayment, SubjectID: p.ID, Limit: event.MaxLimit})
	if err != nil {
		return err
	}
	// NEW_PAYMENT at creation is the payment's row; every move since is an
	// event of the log.
	d.Timeline = []timelineItem{{Status: string(payment.StatusNew), At: p.CreatedAt}}
	for _, e := range evs {
		if e.Type == event.PaymentStatusChanged && !(e.Seq == 1 && e.Status == string(payment.StatusNew)) {
			d.Timeline = append(d.Timeline, timelineItem{Status: e.Status, At: e.OccurredAt})
		}
	}
	if d.Notifications, err = h.notificationsOf(q, p.ID); err != nil {
		return err
	}
	if h.Refunds != nil {
		refunds, err := h.Refunds.OfPayment(ctx, viewer, p.ID)
		if err != nil {
			return err
		}
		for _, f := range refunds {
			d.Refunds = append(d.Refunds, refundItem{ID: f.ID, Amount: formatAmount(f.Amount, f.Currency), Status: string(f.Status),
				Reference: f.ExternalReference, CreatedAt: f.CreatedAt})
		}
		ra, err := h.Refunds.Refundability(ctx, p)
		if err != nil {
			return err
		}
		form.Available, form.Reason, form.Currency = ra.Available, ra.Reason, req.Currency
		if form.Key == "" {
			form.Key = uuid.NewString()
		}
		if c, ok := iso.CurrencyOf(req.Currency); ok {
			form.MaxDecimals = c.Decimals
		}
		d.Refund = form
	}
	if h.sandbox() && p.Status.Flow() == payment.FlowProcessing && p.Status != payment.StatusDelayedAtBank {
		d.Outcomes = payment.OutcomeNames()
	}
	h.show(w, q, status, "payment", "Payment "+p.UniqueReference, "Payments", d, note, problem)
	return nil
}

// notificationsOf lists the notifications of a payment with their attempts.
func (h *paymentPages) notificationsOf(q *req, paymentID string) ([]notificationItem, error) {
	page, err := h.Notifications.List(q.ctx(), q.viewer(), notify.Filter{PaymentID: paymentID, Limit: notify.MaxLimit})
	if err != nil {
		return nil, err
	}
	var out []notificationItem
	for _, n := range page.Items {
		full, attempts, err := h.Notifications.Get(q.ctx(), q.viewer(), n.ID)
		if err != nil {
			return nil, err
		}
		out = append(out, notificationItemOf(full, attempts))
	}
	return out, nil
}

// notificationItemOf is a notification as the pages show it.
func notificationItemOf(n notify.Notification, attempts []notify.Attempt) notificationItem {
	typ := n.Type
	if typ == "" {
		typ = "gateway"
	}
	it := notificationItem{ID: n.ID, Type: typ, Status: string(n.Status), LastError: n.LastError, PaymentID: n.PaymentID,
		AttemptCount: n.Attempts, CreatedAt: n.CreatedAt}
	if n.Status == notify.Pending {
		it.NextAttemptAt = n.NextAttemptAt
	}
	for _, a := range attempts {
		it.Attempts = append(it.Attempts, attemptItem{Number: a.Number, ResponseStatus: a.ResponseStatus, At: a.At, URL: a.URL,
			Error: a.Error, Success: a.Success, LatencyMS: formatMS(a.Latency)})
	}
	return it
}

// formatMS writes a duration in milliseconds with one decimal.
func formatMS(d time.Duration) string {
	return money.FormatDecimal(d.Microseconds()/100, 1) + " ms"
}

// refund is POST /dashboard/payments/{id}/refund: what is left, or the
// amount typed (in the payment's currency, such as 10.50), under the
// form's Idempotency-Key.
func (h *paymentPages) refund(w http.ResponseWriter, q *req) error {
	id := q.PathValue("id")
	form := refundForm{Amount: strings.TrimSpace(q.PostForm.Get("amount")), Reference: strings.TrimSpace(q.PostForm.Get("reference")),
		Key: q.PostForm.Get("key")}
	if err := uuid.Validate(form.Key); err != nil {
		form.Key = ""
	}
	p, err := h.Payments.Get(q.ctx(), q.viewer(), id)
	if err != nil {
		return err
	}
	// The reference is optional on the page and required by the contract:
	// an empty one is the payment's own reference, which the payer saw on
	// the payment and sees again on the refund.
	in := refund.Input{ViewerCustomerID: q.viewer(), PaymentID: id, IdempotencyKey: form.Key, ExternalReference: form.Reference}
	if in.ExternalReference == "" {
		in.ExternalReference = p.UniqueReference
	}
	if form.Amount != "" {
		m, err := money.Parse(form.Amount, p.Request.Currency)
		if err != nil || m.Minor() <= 0 {
			return h.paymentPage(w, q, http.StatusUnprocessableEntity, "", &problemView{Message: "Enter the amount in " +
				p.Request.Currency + " with at most its decimals, such as 10.50, or leave it empty to refund all that is left."}, form)
		}
		minor := m.Minor()
		in.Amount = &minor
	}
	_, err = h.Refunds.Request(q.ctx(), in, func(refund.Refund) ([]byte, error) { return []byte("{}"), nil })
	if err != nil {
		problem, perr := problemOf(err)
		if perr != nil {
			return perr
		}
		var lim refund.Limit
		var e *errs.Error
		switch {
		case errors.As(err, &lim):
			problem = &problemView{Message: refundLimitMessage(lim)}
		case errors.As(err, &e):
			problem = problem.labelled(e, map[string]string{"externalReference": "Your reference", "amount": "The amount"})
		}
		return h.paymentPage(w, q, statusOf(err), "", problem, form)
	}
	return done(w, q, Prefix+"payments/"+id, "refund")
}

// refundLimitMessage is a refund's limit in the currency's major units
// ("at most 8.00 EUR"), where the API says minor units.
func refundLimitMessage(lim refund.Limit) string {
	if lim.Max < 0 {
		return "The amount is more than " + lim.Of + " now. Reload the page to see what can be refunded."
	}
	return "The amount can be at most " + formatAmount(lim.Max, lim.Currency) + ": " + lim.Of + "."
}

// authorise is POST /dashboard/payments/{id}/authorise (sandbox): play a
// scenario, as POST /sandbox/payments/{id}/authorise.
func (h *paymentPages) authorise(w http.ResponseWriter, q *req) error {
	id := q.PathValue("id")
	o, ok := payment.ParseOutcome(q.PostForm.Get("outcome"))
	if !ok {
		return h.paymentPage(w, q, http.StatusUnprocessableEntity, "", &problemView{Message: "Choose one of the scenarios."}, refundForm{})
	}
	if _, err := h.Payments.Authorise(q.ctx(), q.viewer(), id, o, ""); err != nil {
		problem, perr := problemOf(err)
		if perr != nil {
			return perr
		}
		return h.paymentPage(w, q, statusOf(err), "", problem, refundForm{})
	}
	return done(w, q, Prefix+"payments/"+id, "authorised")
}

// statusOf is the status of a page shown again with a refused action's
// problem.
func statusOf(err error) int {
	switch errs.CodeOf(err) {
	case errs.Conflict, errs.NotModifiable, errs.IdempotencyConflict:
		return http.StatusConflict
	case errs.TooManyRequests:
		return http.StatusTooManyRequests
	case errs.ValidationFailure, errs.ReportEmpty:
		return http.StatusUnprocessableEntity
	}
	return http.StatusBadRequest
}
