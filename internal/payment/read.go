package payment

import (
	"context"
	"strings"

	"github.com/google/uuid"

	"github.com/bankrail/bankrail/internal/errs"
	"github.com/bankrail/bankrail/internal/identity"
)

// Reads of payments by those who may see them: one payment, its details
// record, and pages of them.

// paymentID is id as payments are stored (lower case), or
// MALFORMED_PATH_PARAM when it is not a uuid.
func paymentID(id string) (string, error) {
	if _, err := uuid.Parse(id); err != nil || len(id) != 36 {
		return "", errs.E(errs.MalformedPathParam, "The payment id %q is not a uuid.", id)
	}
	return strings.ToLower(id), nil
}

// Get reads a payment that viewerCustomerID (or a customer above its owner)
// may see; any other is RESOURCE_NOT_FOUND.
func (s *Service) Get(ctx context.Context, viewerCustomerID, id string) (Payment, error) {
	if _, err := identity.Authorize(ctx, identity.PaymentRead); err != nil {
		return Payment{}, err
	}
	id, err := paymentID(id)
	if err != nil {
		return Payment{}, err
	}
	return s.payments.Get(ctx, viewerCustomerID, id)
}

// GetDetails reads a payment as its details record needs it (Repository.
// GetView: not for changes), with the whole refund rule applied
// (RefundabilityAt) from the same read.
func (s *Service) GetDetails(ctx context.Context, viewerCustomerID, id string) (ListItem, error) {
	if _, err := identity.Authorize(ctx, identity.PaymentRead); err != nil {
		return ListItem{}, err
	}
	id, err := paymentID(id)
	if err != nil {
		return ListItem{}, err
	}
	it, err := s.payments.GetView(ctx, viewerCustomerID, id)
	if err != nil {
		return ListItem{}, err
	}
	it.Refund = RefundabilityAt(it.Payment, it.Refunded, it.Available)
	return it, nil
}

// List returns one page of payments visible to viewerCustomerID and the
// total number of matches.
func (s *Service) List(ctx context.Context, viewerCustomerID string, f ListFilter) ([]Payment, int, error) {
	if _, err := identity.Authorize(ctx, identity.PaymentRead); err != nil {
		return nil, 0, err
	}
	page, err := s.ListPage(ctx, viewerCustomerID, f)
	if err != nil {
		return nil, 0, err
	}
	out := make([]Payment, len(page.Items))
	for i, it := range page.Items {
		out[i] = it.Payment
	}
	return out, page.Total, nil
}

// ListPage returns one page of payments visible to viewerCustomerID, each
// with the whole refund rule applied (RefundabilityAt, as a read of the
// payment applies it), the total and the position after the page.
func (s *Service) ListPage(ctx context.Context, viewerCustomerID string, f ListFilter) (Page, error) {
	if _, err := identity.Authorize(ctx, identity.PaymentRead); err != nil {
		return Page{}, err
	}
	if f.Page < 1 {
		f.Page = 1
	}
	if f.Limit < 1 || f.Limit > MaxPageLimit {
		f.Limit = DefaultPageLimit
	}
	page, err := s.payments.ListPage(ctx, viewerCustomerID, f)
	if err != nil {
		return Page{}, err
	}
	for i := range page.Items {
		it := &page.Items[i]
		it.Refund = RefundabilityAt(it.Payment, it.Refunded, it.Available)
	}
	return page, nil
}
