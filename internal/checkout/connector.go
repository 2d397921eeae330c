package checkout

import (
	"context"
	"net"
	"net/http"
	"net/url"

	"github.com/bankrail/bankrail/internal/bank"
	"github.com/bankrail/bankrail/internal/errs"
	"github.com/bankrail/bankrail/internal/payment"
	"github.com/bankrail/bankrail/internal/xs2a"
)

// authorisation is the authorisation of payment id at bank b opened with
// token, by the payer of request r.
func (h *Handler) authorisation(r *http.Request, id string, b bank.Bank, token string) bank.Authorisation {
	q := "?" + url.Values{"token": {token}}.Encode()
	return bank.Authorisation{PaymentID: id, Bank: b, Token: token, PayerIP: h.payerIP(r),
		ReturnURL: h.PublicURL + "/checkout/" + id + "/return" + q, WaitURL: h.PublicURL + "/checkout/" + id + "/bank-app" + q}
}

// payerIP is the address the payer's browser came from: as the trusted
// proxies report it (ClientAddr), else the connection's peer.
func (h *Handler) payerIP(r *http.Request) string {
	if h.ClientAddr != nil {
		return h.ClientAddr(r)
	}
	ip, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		return ""
	}
	return ip
}

// connector is the connector of p's bank and the bank, when p has a bank
// that bankrail reaches.
func (h *Handler) connector(p payment.Payment) (bank.Connector, bank.Bank, bool) {
	b, ok := h.Payments.Lifecycle().Bank(p)
	if !ok {
		return nil, bank.Bank{}, false
	}
	c, ok := h.Connectors.For(b.ID)
	return c, b, ok
}

// unreachable reports whether p ended because bankrail has no connection
// to its bank (payment.BankUnreachable).
func (h *Handler) unreachable(p payment.Payment) bool {
	if p.Status != payment.UnreachableBankStatus {
		return false
	}
	_, _, ok := h.connector(p)
	return !ok
}

// toBank sends the payer of p, which is at its bank (BANK_REDIRECT), to the
// bank's page through its connector. Without a connector the payment ends
// (payment.BankUnreachable) and the payer sees why.
func (h *Handler) toBank(w http.ResponseWriter, r *http.Request, p payment.Payment, token string) error {
	c, b, ok := h.connector(p)
	if !ok {
		return h.bankUnreachable(w, r, p.ID, token, p.Scheme().InstitutionID)
	}
	address, err := c.Start(r.Context(), h.authorisation(r, p.ID, b, token))
	if err != nil {
		return err
	}
	http.Redirect(w, r, address, http.StatusSeeOther)
	return nil
}

// arriveAtBank serves GET /mock-banks/{bank}/authorise/{id}?token= outside
// the sandbox, the api channel's directUrl: the payer goes to bank {bank}
// through its connector (a NEW_PAYMENT moves to BANK_REDIRECT), or, without
// one, the payment ends and the payer is told. No mock bank page is served.
func (h *Handler) arriveAtBank(w http.ResponseWriter, r *http.Request) error {
	return h.goVia(w, r, r.PathValue("id"), r.URL.Query().Get("token"), r.PathValue("bank"), h.Payments.AtBankAlso)
}

// mover records the bank of payment id and its move to BANK_REDIRECT, with
// also in the move's unit of work (payment.Service.GoToBankAlso, AtBankAlso).
type mover func(ctx context.Context, id, token, bankID string, also payment.Also) (payment.Payment, error)

// goVia sends the payer of payment id to bank bankID: enter moves it there
// and initiates it through the bank's connector, then the payer goes to
// the bank's page (or, when the payment ended, on: h.finish). A bank
// without a connector ends the payment instead (bankUnreachable).
func (h *Handler) goVia(w http.ResponseWriter, r *http.Request, id, token, bankID string, move mover) error {
	if _, ok := h.Connectors.For(bankID); !ok {
		return h.bankUnreachable(w, r, id, token, bankID)
	}
	p, address, err := h.enter(r, id, token, bankID, move)
	if err != nil {
		return err
	}
	if address == "" {
		return h.finish(w, r, p, token)
	}
	http.Redirect(w, r, address, http.StatusSeeOther)
	return nil
}

// opener is a connector that initiates a NEW_PAYMENT at its bank first and
// then records the move to the bank and the initiation in one unit of work
// (xs2a.Connector.Open).
type opener interface {
	Open(ctx context.Context, a bank.Authorisation, p payment.Payment,
		move func(context.Context, payment.Also) (payment.Payment, error)) (payment.Payment, string, error)
}

var _ opener = (*xs2a.Connector)(nil)

// enter moves payment id to bank bankID (move) and starts the payer's
// authorisation there through the bank's connector: in the move's unit of
// work when the connector can (opener) and the payment is NEW_PAYMENT,
// else the move, then Start. It returns the payment and, while it is at a
// bank with a connector, the address of the bank's page ("" otherwise).
func (h *Handler) enter(r *http.Request, id, token, bankID string, move mover) (payment.Payment, string, error) {
	ctx := r.Context()
	c, connected := h.Connectors.For(bankID)
	o, opens := c.(opener)
	b, known := h.Payments.Banks().Get(bankID)
	if connected && opens && known {
		p, err := h.Payments.ForPayer(ctx, id, token)
		if err != nil {
			return payment.Payment{}, "", err
		}
		if inst := p.Scheme().InstitutionID; p.Status == payment.StatusNew && (inst == "" || inst == bankID) {
			return o.Open(ctx, h.authorisation(r, id, b, token), p, func(ctx context.Context, also payment.Also) (payment.Payment, error) {
				return move(ctx, id, token, bankID, also)
			})
		}
	}
	p, err := move(ctx, id, token, bankID, nil)
	if err != nil || p.Status != payment.StatusBankRedirect {
		return p, "", err
	}
	c, b, ok := h.connector(p)
	if !ok {
		return p, "", nil
	}
	address, err := c.Start(ctx, h.authorisation(r, p.ID, b, token))
	return p, address, err
}

// bankUnreachable ends payment id at bank bankID, which bankrail cannot
// reach, and sends the payer to the final page that says so. A payment
// that has ended already (a second click) is shown as it is.
func (h *Handler) bankUnreachable(w http.ResponseWriter, r *http.Request, id, token, bankID string) error {
	p, err := h.Payments.BankUnreachable(r.Context(), id, token, bankID)
	switch {
	case errs.Is(err, errs.NotModifiable):
		p, err = h.Payments.ForPayer(r.Context(), id, token)
	case err == nil:
		h.Log.WarnContext(r.Context(), "the payer's bank has no connector: the payment ended", "payment", id, "bank", bankID,
			"status", p.Status)
	}
	if err != nil {
		return err
	}
	return h.finish(w, r, p, token)
}

// returnFromBank serves GET /checkout/{id}/return?token=&...: the payer
// back from the bank (Authorisation.ReturnURL); the bank's connector reads
// its answer from the other parameters. A payment no longer at the bank (a
// reload, the back button) is shown as it is.
func (h *Handler) returnFromBank(w http.ResponseWriter, r *http.Request) error {
	p, token, err := h.load(r)
	if err != nil {
		return err
	}
	if _, _, ok := h.connector(p); !ok || p.Status != payment.StatusBankRedirect {
		return h.finish(w, r, p, token)
	}
	return h.answer(w, r, p.ID, token, p.Scheme().InstitutionID, r.URL.Query())
}

// answer applies the answer of bank bankID to payment id, read by the
// bank's connector from params (what the payer brought back), and sends the
// payer on (h.finish). A payment answered already (a second click, the back
// button) is shown as it is.
func (h *Handler) answer(w http.ResponseWriter, r *http.Request, id, token, bankID string, params url.Values) error {
	c, ok := h.Connectors.For(bankID)
	b, known := h.Payments.Banks().Get(bankID)
	if !ok || !known {
		return errs.NotFoundf("This payment is not at this bank.")
	}
	a := h.authorisation(r, id, b, token)
	ans, err := c.Answer(r.Context(), a, params)
	if err != nil {
		return err
	}
	if ans.Waiting { // decoupled: the payer answers in the bank's app
		http.Redirect(w, r, a.WaitURL, http.StatusSeeOther)
		return nil
	}
	return h.apply(w, r, id, token, bankID, ans)
}

// apply applies ans, the answer of bank bankID, to payment id and sends the
// payer on (h.finish).
func (h *Handler) apply(w http.ResponseWriter, r *http.Request, id, token, bankID string, ans bank.Answer) error {
	o, ok := payment.ParseBankOutcome(ans.Outcome)
	if !ok {
		return errs.E(errs.BadRequest, "Choose one of the buttons.")
	}
	p, err := h.Payments.AtBankOutcome(r.Context(), id, token, bankID, o, ans.Holder)
	if errs.Is(err, errs.NotModifiable) || errs.Is(err, errs.Conflict) {
		// Ended, or moved meanwhile (the poll job applied the bank's
		// answer first): the payer sees the payment as it is.
		p, err = h.Payments.ForPayer(r.Context(), id, token)
	}
	if err != nil {
		return err
	}
	return h.finish(w, r, p, token)
}
