package dashboard

import (
	"net/http"
	"slices"
	"time"

	"github.com/bankrail/bankrail/internal/ledger"
	"github.com/bankrail/bankrail/internal/paging"
	"github.com/bankrail/bankrail/internal/payout"
)

// payoutRow is a payout in the list.
type payoutRow struct {
	ID, Amount, Status, Reference, Beneficiary, Customer string
	CreatedAt                                            time.Time
}

// heldRow is a payout held for a decision on its account holder
// verification.
type heldRow struct {
	VerificationID, PayoutID, Amount, Beneficiary, Requested, Returned, Result, Customer string
	CreatedAt, ExpiresAt                                                                 time.Time
}

// payoutsData fills the payouts page.
type payoutsData struct {
	Held     []heldRow
	Status   string
	Statuses []string
	Rows     []payoutRow
	Pager    pagerView
}

// payouts is GET /dashboard/payouts: the payouts held for a decision on
// their account holder verification (approve or reject), then every
// payout, newest first.
func (h *payoutPages) payouts(w http.ResponseWriter, q *req) error {
	return h.payoutsPage(w, q, http.StatusOK, notice(q), nil)
}

// payoutsPage writes the payouts page, with a refused decision's problem.
func (h *payoutPages) payoutsPage(w http.ResponseWriter, q *req, status int, note string, problem *problemView) error {
	ctx, viewer := q.ctx(), q.viewer()
	names := h.namer(q)
	var d payoutsData
	for _, s := range payout.Statuses {
		d.Statuses = append(d.Statuses, string(s))
	}
	held, _, err := paging.Unpack(h.Payouts.List(ctx, viewer, payout.Filter{Status: payout.Created, Page: 1, Limit: ledger.MaxPageLimit}))
	if err != nil {
		return err
	}
	for _, p := range held {
		vs, err := h.Payouts.VerificationsOf(ctx, viewer, p.ID)
		if err != nil {
			return err
		}
		for _, v := range vs {
			if v.Decision != nil || !v.Holds() {
				continue
			}
			d.Held = append(d.Held, heldRow{VerificationID: v.ID, PayoutID: p.ID, Amount: formatAmount(p.Amount, p.Currency),
				Beneficiary: p.Beneficiary.Key(), Requested: v.Requested, Returned: v.Returned, Result: string(v.Result),
				Customer: names(p.CustomerID), CreatedAt: p.CreatedAt, ExpiresAt: v.ExpiresAt})
		}
	}
	f := payout.Filter{Page: pageParam(q.Request), Limit: listLimit}
	if st := q.URL.Query().Get("status"); slices.Contains(d.Statuses, st) {
		d.Status, f.Status = st, payout.Status(st)
	}
	items, total, err := paging.Unpack(h.Payouts.List(ctx, viewer, f))
	if err != nil {
		return err
	}
	for _, p := range items {
		d.Rows = append(d.Rows, payoutRow{ID: p.ID, Amount: formatAmount(p.Amount, p.Currency), Status: string(p.Status),
			Reference: p.PaymentReference, Beneficiary: p.Beneficiary.Name, Customer: names(p.CustomerID), CreatedAt: p.CreatedAt})
	}
	d.Pager = pager(q.URL, f.Page, f.Limit, total)
	h.show(w, q, status, "payouts", "Payouts", "Payouts", d, note, problem)
	return nil
}

// decide is POST /dashboard/verifications/{id}/approve and /reject: the
// decision on a held payout, taken by the signed-in user.
func (h *payoutPages) decide(approve bool) pageFunc {
	return func(w http.ResponseWriter, q *req) error {
		performer := payout.Performer{ID: q.p.UserID, Name: q.p.Username, Type: payout.User}
		if _, err := h.Payouts.Decide(q.ctx(), q.viewer(), q.PathValue("id"), approve, performer); err != nil {
			problem, perr := problemOf(err)
			if perr != nil {
				return perr
			}
			return h.payoutsPage(w, q, statusOf(err), "", problem)
		}
		if approve {
			return done(w, q, Prefix+"payouts", "approved")
		}
		return done(w, q, Prefix+"payouts", "rejected")
	}
}
