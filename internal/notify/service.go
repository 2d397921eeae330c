package notify

import (
	"context"
	"time"

	"github.com/bankrail/bankrail/internal/clock"
	"github.com/bankrail/bankrail/internal/errs"
	"github.com/bankrail/bankrail/internal/identity"
)

// Store reads and changes stored notifications. viewer is the customer
// acting: it sees its own notifications and its descendants'; any other
// notification is errs.NotFound.
type Store interface {
	ListNotifications(ctx context.Context, viewer string, f Filter) (Page, error)
	GetNotification(ctx context.Context, viewer, id string) (Notification, []Attempt, error)
	// RedeliverNotification makes the notification due at now (PENDING again
	// if it was DELIVERED or FAILED, with a fresh retry schedule).
	RedeliverNotification(ctx context.Context, viewer, id string, now time.Time) (Notification, error)
	// ResumeNotifications lifts the pause of the application of clientID
	// and makes its held notifications due at now; it reports whether the
	// application was paused.
	ResumeNotifications(ctx context.Context, clientID string, now time.Time) (bool, error)
}

// Tester sends a test notification synchronously (notify/dispatch).
type Tester interface {
	// SendTest posts {} to the application of clientID, records the attempt,
	// and on success resumes the application's paused notifications.
	SendTest(ctx context.Context, customerID, clientID string) (Notification, []Attempt, error)
}

// MaxLimit is the largest page of the delivery log.
const MaxLimit = 100

// DefaultLimit is the page size when none is asked for.
const DefaultLimit = 25

// Service is the delivery log and the test notification.
type Service struct {
	store  Store
	tester Tester
	clock  clock.Clock
}

// NewService returns the notification service.
func NewService(store Store, tester Tester, clk clock.Clock) *Service {
	return &Service{store: store, tester: tester, clock: clk}
}

// List returns the viewer's notifications, newest first.
func (s *Service) List(ctx context.Context, viewer string, f Filter) (Page, error) {
	if _, err := identity.Authorize(ctx, identity.NotifyRead); err != nil {
		return Page{}, err
	}
	if f.Page == 0 {
		f.Page = 1
	}
	if f.Limit == 0 {
		f.Limit = DefaultLimit
	}
	if f.Page < 1 || f.Limit < 1 || f.Limit > MaxLimit {
		return Page{}, errs.E(errs.InvalidQueryParam, "page must be at least 1 and limit between 1 and %d.", MaxLimit)
	}
	page, err := s.store.ListNotifications(ctx, viewer, f)
	page.Page, page.Limit = f.Page, f.Limit
	return page, err
}

// Get returns one notification with its attempts.
func (s *Service) Get(ctx context.Context, viewer, id string) (Notification, []Attempt, error) {
	if _, err := identity.Authorize(ctx, identity.NotifyRead); err != nil {
		return Notification{}, nil, err
	}
	return s.store.GetNotification(ctx, viewer, id)
}

// Redeliver queues the notification again now.
func (s *Service) Redeliver(ctx context.Context, viewer, id string) (Notification, error) {
	if _, err := identity.Authorize(ctx, identity.NotifySend); err != nil {
		return Notification{}, err
	}
	now, err := clock.UnitTime(ctx, s.clock, viewer) // the viewer's tenant is the notification's
	if err != nil {
		return Notification{}, err
	}
	return s.store.RedeliverNotification(ctx, viewer, id, now)
}

// Test sends a test notification to the application of clientID.
func (s *Service) Test(ctx context.Context, customerID, clientID string) (Notification, []Attempt, error) {
	if _, err := identity.Authorize(ctx, identity.NotifySend); err != nil {
		return Notification{}, nil, err
	}
	return s.tester.SendTest(ctx, customerID, clientID)
}

// Resume lifts the pause of the application of clientID at once, without
// asking its receiver (which may be unreachable or not yet written): its
// consecutive failures start again from zero and its held notifications go
// out now; if the receiver still fails, PauseAfter more failures pause it
// again. It reports whether the application was paused.
func (s *Service) Resume(ctx context.Context, clientID string) (bool, error) {
	if _, err := identity.Authorize(ctx, identity.NotifySend); err != nil {
		return false, err
	}
	// basetime: the held notifications are due at once, and the base time is due on every tenant's clock
	return s.store.ResumeNotifications(ctx, clientID, clock.Base(s.clock))
}
