package identity

import (
	"context"
	"time"

	"github.com/bankrail/bankrail/internal/errs"
)

// Principal is who acts: the user, its role, its customer (the top of the
// customer tree it may see) and, with an access token, its application. The
// HTTP adapter takes it from a verified access token, the console from its
// session; both put it in the request's context (WithPrincipal), and every
// service method that acts for a caller asks it there (Authorize).
type Principal struct {
	UserID     string
	Username   string
	CustomerID string
	ClientID   string // the application (empty in a console session)
	Role       Role
	TokenID    string
	ExpiresAt  time.Time // on the clock of the customer's tenant
	NotBefore  time.Time // on the clock of the customer's tenant
	Generation int64     // the user's token generation when the token was issued
}

// Can reports whether the principal's role grants p.
func (p Principal) Can(perm Permission) bool { return p.Role.Can(perm) }

// Permits refuses op with ACCESS_DENIED when the principal's role does not
// grant the permission op needs.
func (p Principal) Permits(op Operation) error {
	need := op.Needs()
	if need == "" {
		return errs.E(errs.AccessDenied, "Nobody may %s: it is not a known operation.", op)
	}
	if !p.Role.Can(need) {
		return errs.E(errs.AccessDenied, "Your role %s does not have the %s permission.", p.Role, need)
	}
	return nil
}

type principalKey struct{}

// WithPrincipal returns ctx carrying p.
func WithPrincipal(ctx context.Context, p Principal) context.Context {
	return context.WithValue(ctx, principalKey{}, p)
}

// PrincipalFrom returns the principal in ctx, if any.
func PrincipalFrom(ctx context.Context) (Principal, bool) {
	p, ok := ctx.Value(principalKey{}).(Principal)
	return p, ok
}

// Authorize is the check at the entry of every service method that acts
// for a caller: the principal in ctx (UNAUTHORISED without one) whose role
// grants what op needs (ACCESS_DENIED otherwise).
func Authorize(ctx context.Context, op Operation) (Principal, error) {
	p, ok := PrincipalFrom(ctx)
	if !ok {
		return Principal{}, errs.E(errs.Unauthorised, "No one is signed in to %s.", op)
	}
	return p, p.Permits(op)
}
