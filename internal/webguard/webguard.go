// Package webguard is what the two HTTP adapters of bankrail, the API
// (internal/httpapi) and the web console (internal/dashboard), do alike
// around a signed-in person's request: the client address sign-ins are
// throttled and audited by, the pending audit entry of a change, and the
// download of a report's file (report.go). Each
// adapter keeps its own way of finding the principal (a bearer token, a
// session cookie) and of answering a refusal (JSON, an HTML page).
package webguard

import (
	"context"
	"net/http"
	"time"

	"github.com/bankrail/bankrail/internal/audit"
	"github.com/bankrail/bankrail/internal/auth"
)

// SignInAuditor writes the audit entry of a refused sign-in, which has no
// unit of work of its own (the store implements it).
type SignInAuditor interface {
	RecordFailedSignIn(ctx context.Context, e audit.Entry, username, clientID string) error
}

// Audited returns r with the pending audit entry of a change by p in its
// context: the store writes it in the commit path of the request's unit of
// work (see internal/audit). The action is the route's pattern; the record
// is the one its path names.
func Audited(r *http.Request, pattern string, p auth.Principal, now time.Time, requestID, ip string) *http.Request {
	typ, id := audit.ResourceOfPath(pattern, r.PathValue)
	ctx, _ := audit.With(r.Context(), audit.Entry{OccurredAt: now.UTC(), CustomerID: p.CustomerID, ActorType: audit.ActorUser,
		ActorID: p.UserID, Action: pattern, ResourceType: typ, ResourceID: id, RequestID: requestID, IP: ip})
	return r.WithContext(ctx)
}
