package httpapi

import (
	"net/http"
	"strings"

	"github.com/bankrail/bankrail/api"
	"github.com/bankrail/bankrail/internal/alias"
	"github.com/bankrail/bankrail/internal/config"
	"github.com/bankrail/bankrail/internal/errs"
	"github.com/bankrail/bankrail/internal/ledger"
)

// aliasScenario reads X-Service-Testing-Scenario of an alias order
// (sandbox only).
func (s *Server) aliasScenario(r *http.Request) (string, error) {
	v := strings.TrimSpace(r.Header.Get(ScenarioHeader))
	switch {
	case v == "":
		return "", nil
	case s.Mode != config.Sandbox:
		return "", errs.E(errs.InvalidHeader, "%s is only accepted in the sandbox; remove it in production.", ScenarioHeader)
	case strings.EqualFold(v, alias.ScenarioFailed):
		return alias.ScenarioFailed, nil
	}
	return "", errs.E(errs.InvalidHeader, "%s %q is not an alias order scenario; use %s.", ScenarioHeader, v, alias.ScenarioFailed)
}

// createAliasOrder serves POST /orders/account-aliases: 201 with {id} and
// Location: /orders/account-aliases/{id}; a replay under the same
// Idempotency-Key answers the stored body with Idempotent-Replayed: true.
func (s *Server) createAliasOrder(w http.ResponseWriter, r *http.Request) error {
	key, err := idempotencyKey(r)
	if err != nil {
		return err
	}
	sc, err := s.aliasScenario(r)
	if err != nil {
		return err
	}
	var body api.AliasOrderRequest
	if err := s.decodeJSON(w, r, &body); err != nil {
		return err
	}
	in := alias.Input{ViewerCustomerID: principal(r).CustomerID, IdempotencyKey: key, AccountID: body.AccountID,
		Count: body.Count, Scenario: sc}
	resp, err := s.Aliases.Create(r.Context(), in, func(o alias.Order) ([]byte, error) {
		return encodeJSON(api.AliasOrderCreated{ID: o.ID})
	})
	if err != nil {
		return err
	}
	if resp.Replayed {
		w.Header().Set("Idempotent-Replayed", "true")
	}
	w.Header().Set("Location", "/orders/account-aliases/"+resp.ResourceID)
	writeJSONBytes(w, http.StatusCreated, resp.Body)
	return nil
}

// getAliasOrder serves GET /orders/account-aliases/{id}.
func (s *Server) getAliasOrder(w http.ResponseWriter, r *http.Request) error {
	o, err := s.Aliases.Order(r.Context(), principal(r).CustomerID, r.PathValue("id"))
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, aliasOrderView(o))
	return nil
}

// aliasFilters are the query parameters of GET /account-aliases.
var aliasFilters = []string{"orderId", "accountId", "page", "limit", "cursor"}

// listAliases serves GET /account-aliases: newest first, with the paging headers.
func (s *Server) listAliases(w http.ResponseWriter, r *http.Request) error {
	q, err := listQuery(r, aliasFilters)
	if err != nil {
		return err
	}
	lp, err := readPaging(q, ledger.DefaultPageLimit, ledger.MaxPageLimit)
	if err != nil {
		return err
	}
	f := alias.Filter{Page: lp.Page, Limit: lp.Limit, After: lp.After}
	if f.OrderID, err = uuidParam(q, "orderId"); err != nil {
		return err
	}
	if f.AccountID, err = uuidParam(q, "accountId"); err != nil {
		return err
	}
	pg, err := s.Aliases.List(r.Context(), principal(r).CustomerID, f)
	return writeListOf(w, r, lp, pg, err, aliasView)
}

// getAlias serves GET /account-aliases/{id}.
func (s *Server) getAlias(w http.ResponseWriter, r *http.Request) error {
	a, err := s.Aliases.Alias(r.Context(), principal(r).CustomerID, r.PathValue("id"))
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, aliasView(a))
	return nil
}

// aliasUpdate is the body of PATCH /account-aliases/{id} (api.AccountAliasUpdate,
// with active a pointer so that a missing one is told from false).
type aliasUpdate struct {
	Active *bool `json:"active"`
}

// updateAlias serves PATCH /account-aliases/{id} {active}: 200 with the alias.
func (s *Server) updateAlias(w http.ResponseWriter, r *http.Request) error {
	var body aliasUpdate
	if err := s.decodeJSON(w, r, &body); err != nil {
		return err
	}
	if body.Active == nil {
		var v errs.Validation
		v.Add(errs.ValueRequired, "active", "active is required: true to take funds, false to send them back.")
		return v.Err()
	}
	a, err := s.Aliases.SetActive(r.Context(), principal(r).CustomerID, r.PathValue("id"), *body.Active)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, aliasView(a))
	return nil
}

// aliasOrderView is the wire form of an alias order.
func aliasOrderView(o alias.Order) api.AliasOrder {
	out := api.AliasOrder{ID: o.ID, AccountID: o.AccountID, Status: api.AliasOrderStatus(o.Status),
		Requested: int64(o.Requested), Completed: int64(o.Completed), CreatedAt: o.CreatedAt,
		UnderscoreLinks: api.AliasOrderLinks{
			Self:    api.Link{Href: "/orders/account-aliases/" + o.ID, Method: api.LinkMethodGET},
			Aliases: api.Link{Href: "/account-aliases?orderId=" + o.ID, Method: api.LinkMethodGET}}}
	if !o.CompletedAt.IsZero() {
		at := o.CompletedAt
		out.CompletedAt = &at
	}
	return out
}

// aliasView is the wire form of an alias.
func aliasView(a alias.Alias) api.AccountAlias {
	return api.AccountAlias{ID: a.ID, AccountID: a.AccountID, OrderID: a.OrderID, IBAN: a.IBAN, Active: a.Active, CreatedAt: a.CreatedAt}
}
