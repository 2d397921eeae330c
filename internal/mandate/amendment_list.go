package mandate

import (
	"context"

	"github.com/bankrail/bankrail/internal/identity"
)

// AmendmentLister lists the amendments of a mandate visible to viewer,
// newest first.
type AmendmentLister interface {
	AmendmentsOf(ctx context.Context, viewer, mandateID string) ([]Amendment, error)
}

// ListAmendmentsWith makes AmendmentsOf read through l.
func (s *Service) ListAmendmentsWith(l AmendmentLister) { s.lister = l }

// AmendmentsOf lists the amendments of mandate mandateID visible to
// viewerCustomerID, newest first (the console's mandate page).
func (s *Service) AmendmentsOf(ctx context.Context, viewerCustomerID, mandateID string) ([]Amendment, error) {
	if _, err := identity.Authorize(ctx, identity.MandateRead); err != nil {
		return nil, err
	}
	if s.lister == nil {
		return nil, nil
	}
	return s.lister.AmendmentsOf(ctx, viewerCustomerID, mandateID)
}
