package identity

import (
	"context"

	"github.com/google/uuid"

	"github.com/bankrail/bankrail/internal/errs"
)

// Customer reads customer id if it is viewer's customer, below it, or
// above it (its PSP, the top-level customer whose sandbox clock it shares);
// RESOURCE_NOT_FOUND otherwise, for a customer of another branch of the
// tree: the console's names of customers.
func (s *Service) Customer(ctx context.Context, viewer, id string) (Customer, error) {
	if _, err := Authorize(ctx, CustomerRead); err != nil {
		return Customer{}, err
	}
	notFound := errs.NotFoundf("Customer %s was not found.", id)
	if uuid.Validate(id) != nil {
		return Customer{}, notFound
	}
	below, err := s.store.IsDescendant(ctx, viewer, id)
	if err != nil {
		return Customer{}, err
	}
	above := false
	if !below {
		if above, err = s.store.IsDescendant(ctx, id, viewer); err != nil {
			return Customer{}, err
		}
	}
	if !below && !above {
		return Customer{}, notFound
	}
	return s.store.GetCustomer(ctx, id)
}
