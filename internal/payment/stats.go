package payment

import (
	"context"
	"time"

	"github.com/bankrail/bankrail/internal/identity"
)

// Stats counts the payments viewer may see per day and status, created in
// [from, to).
type Stats interface {
	PaymentsPerDay(ctx context.Context, viewer string, from, to time.Time, fn func(day time.Time, status string, count int)) error
}

// CountWith makes PerDay count through st.
func (s *Service) CountWith(st Stats) { s.stats = st }

// PerDay counts the payments viewerCustomerID may see per day and status,
// created in [from, to) (the console's chart).
func (s *Service) PerDay(ctx context.Context, viewerCustomerID string, from, to time.Time, fn func(day time.Time, status string, count int)) error {
	if _, err := identity.Authorize(ctx, identity.PaymentRead); err != nil {
		return err
	}
	if s.stats == nil {
		return nil
	}
	return s.stats.PaymentsPerDay(ctx, viewerCustomerID, from, to, fn)
}
