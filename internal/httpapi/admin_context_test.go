package httpapi

import (
	"context"

	"github.com/bankrail/bankrail/internal/identity"
)

// adminContext is a context acting as an ADMIN, for tests that call the
// services directly (they check the principal at their entry).
func adminContext() context.Context {
	return identity.WithPrincipal(context.Background(), identity.Principal{Role: identity.RoleAdmin})
}
