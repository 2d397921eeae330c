package httpapi

import (
	"context"
	"net/http"

	"github.com/bankrail/bankrail/internal/audit"
	"github.com/bankrail/bankrail/internal/errs"
	"github.com/bankrail/bankrail/internal/webguard"
)

// SignInAuditor writes the audit entry of a refused sign-in, which has no
// unit of work of its own (the store implements it).
type SignInAuditor = webguard.SignInAuditor

// audited puts the pending audit entry of an authenticated request that may
// change something (any method but GET and HEAD) into its context: the
// store writes it in the commit path of the request's unit of work (see
// internal/audit). The action is the route's pattern; the record is the one
// its path names, or the one the request creates. This is the one place
// the API's changes are audited; handlers do nothing for it.
func (s *Server) audited(r *http.Request, pattern string, rt route) *http.Request {
	if rt.public || r.Method == http.MethodGet || r.Method == http.MethodHead {
		return r
	}
	return webguard.Audited(r, pattern, principal(r), s.clock.Now(), requestIDFrom(r.Context()), s.clientAddr(r))
}

// signInAudited puts the pending audit entry of a grant into the request's
// context; the store writes it with the refresh token it issues.
func (s *Server) signInAudited(r *http.Request, action string) *http.Request {
	ctx, _ := audit.With(r.Context(), audit.Entry{OccurredAt: s.clock.Now().UTC(), Action: action,
		RequestID: requestIDFrom(r.Context()), IP: s.clientAddr(r)})
	return r.WithContext(ctx)
}

// auditRefusal writes the audit entry of a grant refused for its
// credentials (UNAUTHORISED, or TOO_MANY_REQUESTS while locked). It never
// holds the password, the client secret or the refresh token.
func (s *Server) auditRefusal(r *http.Request, grantErr error, username, clientID string) error {
	if s.SignIns == nil || !(errs.Is(grantErr, errs.Unauthorised) || errs.Is(grantErr, errs.TooManyRequests)) {
		return nil
	}
	e := audit.Entry{OccurredAt: s.clock.Now().UTC(), Action: audit.ActionSignInFailed,
		RequestID: requestIDFrom(r.Context()), IP: s.clientAddr(r)}
	return s.SignIns.RecordFailedSignIn(context.WithoutCancel(r.Context()), e, username, clientID)
}
