package checkout

import (
	"context"
	"net/http"
	"net/url"

	"github.com/bankrail/bankrail/internal/bank"
	"github.com/bankrail/bankrail/internal/payment"
)

// appRefresh is how often, in seconds, the waiting page of a decoupled
// authorisation reloads itself: each reload asks the bank.
const appRefresh = 3

// appWaiter is a connector whose answer to the waiting page rides out a
// bank's short failure (xs2a.Connector.AnswerInApp): the page asks far
// more often than a payer returns from a redirect.
type appWaiter interface {
	AnswerInApp(ctx context.Context, a bank.Authorisation) (bank.Answer, error)
}

// waitForApp serves GET /checkout/{id}/bank-app?token= (the
// bank.Authorisation's WaitURL): the payer authorises the payment in the
// bank's app (decoupled SCA) and waits here. Each visit asks the bank
// through the connector (Answer): while it has no answer the page says
// "confirm in your bank's app" with the bank's message and reloads itself;
// then the answer is applied and the payer goes on as from a redirect
// (h.finish). A bank that fails to tell the status is asked again on the
// next visit, within the connector's window (appWaiter). A payment no
// longer at the bank (the poll job applied the
// bank's answer, or the payer abandoned it) is shown as it is.
func (h *Handler) waitForApp(w http.ResponseWriter, r *http.Request) error {
	p, token, err := h.load(r)
	if err != nil {
		return err
	}
	c, b, ok := h.connector(p)
	if !ok || p.Status != payment.StatusBankRedirect {
		return h.finish(w, r, p, token)
	}
	var ans bank.Answer
	if w, ok := c.(appWaiter); ok {
		ans, err = w.AnswerInApp(r.Context(), h.authorisation(r, p.ID, b, token))
	} else {
		ans, err = c.Answer(r.Context(), h.authorisation(r, p.ID, b, token), url.Values{})
	}
	if err != nil {
		return err
	}
	if !ans.Waiting {
		return h.apply(w, r, p.ID, token, b.ID, ans)
	}
	v := paymentView(p, token)
	v.Title = "Confirm in your bank's app"
	item := itemOf(b, p, token)
	v.Bank, v.Message, v.Refresh = &item, ans.Message, appRefresh
	w.Header().Set("Cache-Control", "no-store")
	h.render(w, r, http.StatusOK, "app", v)
	return nil
}
