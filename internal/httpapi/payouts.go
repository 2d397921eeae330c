package httpapi

import (
	"net/http"
	"strings"

	"github.com/bankrail/bankrail/api"
	"github.com/bankrail/bankrail/internal/config"
	"github.com/bankrail/bankrail/internal/errs"
	"github.com/bankrail/bankrail/internal/ledger"
	"github.com/bankrail/bankrail/internal/payout"
)

// payoutScenarios are the sandbox scenarios of POST /payouts.
var payoutScenarios = []payout.Scenario{payout.ScenarioCloseMatch, payout.ScenarioNoMatch, payout.ScenarioError, payout.ScenarioRejected}

// payoutScenario reads X-Service-Testing-Scenario of a payout (sandbox only).
func (s *Server) payoutScenario(r *http.Request) (payout.Scenario, error) {
	v := strings.TrimSpace(r.Header.Get(ScenarioHeader))
	if v == "" {
		return payout.ScenarioNone, nil
	}
	if s.Mode != config.Sandbox {
		return "", errs.E(errs.InvalidHeader, "%s is only accepted in the sandbox; remove it in production.", ScenarioHeader)
	}
	for _, sc := range payoutScenarios {
		if strings.EqualFold(v, string(sc)) {
			return sc, nil
		}
	}
	return "", errs.E(errs.InvalidHeader, "%s %q is not a payout scenario; use one of %v.", ScenarioHeader, v, payoutScenarios)
}

// createPayout serves POST /payouts: 201 with the CREATED payout and
// Location: /payouts/{id}; a replay under the same Idempotency-Key answers
// the stored body with Idempotent-Replayed: true.
func (s *Server) createPayout(w http.ResponseWriter, r *http.Request) error {
	key, err := idempotencyKey(r)
	if err != nil {
		return err
	}
	sc, err := s.payoutScenario(r)
	if err != nil {
		return err
	}
	var body api.PayoutRequest
	if err := s.decodeJSON(w, r, &body); err != nil {
		return err
	}
	who := principal(r)
	in := payout.Input{ViewerCustomerID: who.CustomerID, ClientID: who.ClientID, IdempotencyKey: key, AccountID: body.AccountID,
		Amount: body.Amount, Currency: body.Currency, PaymentReference: body.PaymentReference, InternalReference: val(body.InternalReference),
		Beneficiary: payout.Beneficiary{Name: body.Beneficiary.Name, IBAN: val(body.Beneficiary.AccountIdentifiers.IBAN),
			SortCode: val(body.Beneficiary.AccountIdentifiers.SortCode), AccountNumber: val(body.Beneficiary.AccountIdentifiers.AccountNumber)},
		Scenario: sc}
	if body.Type != nil {
		in.Type = payout.Type(*body.Type)
	}
	resp, err := s.Payouts.Create(r.Context(), in, func(p payout.Payout) ([]byte, error) { return encodeJSON(payoutView(p)) })
	if err != nil {
		return err
	}
	if resp.Replayed {
		w.Header().Set("Idempotent-Replayed", "true")
	}
	w.Header().Set("Location", "/payouts/"+resp.ResourceID)
	writeJSONBytes(w, http.StatusCreated, resp.Body)
	return nil
}

// getPayout serves GET /payouts/{id}.
func (s *Server) getPayout(w http.ResponseWriter, r *http.Request) error {
	p, err := s.Payouts.Get(r.Context(), principal(r).CustomerID, r.PathValue("id"))
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, payoutView(p))
	return nil
}

// payoutFilters are the query parameters of GET /payouts.
var payoutFilters = []string{"accountId", "status", "createdAt[gte]", "createdAt[lte]", "page", "limit", "cursor"}

// listPayouts serves GET /payouts.
func (s *Server) listPayouts(w http.ResponseWriter, r *http.Request) error {
	q, err := listQuery(r, payoutFilters)
	if err != nil {
		return err
	}
	lp, err := readPaging(q, ledger.DefaultPageLimit, ledger.MaxPageLimit)
	if err != nil {
		return err
	}
	f := payout.Filter{Page: lp.Page, Limit: lp.Limit, After: lp.After}
	if f.AccountID, err = uuidParam(q, "accountId"); err != nil {
		return err
	}
	if v := q.Get("status"); v != "" {
		if f.Status = payout.Status(v); !validOf(f.Status, payout.Statuses) {
			return errs.E(errs.InvalidQueryParam, "status %q is not a payout status (e.g. CREATED, COMPLETED).", v)
		}
	}
	if f.CreatedFrom, err = timeParam(q, "createdAt[gte]"); err != nil {
		return err
	}
	if f.CreatedTo, err = timeParam(q, "createdAt[lte]"); err != nil {
		return err
	}
	pg, err := s.Payouts.List(r.Context(), principal(r).CustomerID, f)
	return writeListOf(w, r, lp, pg, err, payoutView)
}

// payoutView is the wire form of a payout.
func payoutView(p payout.Payout) api.Payout {
	b := p.Beneficiary
	ids := api.PayoutAccountIdentifiers{}
	if b.IBAN != "" {
		ids.IBAN = &b.IBAN
	} else {
		ids.SortCode, ids.AccountNumber = &b.SortCode, &b.AccountNumber
	}
	cp := p.Counterparty()
	out := api.Payout{ID: p.ID, AccountID: p.AccountID, Type: api.PayoutType(p.Type), Operation: api.AccountTransactionOperationOUTGOING,
		Status: api.PayoutStatus(p.Status), Amount: p.Amount, Currency: p.Currency, Reference: p.Reference(),
		Counterparty: api.AccountTransactionCounterparty{Name: cp.Name, IBAN: cp.IBAN}, PaymentReference: p.PaymentReference,
		Beneficiary:                 api.PayoutBeneficiary{Name: b.Name, AccountIdentifiers: ids},
		AccountHolderVerificationID: p.VerificationID, CreatedAt: p.CreatedAt, UpdatedAt: p.UpdatedAt}
	if p.InternalReference != "" {
		out.InternalReference = &p.InternalReference
	}
	if p.Type == payout.TypeSettlement {
		settled := make([]api.SettledPayment, 0, len(p.Settled))
		for _, st := range p.Settled {
			settled = append(settled, api.SettledPayment{PaymentID: st.PaymentID, Amount: st.Amount})
		}
		out.SettledPayments = &settled
	}
	return out
}
