package httpapi

import (
	"net/http"
	"strings"

	"github.com/bankrail/bankrail/api"
	"github.com/bankrail/bankrail/internal/config"
	"github.com/bankrail/bankrail/internal/errs"
	"github.com/bankrail/bankrail/internal/payment"
)

// ScenarioHeader names the sandbox outcome POST /payments plays at once.
const ScenarioHeader = "X-Service-Testing-Scenario"

// testingScenario reads X-Service-Testing-Scenario: an outcome name in the
// sandbox; refused in production, so that a test header left in live code
// is noticed instead of silently ignored.
func (s *Server) testingScenario(r *http.Request) (payment.Outcome, error) {
	v := strings.TrimSpace(r.Header.Get(ScenarioHeader))
	if v == "" {
		return nil, nil
	}
	if s.Mode != config.Sandbox {
		return nil, errs.E(errs.InvalidHeader, "%s is only accepted in the sandbox; remove it in production.", ScenarioHeader)
	}
	o, ok := payment.ParseOutcome(v)
	if !ok {
		return nil, errs.E(errs.InvalidHeader, "%s %q is not a scenario; use one of: %s.", ScenarioHeader, v,
			strings.Join(payment.OutcomeNames(), ", "))
	}
	return o, nil
}

// authoriseSandboxPayment serves POST /sandbox/payments/{id}/authorise
// {"outcome": "COMPLETED", "accountHolderName"?: "..."}: the payer's and the
// bank's part without a browser. It answers the Global payment record after
// the moves.
func (s *Server) authoriseSandboxPayment(w http.ResponseWriter, r *http.Request) error {
	var req api.SandboxAuthoriseRequest
	if err := s.decodeJSON(w, r, &req); err != nil {
		return err
	}
	var v errs.Validation
	var o payment.Outcome
	switch {
	case strings.TrimSpace(string(req.Outcome)) == "":
		v.Add(errs.ValueRequired, "outcome", "outcome is required: one of %s.", strings.Join(payment.OutcomeNames(), ", "))
	default:
		var ok bool
		if o, ok = payment.ParseOutcome(string(req.Outcome)); !ok {
			v.Add(errs.InvalidValue, "outcome", "outcome %q is not one of %s.", string(req.Outcome), strings.Join(payment.OutcomeNames(), ", "))
		}
	}
	if err := v.Err(); err != nil {
		return err
	}
	p, err := s.Payments.Authorise(r.Context(), principal(r).CustomerID, r.PathValue("id"), o, val(req.AccountHolderName))
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, s.recordOf(p))
	return nil
}
