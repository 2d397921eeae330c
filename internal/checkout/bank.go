package checkout

import (
	"net/http"
	"strings"

	"github.com/bankrail/bankrail/internal/errs"
	"github.com/bankrail/bankrail/internal/notify"
	"github.com/bankrail/bankrail/internal/payment"
	"github.com/bankrail/bankrail/notification"
)

// bankActions are the buttons of a mock bank's page: the sandbox outcomes
// a person can choose, in the order shown.
var bankActions = []action{
	{"COMPLETED", "Approve the payment", "primary"},
	{"REFUSED_BY_BANK", "Reject (bank refuses)", "secondary"},
	{"CANCELLED_BY_USER", "Cancel and go back", "secondary"},
	{"ERROR_AT_BANK", "Simulate a bank error", "secondary"},
	{"DELAYED_AT_BANK>COMPLETED", "Delay, then approve", "secondary"},
	{"DELAYED_AT_BANK>REFUSED_BY_BANK", "Delay, then reject", "secondary"},
}

// showBank serves GET /mock-banks/{bank}/authorise/{id}: the bank's
// authorisation page. Arriving here moves a NEW_PAYMENT to BANK_REDIRECT
// (the api channel sends the payer straight here).
func (h *Handler) showBank(w http.ResponseWriter, r *http.Request) error {
	token := r.URL.Query().Get("token")
	p, err := h.Payments.AtBank(r.Context(), r.PathValue("id"), token, r.PathValue("bank"))
	if err != nil {
		return err
	}
	if p.Status != payment.StatusBankRedirect {
		return h.finish(w, r, p, token)
	}
	b, ok := h.Payments.Lifecycle().Bank(p)
	if !ok {
		return errs.NotFoundf("This bank does not exist.")
	}
	v := paymentView(p, token)
	v.Title = b.Name + " - authorise a payment"
	item := itemOf(b, p, token)
	v.Bank = &item
	v.Holder = strings.ToUpper(p.Request.Payer.Name())
	v.Actions = bankActions
	h.render(w, r, http.StatusOK, "bank", v)
	return nil
}

// answerAtBank serves POST /mock-banks/{bank}/authorise/{id} (token,
// outcome, holder): the payer's answer, read by the bank's connector
// (MockBanks), then the way back to the merchant.
func (h *Handler) answerAtBank(w http.ResponseWriter, r *http.Request) error {
	if err := r.ParseForm(); err != nil {
		return errs.E(errs.BadRequest, "The form could not be read.")
	}
	return h.answer(w, r, r.PathValue("id"), r.PostForm.Get("token"), r.PathValue("bank"), r.PostForm)
}

// notificationStatus is the gateway status (COMPLETED, FAILED, PENDING) of
// a payment status, for the return parameters; AUTHORISED_BY_USER counts
// as PENDING, Connect statuses as COMPLETED.
func notificationStatus(s payment.Status) (string, bool) {
	if st, ok := notify.GatewayStatus(string(s)); ok {
		return st, true
	}
	if s.Flow() == payment.FlowFinished {
		return notification.StatusCompleted, true
	}
	return notification.StatusPending, false
}
