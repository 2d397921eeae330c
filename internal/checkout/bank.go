package checkout

import (
	"net/http"
	"net/url"
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

// showBank serves GET /mock-banks/{bank}/authorise/{id}?token=: the mock
// bank's authorisation page, the SCA page of the mock ASPSP. Arriving here
// moves a NEW_PAYMENT to BANK_REDIRECT (the api channel sends the payer
// straight here) and initiates the payment at the mock ASPSP through the
// bank's connector (over HTTP, once: a second visit finds the initiation).
// A bank that refused or could not take the initiation sends the payer to
// the return, which says what happened.
func (h *Handler) showBank(w http.ResponseWriter, r *http.Request) error {
	token := r.URL.Query().Get("token")
	p, address, err := h.enter(r, r.PathValue("id"), token, r.PathValue("bank"), h.Payments.AtBankAlso)
	if err != nil {
		return err
	}
	if p.Status != payment.StatusBankRedirect {
		return h.finish(w, r, p, token)
	}
	_, b, ok := h.connector(p)
	if !ok {
		return h.bankUnreachable(w, r, p.ID, token, p.Scheme().InstitutionID)
	}
	if aspspPaymentOf(address) == "" {
		http.Redirect(w, r, address, http.StatusSeeOther)
		return nil
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

// aspspPaymentOf is the mock ASPSP's paymentId in the address of its SCA
// page (the aspspPaymentId parameter); "" for another address.
func aspspPaymentOf(address string) string {
	u, err := url.Parse(address)
	if err != nil || !strings.Contains(u.Path, "/mock-banks/") {
		return ""
	}
	return u.Query().Get("aspspPaymentId")
}

// answerAtBank serves POST /mock-banks/{bank}/authorise/{id} (token,
// outcome, holder): the payer's answer is recorded at the mock ASPSP (the
// SCA), then the payer comes back through the bank's connector, which
// reads the payment's status from the mock ASPSP (Answer), and on to the
// merchant. A payment no longer at the bank is shown as it is.
func (h *Handler) answerAtBank(w http.ResponseWriter, r *http.Request) error {
	if err := r.ParseForm(); err != nil {
		return errs.E(errs.BadRequest, "The form could not be read.")
	}
	token, bankID := r.PostForm.Get("token"), r.PathValue("bank")
	p, err := h.Payments.AtBank(r.Context(), r.PathValue("id"), token, bankID)
	if err != nil {
		return err
	}
	if p.Status != payment.StatusBankRedirect {
		return h.finish(w, r, p, token)
	}
	outcome := r.PostForm.Get("outcome")
	if _, ok := payment.ParseOutcome(outcome); !ok {
		return errs.E(errs.BadRequest, "Choose one of the buttons.")
	}
	c, b, ok := h.connector(p)
	if !ok || h.AnswerAtMockBank == nil {
		return h.bankUnreachable(w, r, p.ID, token, bankID)
	}
	address, err := c.Start(r.Context(), h.authorisation(r, p.ID, b, token))
	if err != nil {
		return err
	}
	if id := aspspPaymentOf(address); id != "" {
		if err := h.AnswerAtMockBank(r.Context(), bankID, id, outcome, r.PostForm.Get("holder")); err != nil {
			return err
		}
	}
	return h.answer(w, r, p.ID, token, bankID, url.Values{})
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
