package httpapi

import (
	"net/http"

	"github.com/bankrail/bankrail/api"
	"github.com/bankrail/bankrail/internal/auth"
	"github.com/bankrail/bankrail/internal/errs"
	"github.com/bankrail/bankrail/internal/payout"
)

// getVerification serves GET /account-holder-verifications/{id}.
func (s *Server) getVerification(w http.ResponseWriter, r *http.Request) error {
	v, err := s.Payouts.Verification(r.Context(), principal(r).CustomerID, r.PathValue("id"))
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, verificationView(v))
	return nil
}

// verificationFilters are the query parameters of GET /account-holder-verifications.
var verificationFilters = []string{"transactionId"}

// listVerifications serves GET /account-holder-verifications?transactionId=:
// the verification of a payout (none for another customer's).
func (s *Server) listVerifications(w http.ResponseWriter, r *http.Request) error {
	q, err := listQuery(r, verificationFilters)
	if err != nil {
		return err
	}
	id, err := uuidParam(q, "transactionId")
	if err != nil {
		return err
	}
	if id == "" {
		return errs.E(errs.MissingQueryParam, "transactionId is required: the payout whose verification to read.")
	}
	list, err := s.Payouts.VerificationsOf(r.Context(), principal(r).CustomerID, id)
	if err != nil {
		return err
	}
	out := make([]api.AccountHolderVerification, 0, len(list))
	for _, v := range list {
		out = append(out, verificationView(v))
	}
	writeJSON(w, http.StatusOK, out)
	return nil
}

// approveVerification serves POST /account-holder-verifications/{id}/approve.
func (s *Server) approveVerification(w http.ResponseWriter, r *http.Request) error {
	return s.decideVerification(w, r, true)
}

// rejectVerification serves POST /account-holder-verifications/{id}/reject.
func (s *Server) rejectVerification(w http.ResponseWriter, r *http.Request) error {
	return s.decideVerification(w, r, false)
}

// decideVerification records the token's user (or API client) deciding.
func (s *Server) decideVerification(w http.ResponseWriter, r *http.Request, approve bool) error {
	who := principal(r)
	v, err := s.Payouts.Decide(r.Context(), who.CustomerID, r.PathValue("id"), approve, performerOf(who))
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, verificationView(v))
	return nil
}

// performerOf is who decides, from the token: its user, or the API client
// (its client id) for a token that names no user.
func performerOf(who auth.Principal) payout.Performer {
	if who.UserID == "" {
		return payout.Performer{ID: who.ClientID, Name: who.ClientID, Type: payout.APIClient}
	}
	return payout.Performer{ID: who.UserID, Name: who.Username, Type: payout.User}
}

// verificationView is the wire form of an account holder verification.
func verificationView(v payout.Verification) api.AccountHolderVerification {
	out := api.AccountHolderVerification{ID: v.ID, TransactionID: v.TransactionID,
		Status: api.AccountHolderVerificationStatus(v.Status), Result: api.AccountHolderVerificationResult(v.Result),
		AccountHolderName: api.AccountHolderName{Requested: v.Requested}, ExecutedAt: v.ExecutedAt,
		UnderscoreLinks: api.AccountHolderVerificationLinks{
			Self:        api.Link{Href: "/account-holder-verifications/" + v.ID, Method: api.LinkMethodGET},
			Transaction: api.Link{Href: "/payouts/" + v.TransactionID, Method: api.LinkMethodGET}}}
	if v.Returned != "" {
		out.AccountHolderName.Returned = &v.Returned
	}
	if d := v.Decision; d != nil {
		out.Decision = &api.AccountHolderVerificationDecision{CreatedAt: d.CreatedAt, Subject: "ACCOUNT_HOLDER_VERIFICATION",
			Type:      api.AccountHolderVerificationDecisionType(d.Type),
			Performer: api.DecisionPerformer{ID: d.Performer.ID, Name: d.Performer.Name, Type: api.AccountHolderVerificationDecisionPerformerType(d.Performer.Type)}}
	}
	return out
}
